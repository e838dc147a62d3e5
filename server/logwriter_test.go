package server

import (
	"log/slog"
	"strings"
	"testing"
	"time"
)

// gatedWriter blocks every Write until open is closed, as a standard error
// nobody reads does.
type gatedWriter struct {
	open chan struct{}
	syncBuffer
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	<-g.open
	return g.syncBuffer.Write(p)
}

// TestLogWriterDropsRatherThanBlocks: with the underlying writer blocked,
// writes return at once; what does not fit the queue is dropped and
// counted, and said once the writer takes lines again.
func TestLogWriterDropsRatherThanBlocks(t *testing.T) {
	g := &gatedWriter{open: make(chan struct{})}
	l := NewLogWriter(g, 10<<10)
	line := []byte(strings.Repeat("x", 99) + "\n")
	done := make(chan struct{})
	go func() {
		for range 1000 {
			l.Write(line)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Write blocked on a blocked writer")
	}
	if d := l.Dropped(); d < 1000-(10<<10)/100-1 {
		t.Fatalf("%d lines dropped, want all but the ~100 that fit", d)
	}
	if l.Flush(50 * time.Millisecond) {
		t.Error("Flush reports the lines written while the writer is blocked")
	}
	close(g.open)
	if !l.Flush(10 * time.Second) {
		t.Fatal("Flush timed out with the writer open")
	}
	if n := strings.Count(g.String(), "x\n"); n < (10<<10)/100-1 {
		t.Errorf("%d lines written after Flush, want the ~100 queued", n)
	}
	waitFor(t, "the drop report", func() bool {
		l.Write(line) // the report goes out with the next lines
		return strings.Contains(g.String(), `"dropped":`)
	})
}

// TestBlockedLogDoesNotStallRequests: a server whose access log goes to a
// blocked writer through a LogWriter answers requests and shuts down.
func TestBlockedLogDoesNotStallRequests(t *testing.T) {
	g := &gatedWriter{open: make(chan struct{})}
	defer close(g.open)
	ts := start(t, Config{Logger: slog.New(slog.NewJSONHandler(NewLogWriter(g, 4096), nil))})
	for range 200 {
		if resp, body := do(t, "GET", ts.URL+"/healthz", "", nil); resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
	}
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
}
