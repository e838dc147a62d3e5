package server

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/citecheck/citecheck"
)

// A request with a body goes through three gates, so that no client can
// hold what other clients need for longer than it takes to use it:
//
//  1. the body memory budget (Config.BodyMemory): a body is read before the
//     request takes a check slot, under a reservation of its size, and at
//     no less than Config.MinBodyRate once Config.BodyRateGrace is over;
//  2. a check slot (Config.MaxInFlight), held only while the engine runs,
//     with slots kept for cheap requests (slots.go);
//  3. the answer, written after the slot is released, under its own write
//     deadline (Config.WriteTimeout), its bytes still counted in the budget.
//
// So a slow sender costs budget, never a slot, and is cut when it falls
// behind; a client that never reads its answer costs the answer's bytes
// for at most WriteTimeout; a check slot is only ever held by the CPU.

// budget is a weighted semaphore on bytes: the body memory budget.
type budget struct {
	mu      sync.Mutex
	cap     int64
	used    int64
	changed chan struct{} // closed and replaced whenever used goes down
}

func newBudget(capacity int64) *budget {
	return &budget{cap: capacity, changed: make(chan struct{})}
}

// acquire reserves n bytes, waiting up to wait for them (or until done is
// closed). A reservation larger than the whole budget is capped to it, so
// that it can still be granted once the budget is empty.
func (b *budget) acquire(n int64, wait time.Duration, done <-chan struct{}) (reserved int64, ok bool) {
	n = min(n, b.cap)
	var timeout <-chan time.Time
	for {
		b.mu.Lock()
		if b.used+n <= b.cap {
			b.used += n
			b.mu.Unlock()
			return n, true
		}
		changed := b.changed
		b.mu.Unlock()
		if timeout == nil {
			t := time.NewTimer(wait)
			defer t.Stop()
			timeout = t.C
		}
		select {
		case <-changed:
		case <-timeout:
			return 0, false
		case <-done:
			return 0, false
		}
	}
}

// resize changes a reservation from n to m bytes without waiting (an
// answer replaces its body, and must be writable whatever the budget
// holds), and returns m. Growing may take the budget over its cap by the
// difference, which an answer's size bounds.
func (b *budget) resize(n, m int64) int64 {
	b.mu.Lock()
	b.used += m - n
	if m < n {
		close(b.changed)
		b.changed = make(chan struct{})
	}
	b.mu.Unlock()
	return m
}

func (b *budget) release(n int64) { b.resize(n, 0) }

