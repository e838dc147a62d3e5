package server

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/citecheck/citecheck"
)

// TestReadyzTurns503WhenShutdownBegins: once shutdown begins, /readyz
// answers 503 (so a load balancer stops sending) while /healthz stays 200
// (so nothing restarts the replica), the request in flight completes, and
// requests that still arrive in the drain delay are served. Each step waits
// on an event of the server, not on a clock.
func TestReadyzTurns503WhenShutdownBegins(t *testing.T) {
	ts := start(t, Config{DrainDelay: time.Hour, ShutdownTimeout: 10 * time.Second})
	began := make(chan struct{})
	ts.ready.began = func() { close(began) }
	ts.ready.cut = make(chan struct{})

	resp, body := do(t, http.MethodGet, ts.URL+pathReady, "", nil)
	if resp.StatusCode != 200 || string(body) != `{"status":"ready"}` {
		t.Fatalf("before shutdown: %d %s", resp.StatusCode, body)
	}

	entered, release := holdSlots(ts.Server)
	example := exampleInput(t)
	inFlight := postAsync(ts.URL+executePath, example)
	<-entered // the request holds a slot: it is in flight

	stopped := make(chan error, 1)
	go func() { stopped <- ts.stop() }()
	<-began

	resp, body = do(t, http.MethodGet, ts.URL+pathReady, "", nil)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("/readyz while draining: %d %s, want 503", resp.StatusCode, body)
	}
	if e := errorOf(t, body); e.Code != citecheck.CodeOverloaded {
		t.Errorf("/readyz while draining: code %s, want overloaded", e.Code)
	}
	if resp, body := do(t, http.MethodGet, ts.URL+pathHealth, "", nil); resp.StatusCode != 200 {
		t.Errorf("/healthz while draining: %d %s, want 200", resp.StatusCode, body)
	}
	select {
	case a := <-inFlight:
		t.Fatalf("the in-flight request answered (%d) before its slot was released", a.status)
	default:
	}

	release()
	want, _, _ := inProcess(example)
	if a := <-inFlight; a.status != 200 || !bytes.Equal(a.body, want) {
		t.Fatalf("in-flight request: %d %s", a.status, a.body)
	}
	// A request the load balancer still sends in the delay is served.
	if resp, body := post(t, ts.URL+executePath, example); resp.StatusCode != 200 || !bytes.Equal(body, want) {
		t.Errorf("request in the drain delay: %d %s", resp.StatusCode, body)
	}
	select {
	case err := <-stopped:
		t.Fatalf("Serve returned (%v) before the drain delay ended", err)
	default:
	}
	close(ts.ready.cut)
	if err := <-stopped; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// TestReadyzWithoutDrainDelayStopsAtOnce: with the default delay (0),
// shutdown goes straight to the drain: Serve returns as soon as nothing is
// in flight, and readiness reads draining.
func TestReadyzWithoutDrainDelayStopsAtOnce(t *testing.T) {
	ts := start(t, Config{})
	if err := ts.stop(); err != nil {
		t.Fatal(err)
	}
	if !ts.ready.draining.Load() {
		t.Error("not draining after shutdown")
	}
	rec := httptest.NewRecorder()
	ts.serveReady(rec, httptest.NewRequest(http.MethodGet, pathReady, nil))
	if rec.Code != http.StatusServiceUnavailable {
		t.Errorf("/readyz after shutdown: %d", rec.Code)
	}
}
