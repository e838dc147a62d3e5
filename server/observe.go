package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/citecheck/citecheck"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Outcomes that are not error codes. Error outcomes are the error code
// itself (invalid_input, overloaded, …), so the label set stays small and
// a dashboard can split refusals by kind.
const (
	outcomeValid  = "valid"  // execute: every citation held
	outcomeFailed = "failed" // execute: a citation failed (still a 200 answer)
	outcomeOK     = "ok"     // any other route that answered 2xx/3xx
	outcomeError  = "error"  // non-2xx from code that did not name a code (the MCP SDK)
)

// record is what one request leaves for the access log and the metrics.
// Handlers find it in the request's context to say how the call went.
type record struct {
	outcome string
	id      string // the request id: in the access log, and in the log of a panic
}

type recordKey struct{}

// setOutcome notes how the request went; a no-op outside the middleware
// (as in handler unit tests).
func setOutcome(r *http.Request, outcome string) {
	if rec, ok := r.Context().Value(recordKey{}).(*record); ok {
		rec.outcome = outcome
	}
}

// metrics are one server's Prometheus collectors, on its own registry so
// that two servers in one process (tests) never share or collide.
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	inFlight prometheus.Gauge
	mcpCalls *prometheus.CounterVec

	connsOpen prometheus.Gauge
	connsShed *prometheus.CounterVec
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "citecheck_http_requests_total",
			Help: "HTTP requests answered, by route pattern and outcome (valid, failed, ok, or an error code).",
		}, []string{"route", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "citecheck_http_request_duration_seconds",
			Help: "Time from the request's headers to the end of its answer, by route pattern and outcome.",
			// 250 µs to ~8 s: a small batch answers in well under a
			// millisecond, a maximum-size one in tens of milliseconds.
			Buckets: prometheus.ExponentialBuckets(0.00025, 2, 16),
		}, []string{"route", "outcome"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "citecheck_checks_in_flight",
			Help: "Requests holding a check slot (reading a body or checking it) right now.",
		}),
		mcpCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "citecheck_mcp_tool_calls_total",
			Help: "MCP execute calls over /mcp, by outcome (valid, failed, or an error code).",
		}, []string{"outcome"}),
		connsOpen: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "citecheck_connections_open",
			Help: "Open client connections (bounded by --max-conns).",
		}),
		connsShed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "citecheck_connections_shed_total",
			Help: "Connections closed to stay within --max-conns, by what was closed: an idle keep-alive one, a new one still sending its head, or the arrival itself (refused: every connection was in a request).",
		}, []string{"closed"}),
	}
	m.registry.MustRegister(m.requests, m.duration, m.inFlight, m.mcpCalls, m.connsOpen, m.connsShed,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}

// recorder captures the status and the size of an answer. It unwraps to the
// real writer so http.ResponseController (Flush, deadlines: the MCP SDK's
// streaming needs them) reaches through it.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *recorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush lets streaming handlers that test for http.Flusher directly work.
func (w *recorder) Flush() {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	http.NewResponseController(w.ResponseWriter).Flush()
}

// observe wraps the router: one JSON access log line and one sample per
// request, labelled by the route pattern that matched (never the raw path,
// whose values are unbounded).
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &record{id: s.nextRequestID()}
		r = r.WithContext(context.WithValue(r.Context(), recordKey{}, rec))
		rw := &recorder{ResponseWriter: w}
		defer func() {
			// A bug must not answer with a dropped connection: the caller
			// gets an internal error object, the log gets the panic.
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.Error("panic serving a request", "request_id", rec.id, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				rec.outcome = citecheck.CodeInternal
				if rw.status == 0 {
					writeJSON(rw, http.StatusInternalServerError, errorEnvelope(internalError(rec.id)))
				}
			}
			if rw.status == 0 {
				rw.status = http.StatusOK
			}
			outcome := rec.outcome
			if outcome == "" {
				outcome = outcomeOK
				if rw.status >= 400 {
					outcome = outcomeError
				}
			}
			route := r.Pattern // set by the ServeMux on this very request
			if route == "" {
				route = "unmatched"
			}
			d := time.Since(start)
			s.metrics.requests.WithLabelValues(route, outcome).Inc()
			s.metrics.duration.WithLabelValues(route, outcome).Observe(d.Seconds())
			s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("method", r.Method),
				slog.String("route", route),
				slog.String("path", r.URL.Path),
				slog.Int("status", rw.status),
				slog.Int64("bytes", rw.bytes),
				slog.Int64("request_bytes", r.ContentLength),
				slog.Float64("duration_ms", float64(d.Microseconds())/1000),
				slog.String("outcome", outcome),
				slog.String("remote", r.RemoteAddr),
				slog.String("request_id", rec.id),
			)
		}()
		next.ServeHTTP(rw, r)
	})
}

// retryAfter is the Retry-After value for an overloaded answer, in whole
// seconds as RFC 9110 wants, at least 1.
func retryAfter(d time.Duration) string {
	secs := int((d + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	return strconv.Itoa(secs)
}

// nextRequestID is a new request id: the server's random prefix, so that
// ids of two runs or two replicas do not collide in one log, and a count.
func (s *Server) nextRequestID() string {
	return s.idPrefix + "-" + strconv.FormatUint(s.requests.Add(1), 10)
}

// newIDPrefix is a server's request id prefix: 8 random hex digits.
func newIDPrefix() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
