package server

import (
	"net/http"
	"sync/atomic"
	"time"

	"github.com/citecheck/citecheck"
)

// pathReady is readiness, beside pathHealth's liveness: a load balancer
// sends work only to a replica whose /readyz answers 200, an orchestrator
// restarts only one whose /healthz fails. They part during shutdown, when
// the replica is alive (finishing what it holds) but must get no more.
const pathReady = "/readyz"

// readiness is whether the server takes new work. It starts ready and turns
// draining, once, when shutdown begins.
type readiness struct {
	draining atomic.Bool

	// Test hooks (nil outside tests of this package): began runs as
	// draining begins; a receive from cut ends the drain delay early.
	began func()
	cut   chan struct{}
}

// serveReady is GET /readyz: 200 while the server takes work, 503 with the
// error object once shutdown has begun (overloaded: this replica takes no
// more, the caller should go elsewhere).
func (s *Server) serveReady(w http.ResponseWriter, r *http.Request) {
	if s.ready.draining.Load() {
		writeError(w, r, &citecheck.Error{Code: citecheck.CodeOverloaded,
			Message: "shutting down: this replica takes no new work; send it to another"})
		return
	}
	writeJSON(w, http.StatusOK, []byte(`{"status":"ready"}`))
}

// drain marks the server unready and keeps it serving for
// Config.DrainDelay, so that a load balancer polling /readyz sees it leave
// before Serve stops accepting connections. Requests that arrive in the
// delay are served as usual.
func (s *Server) drain() {
	s.ready.draining.Store(true)
	if s.ready.began != nil {
		s.ready.began()
	}
	if s.cfg.DrainDelay <= 0 {
		return
	}
	s.log.Info("draining: /readyz answers 503", "delay", s.cfg.DrainDelay.String())
	t := time.NewTimer(s.cfg.DrainDelay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.ready.cut:
	}
}
