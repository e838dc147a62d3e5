package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/citecheck/citecheck"
	reportpkg "github.com/citecheck/citecheck/report"
)

// bulkOptions say how `run --jsonl` answers. The terminal decisions are
// made by cmdRun from the real streams and passed in, so tests can take
// either side of them.
type bulkOptions struct {
	all       bool   // CheckAll instead of the contract's Check
	explain   bool   // with all: Explain, findings and fixes
	fix       bool   // each request back with its fixes applied (fix.go)
	text      bool   // the text report instead of JSON lines
	html      bool   // the HTML report: one page of every request's citations, written at the end
	name      string // the input's name, for the page's title
	color     bool   // colour the text report
	progress  bool   // draw a progress line on stderr (stderr is a terminal)
	stdoutTTY bool   // stdout is that same terminal: clear the progress line before writing to it
	size      int64  // input size in bytes when known (a regular file), else 0
	workers   int    // 0: GOMAXPROCS
}

// Memory bounds of a bulk run. A line is held from when it is read until its
// answer is written; at most window lines are in flight, and once
// inflightBytes of line text are in flight the reader waits (a single line
// may still exceed it: up to MaxInputBytes+1 is read before it is refused).
const (
	windowPerWorker = 4
	inflightBytes   = 32 << 20
	readBufferSize  = 64 << 10
	progressEvery   = 100 * time.Millisecond
)

// bulkJob is one input line on its way through the pipeline.
type bulkJob struct {
	line    int     // 1-based line number
	body    *[]byte // the line without its newline, at most MaxInputBytes+1 bytes
	tooLong bool    // the line was longer than MaxInputBytes; the rest was skipped
	end     int64   // input bytes consumed through this line, for progress
	done    chan struct{}

	// Set by the worker before done is closed.
	out      *[]byte
	kind     lineKind
	reason   citecheck.Reason // the first failure's (kindFailed)
	failedBy [16]int32        // failing citations per reason (kindFailed with --all)
	fixed    int32            // citations fixed (--fix)
	code     string           // the error code (kindError)
	items    []reportpkg.Item // the line's items (--format html)
}

type lineKind uint8

const (
	kindValid lineKind = iota
	kindFailed
	kindError
)

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

func getBuf() *[]byte { b := bufPool.Get().(*[]byte); *b = (*b)[:0]; return b }

// runBulk answers one request per input line, in input order, with the
// same bytes the one-request run of that line prints: a bounded window of
// lines in flight, GOMAXPROCS workers, and a single writer that emits
// answers in order as they complete. It returns the exit status: 2 if any
// line was an error (or the input or output failed), else 1 if any request
// failed, else 0.
func runBulk(ctx context.Context, in io.Reader, stdout, stderr io.Writer, o bulkOptions) int {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := o.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	start := time.Now()
	prog := &progress{w: stderr, on: o.progress, size: o.size, start: start}
	var out io.Writer = stdout
	if o.progress && o.stdoutTTY {
		out = clearingWriter{stdout, prog}
	}
	bw := bufio.NewWriterSize(out, 64<<10)

	order := make(chan *bulkJob, windowPerWorker*workers)
	work := make(chan *bulkJob, workers)
	budget := newByteBudget(inflightBytes)
	var readErr error
	go func() { // the reader: lines in, jobs out, in order
		defer close(order)
		defer close(work)
		readErr = readLines(ctx, in, budget, func(j *bulkJob) {
			order <- j
			work <- j
		})
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				answer(j, o)
			}
		}()
	}

	var st bulkStats
	var writeErr error
	var pageItems []reportpkg.Item // --format html: every line's, written at the end
	drained := false               // the reader finished: order is closed and readErr is set
	next := func() (*bulkJob, bool) {
		select {
		case j, ok := <-order:
			drained = !ok
			return j, ok
		default:
		}
		// Nothing is queued: what is written so far goes out now, so that a
		// slow producer (tail -f, a pipe) sees its answers as they come.
		if writeErr == nil {
			writeErr = bw.Flush()
		}
		select {
		case j, ok := <-order:
			drained = !ok
			return j, ok
		case <-ctx.Done():
			// Interrupted (or the output failed): answer what is already
			// queued, but never wait for the reader, which may be blocked
			// reading a terminal or a pipe that has nothing more to say.
			select {
			case j, ok := <-order:
				drained = !ok
				return j, ok
			default:
				return nil, false
			}
		}
	}
	for {
		j, ok := next()
		if !ok {
			break
		}
		select {
		case <-j.done:
		default: // not ready: let what is written so far reach the reader first
			if writeErr == nil {
				writeErr = bw.Flush()
			}
			<-j.done
		}
		pageItems = append(pageItems, j.items...)
		if writeErr == nil {
			_, writeErr = bw.Write(*j.out)
			if writeErr != nil {
				cancel() // stop reading; drain what is in flight
			}
		}
		st.add(j, o.all)
		prog.update(st.requests, j.end)
		budget.release(len(*j.body))
		bufPool.Put(j.body)
		bufPool.Put(j.out)
	}
	if drained {
		wg.Wait()
	}
	if o.html && writeErr == nil {
		_, writeErr = bw.Write(runPage(o.name, pageItems))
	}
	if writeErr == nil {
		writeErr = bw.Flush()
	}
	prog.clear()
	st.summary(stderr, o.all, o.progress, time.Since(start))
	switch {
	case writeErr != nil:
		fmt.Fprintf(stderr, "citecheck: writing the answers: %v\n", writeErr)
		return exitError
	case !drained: // the reader is still at work: readErr is not ours to read
		fmt.Fprintf(stderr, "citecheck: interrupted after line %d\n", st.requests)
		return exitError
	case readErr != nil:
		fmt.Fprintf(stderr, "citecheck: reading --input after line %d: %v\n", st.requests, readErr)
		return exitError
	case ctx.Err() != nil: // the reader stopped early, as asked
		fmt.Fprintf(stderr, "citecheck: interrupted after line %d\n", st.requests)
		return exitError
	case st.errors > 0:
		return exitError
	case st.failed > 0:
		return exitFailed
	}
	return exitValid
}