func (b *budget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// errTooSlow is the failure of a body that arrived slower than the minimum
// rate; its text is what the client reads in the error message.
type errTooSlow struct {
	rate  int64
	grace time.Duration
	read  int64
}

func (e errTooSlow) Error() string {
	return fmt.Sprintf("it arrived slower than %d bytes/s after a %v grace (%d bytes read); send it faster", e.rate, e.grace, e.read)
}

// paced reads a request body at no less than rate bytes a second after
// grace, and within the request's read timeout: before each read it moves
// the connection's read deadline to when the bytes read so far stop
// covering the time spent. A client that keeps ahead is never cut; one at a
// byte a second is cut soon after grace.
type paced struct {
	body  io.Reader
	rc    *http.ResponseController
	start time.Time
	hard  time.Time // start + ReadTimeout: the deadline no rate extends
	grace time.Duration
	rate  int64
	read  int64
}

func (p *paced) Read(b []byte) (int, error) {
	dl := p.start.Add(p.grace + time.Duration(float64(p.read)/float64(p.rate)*float64(time.Second)))
	rateBound := dl.Before(p.hard)
	if !rateBound {
		dl = p.hard
	}
	p.rc.SetReadDeadline(dl)
	n, err := p.body.Read(b)
	p.read += int64(n)
	var ne net.Error
	if err != nil && rateBound && errors.As(err, &ne) && ne.Timeout() {
		err = errTooSlow{rate: p.rate, grace: p.grace, read: p.read}
	}
	return n, err
}

// admission is one admitted request's hold on the budget.
type admission struct {
	s        *Server
	reserved int64
}

// admitBody runs the checks a request with a body passes before any of it
// is read, cheapest first: its media type, its content coding, its declared length (over
// maxBody is refused before a byte is read; net/http then closes the
// connection rather than drain it), then a reservation of its size (or of
// maxBody, when it is chunked) on the body memory budget. It then reads
// the body, paced. It returns the body and the admission, or a nil
// admission when it has answered the request itself.
//
// A chunked request is answered with Connection: close: net/http drops
// the Content-Length of a request that also has Transfer-Encoding, so the
// handler cannot tell such a request (RFC 9112 §6.1: close the connection
// after answering it) from a plain chunked one, and closes after both.
func (s *Server) admitBody(w http.ResponseWriter, r *http.Request, maxBody int64,
	read func(http.ResponseWriter, *http.Request) ([]byte, *citecheck.Error), tooBig func() *citecheck.Error) ([]byte, *admission) {
	if len(r.TransferEncoding) > 0 {
		w.Header().Set("Connection", "close")
	}
	if e := checkMediaType(r); e != nil {
		writeError(w, r, e)
		return nil, nil
	}
	if e := checkContentEncoding(r); e != nil {
		w.Header().Set("Accept-Encoding", "identity") // RFC 9110 §12.5.3: what the request may use
		writeError(w, r, e)
		return nil, nil
	}
	if r.ContentLength > maxBody {
		writeError(w, r, tooBig())
		return nil, nil
	}
	want := r.ContentLength
	if want < 0 {
		want = maxBody + 1 // what the reader may take before it refuses
	}
	reserved, ok := s.bodies.acquire(max(want, 1), s.cfg.QueueWait, r.Context().Done())
	if !ok {
		s.overloaded(w, r, "too many request bodies in memory (the body memory budget is in use)")
		return nil, nil
	}
	a := &admission{s: s, reserved: reserved}
	rc := http.NewResponseController(w)
	now := time.Now()
	r.Body = struct {
		io.Reader
		io.Closer
	}{&paced{body: r.Body, rc: rc, start: now, hard: now.Add(s.cfg.ReadTimeout),
		grace: s.cfg.BodyRateGrace, rate: s.cfg.MinBodyRate}, r.Body}
	body, e := read(w, r)
	if e != nil {
		// The deadline stays: net/http must not wait to drain the rest.
		w.Header().Set("Connection", "close")
		a.answer(w, func() { writeError(w, r, e) })
		return nil, nil
	}
	// The body is in: no deadline while it is checked, or net/http's
	// background read would fail at the old one and cancel the request.
	rc.SetReadDeadline(time.Time{})
	return body, a
}

// check runs run in a check slot, waiting up to QueueWait for one (cheap
// requests first: cost is the request's, in scan units, see slots.go),
// and writes the answer run produced after giving the slot back: gates 2
// and 3. run returns the answer's size and the function that writes it.
func (a *admission) check(w http.ResponseWriter, r *http.Request, cost int64, run func() (size int, write func())) {
	release := a.s.acquire(r, cost)
	if release == nil {
		a.answer(w, func() { a.s.overloaded(w, r, "too many requests in flight") })
		return
	}
	defer release() // for a panic in run; release is idempotent
	size, write := run()
	release()
	a.hold(size)
	a.answer(w, write)
}

// answer writes an answer under its own write deadline, after the check
// slot is released, with the answer's bytes (not the body's) held on the
// budget until it is written (see hold); then it releases the reservation.
// write writes the answer through w.
func (a *admission) answer(w http.ResponseWriter, write func()) {
	defer a.end()
	http.NewResponseController(w).SetWriteDeadline(time.Now().Add(a.s.cfg.WriteTimeout))
	write()
}

// end releases what the admission still holds; a handler defers it, so
// that a panic in a check gives the budget back too.
func (a *admission) end() {
	a.s.bodies.release(a.reserved)
	a.reserved = 0
}

// hold makes the reservation the size of an answer about to be written.
func (a *admission) hold(n int) { a.reserved = a.s.bodies.resize(a.reserved, int64(n)) }
