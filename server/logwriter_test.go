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
	close(g.open)
	waitFor(t, "the drop report", func() bool { return strings.Contains(g.String(), `"dropped":`) })
	waitFor(t, "the queued lines", func() bool { return strings.Count(g.String(), "x\n") >= (10<<10)/100-1 })
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
