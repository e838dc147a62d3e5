package server

import (
	"bytes"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/citecheck/citecheck"
	"github.com/prometheus/client_golang/prometheus"
)

// maxHeaderBytes bounds a request head (net/http adds 4 KiB of slack). This
// service takes no cookies and few headers; 16 KiB is four times what a
// browser sends, and it bounds what an open connection can make the server
// hold before its request is even read.
const maxHeaderBytes = 16 << 10

// connLimiter is a listener that holds at most max connections open. At the
// bound, a new connection makes room by closing one that serves nobody: the
// longest-idle keep-alive connection first, else the oldest that has not
// sent a whole request head. A connection in a request is never closed for
// room; when all of them are, the new connection is closed at once. So
// thousands of idle or silent connections cost at most max connections'
// memory and file descriptors, and a new client is still served.
type connLimiter struct {
	net.Listener
	max int

	mu    sync.Mutex
	conns map[*trackedConn]struct{}

	open prometheus.Gauge
	shed *prometheus.CounterVec // by what was closed: idle, new, or the arrival (refused)
}

// trackedConn is a connection the limiter counts. Its state is the one
// net/http last reported through ConnState.
type trackedConn struct {
	net.Conn
	l     *connLimiter
	state http.ConnState // guarded by l.mu
	since time.Time      // when it entered state
	once  sync.Once
}

func (s *Server) limitConns(ln net.Listener) net.Listener {
	l := &connLimiter{Listener: ln, max: s.cfg.MaxConns, conns: make(map[*trackedConn]struct{}),
		open: s.metrics.connsOpen, shed: s.metrics.connsShed}
	s.conns.Store(l)
	return l
}

func (l *connLimiter) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		tc := &trackedConn{Conn: c, l: l, state: http.StateNew, since: time.Now()}
		l.mu.Lock()
		full := len(l.conns) >= l.max
		var victim *trackedConn
		if full {
			victim = l.victimLocked()
		}
		if !full || victim != nil {
			l.conns[tc] = struct{}{}
			l.open.Inc()
		}
		l.mu.Unlock()
		switch {
		case !full:
		case victim != nil:
			l.shed.WithLabelValues(stateName(victim.state)).Inc()
			victim.Close()
		default:
			l.shed.WithLabelValues("refused").Inc()
			c.Close()
			continue
		}
		return tc, nil
	}
}

// victimLocked picks the connection to close for room, or nil.
func (l *connLimiter) victimLocked() *trackedConn {
	var idle, fresh *trackedConn
	for c := range l.conns {
		switch c.state {
		case http.StateIdle:
			if idle == nil || c.since.Before(idle.since) {
				idle = c
			}
		case http.StateNew:
			if fresh == nil || c.since.Before(fresh.since) {
				fresh = c
			}
		}
	}
	if idle != nil {
		return idle
	}
	return fresh
}

func stateName(st http.ConnState) string {
	if st == http.StateIdle {
		return "idle"
	}
	return "new"
}

// trackState is the http.Server's ConnState hook.
func trackState(c net.Conn, st http.ConnState) {
	tc, ok := c.(*trackedConn)
	if !ok {
		return
	}
	if st == http.StateClosed || st == http.StateHijacked {
		tc.forget()
		return
	}
	tc.l.mu.Lock()
	tc.state, tc.since = st, time.Now()
	tc.l.mu.Unlock()
}

func (c *trackedConn) forget() {
	c.l.mu.Lock()
	if _, ok := c.l.conns[c]; ok {
		delete(c.l.conns, c)
		c.l.open.Dec()
	}
	c.l.mu.Unlock()
}

func (c *trackedConn) Close() error {
	var err error
	c.once.Do(func() {
		c.forget()
		err = c.Conn.Close()
	})
	return err
}

// Write passes net/http's writes through, except the answers net/http
// writes itself, as plain text, for a request it could not parse (400, 431
// for a head over maxHeaderBytes, 501 for an unknown transfer coding): they
// become the error object, so that every error body of the service is
// {"error": …}. They are told by their exact form, which no handler's
// answer has (a handler's always carries a Date header).
func (c *trackedConn) Write(b []byte) (int, error) {
	if e, status, ok := cannedError(b); ok {
		body := citecheck.AppendEnvelope(nil, nil, e)
		head := "HTTP/1.1 " + strconv.Itoa(status) + " " + http.StatusText(status) +
			"\r\nContent-Type: application/json\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\nContent-Length: " +
			strconv.Itoa(len(body)) + "\r\n\r\n"
		if _, err := c.Conn.Write(append([]byte(head), body...)); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return c.Conn.Write(b)
}

// cannedHeaders is what net/http's own error answers carry between the
// status line and the body (net/http.(*conn).serve).
var cannedHeaders = []byte("\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n")

// cannedError recognises one of net/http's own error answers, whole in b,
// and returns its error object and status.
func cannedError(b []byte) (*citecheck.Error, int, bool) {
	rest, ok := bytes.CutPrefix(b, []byte("HTTP/1.1 "))
	if !ok || len(rest) < 4 || rest[3] != ' ' {
		return nil, 0, false
	}
	status, err := strconv.Atoi(string(rest[:3]))
	if err != nil || status < 400 {
		return nil, 0, false
	}
	// The canned headers right after the status line, and nothing else.
	line, text, ok := bytes.Cut(rest, cannedHeaders)
	if !ok || bytes.ContainsAny(line, "\r\n") {
		return nil, 0, false
	}
	msg := "http: " + citecheck.Echo(text).String()
	if status == http.StatusRequestHeaderFieldsTooLarge {
		msg += " (the request head is over " + strconv.Itoa(maxHeaderBytes) + " bytes)"
	}
	return &citecheck.Error{Code: citecheck.CodeInvalidInput, Message: msg}, status, true
}

// registerHardening registers the gauges of the bounds of admission.go and
// conns.go on the server's registry.
func (s *Server) registerHardening() {
	s.metrics.registry.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "citecheck_body_memory_bytes",
			Help: "Bytes of the body memory budget reserved by bodies being read and answers being written.",
		}, func() float64 { return float64(s.bodies.inUse()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "citecheck_body_memory_budget_bytes",
			Help: "The body memory budget (--body-memory).",
		}, func() float64 { return float64(s.cfg.BodyMemory) }),
	)
}