// readLines reads in line by line and hands each line to emit as a job. A
// line over MaxInputBytes is read up to MaxInputBytes+1 bytes (enough to
// refuse it exactly as the one-request run does) and the rest is skipped
// to its newline, never buffered. The newline is not part of the body; a
// last line without one is still a line.
func readLines(ctx context.Context, in io.Reader, budget *byteBudget, emit func(*bulkJob)) error {
	r := bufio.NewReaderSize(in, readBufferSize)
	var consumed int64
	for n := 1; ; n++ {
		if ctx.Err() != nil {
			return nil // the writer reports the interruption
		}
		body := getBuf()
		tooLong, started := false, false
		for {
			chunk, err := r.ReadSlice('\n')
			consumed += int64(len(chunk))
			started = started || len(chunk) > 0
			nl := len(chunk) > 0 && chunk[len(chunk)-1] == '\n'
			if nl {
				chunk = chunk[:len(chunk)-1]
			}
			if !tooLong { // once too long, the rest of the line is only counted
				if room := citecheck.MaxInputBytes + 1 - len(*body); len(chunk) > room {
					chunk = chunk[:room]
				}
				*body = append(*body, chunk...)
				tooLong = len(*body) > citecheck.MaxInputBytes
			}
			if nl {
				break
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == io.EOF {
				if !started {
					bufPool.Put(body)
					return nil
				}
				break
			}
			if err != nil {
				bufPool.Put(body)
				return err
			}
		}
		budget.acquire(len(*body))
		emit(&bulkJob{line: n, body: body, tooLong: tooLong, end: consumed, done: make(chan struct{})})
	}
}

// answer checks one line and renders its answer, exactly as the
// one-request run would print it; in text mode only lines that failed or
// were refused are printed, each under its line number.
func answer(j *bulkJob, o bulkOptions) {
	defer close(j.done)
	out := getBuf()
	j.out = out
	if o.fix {
		answerFix(j, out)
		return
	}
	// A body over the limit holds MaxInputBytes+1 bytes, which Decode
	// refuses with the same error ReadBody gives the one-request run.
	a := evaluate(*j.body, o.all, o.explain)
	switch {
	case a.err != nil:
		j.kind, j.code = kindError, a.err.Code
	case a.all != nil && !a.all.Valid:
		j.kind, j.reason = kindFailed, a.all.FirstFailure().Reason
		for k := range a.all.Citations {
			j.failedBy[a.all.Citations[k].Reason]++
		}
	case a.res != nil && !a.res.Valid:
		j.kind, j.reason = kindFailed, a.res.Reason
	}
	switch {
	case o.html:
		j.items = detach(a.appendItems(nil, j.line))
	case !o.text:
		*out = append(a.appendJSON(*out), '\n')
	case j.kind != kindValid:
		*out = fmt.Appendf(*out, "── line %d ──\n", j.line)
		*out = append(a.appendText(*out, reportpkg.Options{Color: o.color}), '\n')
	}
}

// bulkStats counts the answers for the summary and the exit status.
type bulkStats struct {
	requests, valid, failed, errors int
	fixed                           int     // citations fixed (--fix)
	byReason                        [16]int // first failures, or every failing citation with --all
	byCode                          map[string]int
}

func (s *bulkStats) add(j *bulkJob, all bool) {
	s.requests++
	s.fixed += int(j.fixed)
	switch j.kind {
	case kindValid:
		s.valid++
	case kindFailed:
		s.failed++
		if all {
			for r, n := range j.failedBy {
				if r != int(citecheck.ReasonNone) {
					s.byReason[r] += int(n)
				}
			}
		} else {
			s.byReason[j.reason]++
		}
	case kindError:
		s.errors++
		if s.byCode == nil {
			s.byCode = map[string]int{}
		}
		s.byCode[j.code]++
	}
}

// summary writes the closing counts to stderr. It is printed whether or not
// stderr is a terminal: CI logs are read by people too, and stdout stays
// pure JSON lines. Only on a terminal does it add the time taken, so that
// the same input always gives the same summary elsewhere.
func (s *bulkStats) summary(w io.Writer, all, tty bool, took time.Duration) {
	var b strings.Builder
	fmt.Fprintf(&b, "citecheck: %d requests: %d valid, %d failed, %d errors", s.requests, s.valid, s.failed, s.errors)
	if tty {
		fmt.Fprintf(&b, " in %s (%s/s)", took.Round(time.Millisecond), count(rate(s.requests, took)))
	}
	b.WriteByte('\n')
	if s.fixed > 0 {
		fmt.Fprintf(&b, "  citations fixed: %d\n", s.fixed)
	}
	if s.failed > 0 {
		if all {
			b.WriteString("  failing citations by reason:")
		} else {
			b.WriteString("  failed by reason:")
		}
		sep := " "
		for _, r := range citecheck.Reasons() {
			if n := s.byReason[r]; n > 0 {
				fmt.Fprintf(&b, "%s%s %d", sep, r, n)
				sep = ", "
			}
		}
		b.WriteByte('\n')
	}
	if s.errors > 0 {
		b.WriteString("  errors by code:")
		sep := " "
		for _, code := range []string{citecheck.CodeInvalidInput, citecheck.CodeLimitExceeded} {
			if n := s.byCode[code]; n > 0 {
				fmt.Fprintf(&b, "%s%s %d", sep, code, n)
				sep = ", "
			}
		}
		b.WriteByte('\n')
	}
	io.WriteString(w, b.String())
}

// byteBudget bounds the line bytes in flight: the reader acquires a line's
// size before handing it on, the writer releases it once written. A single
// line larger than the budget is let through alone.
type byteBudget struct {
	mu       sync.Mutex
	cond     *sync.Cond
	max, cur int
}

func newByteBudget(max int) *byteBudget {
	b := &byteBudget{max: max}
	b.cond = sync.NewCond(&b.mu)
	return b
}

func (b *byteBudget) acquire(n int) {
	b.mu.Lock()
	for b.cur > 0 && b.cur+n > b.max {
		b.cond.Wait()
	}
	b.cur += n
	b.mu.Unlock()
}

func (b *byteBudget) release(n int) {
	b.mu.Lock()
	b.cur -= n
	b.mu.Unlock()
	b.cond.Signal()
}

// detach copies the strings of items that may share a request's memory
// (a passage is a slice of its source), so that the page gathered over
// many lines holds its excerpts, not every line's sources.
func detach(items []reportpkg.Item) []reportpkg.Item {
	for i := range items {
		it := &items[i]
		it.Text, it.Source, it.Head = strings.Clone(it.Text), strings.Clone(it.Source), strings.Clone(it.Head)
		for k := range it.Passages {
			p := &it.Passages[k]
			p.Before, p.Text, p.Rest, p.After = strings.Clone(p.Before), strings.Clone(p.Text), strings.Clone(p.Rest), strings.Clone(p.After)
		}
	}
	return items
}
