package server

import (
	"io"
	"strconv"
	"sync"
	"time"
)

// LogWriter is an io.Writer for the access log that never blocks its
// caller: each Write (one log line, as slog handlers write them) is queued
// and written to the underlying writer by a goroutine of its own. When the
// queue holds maxBytes, lines are dropped and counted, and a line saying how
// many is written once the writer takes lines again. So a standard error
// that nobody reads (a full pipe, a stopped terminal) can cost log lines,
// never a request's latency or a shutdown.
type LogWriter struct {
	w   io.Writer
	max int

	mu      sync.Mutex
	queue   [][]byte
	queued  int
	dropped uint64 // since the last report
	total   uint64
	wake    chan struct{}
	drained chan struct{} // closed and replaced each time the queue is written out
}

// NewLogWriter returns a LogWriter over w queueing at most maxBytes (a
// default of 1 MiB when maxBytes ≤ 0). Its goroutine lives as long as the
// process.
func NewLogWriter(w io.Writer, maxBytes int) *LogWriter {
	if maxBytes <= 0 {
		maxBytes = 1 << 20
	}
	l := &LogWriter{w: w, max: maxBytes, wake: make(chan struct{}, 1), drained: make(chan struct{})}
	go l.run()
	return l
}

// Write queues a copy of p, or drops it when the queue is full. It never
// fails.
func (l *LogWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	if l.queued+len(p) > l.max {
		l.dropped++
		l.total++
		l.mu.Unlock()
		return len(p), nil
	}
	l.queue = append(l.queue, append([]byte(nil), p...))
	l.queued += len(p)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
	return len(p), nil
}

// Flush waits up to timeout for the lines queued so far to be written, so
// that a process's last lines (its shutdown) are not lost at exit, while a
// blocked writer still cannot hold the exit for longer. It reports whether
// they were.
func (l *LogWriter) Flush(timeout time.Duration) bool {
	l.mu.Lock()
	empty, drained := len(l.queue) == 0 && l.queued == 0, l.drained
	l.mu.Unlock()
	if empty {
		return true
	}
	select {
	case <-drained:
		return true
	case <-time.After(timeout):
		return false
	}
}

// Dropped is how many lines were dropped so far.
func (l *LogWriter) Dropped() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.total
}

func (l *LogWriter) run() {
	for range l.wake {
		for {
			l.mu.Lock()
			lines, dropped := l.queue, l.dropped
			l.queue, l.dropped = nil, 0
			l.mu.Unlock()
			if len(lines) == 0 && dropped == 0 {
				l.mu.Lock()
				if len(l.queue) == 0 {
					close(l.drained)
					l.drained = make(chan struct{})
				}
				l.mu.Unlock()
				break
			}
			if dropped > 0 {
				io.WriteString(l.w, `{"level":"WARN","msg":"log lines dropped: standard error was not taken","dropped":`+
					strconv.FormatUint(dropped, 10)+"}\n")
			}
			for _, line := range lines {
				l.w.Write(line)
				l.mu.Lock()
				l.queued -= len(line)
				l.mu.Unlock()
			}
		}
	}
}
