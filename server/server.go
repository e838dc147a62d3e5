// Package server is the HTTP face of citecheck: the routes of the tool page
// (spec §4) over the same engine the CLI runs in-process, plus MCP over
// streamable HTTP and, through [NewMCPServer], over stdio.
//
// A [Server] is an http.Handler with no global state: its metrics live on
// its own Prometheus registry and its limits in its own fields, so tests can
// run several side by side.
package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/citecheck/citecheck"
)

// Config is how a Server is set up. The zero value is a usable local
// service; each zero field takes the default its comment names.
type Config struct {
	// Addr is where ListenAndServe listens. Default "127.0.0.1:8080":
	// loopback, so a first run exposes nothing.
	Addr string

	// PublicURL is the base URL that the catalogue and the tool page point
	// at, e.g. "https://cite.example.org" behind a proxy; its host is also
	// let through /mcp's DNS-rebinding check. Empty: derived from each
	// request's Host, so links name the address the caller reached.
	PublicURL string

	// MaxInFlight bounds the checks that run at once (execute, explain,
	// POST /v1/quotes/report and POST /mcp): a request takes a slot once
	// its body is read and gives it back before its answer is written, so
	// only the CPU ever holds one. Each
	// check holds its body plus the engine's indexes (about 5 MiB for a
	// maximum-size one). Default 2×GOMAXPROCS: checks are CPU-bound, more
	// at once would only queue on the CPUs while holding memory. Requests
	// dearer than CheapCost hold at most MaxInFlight − max(1,
	// MaxInFlight/4) of them (slots.go).
	MaxInFlight int

	// BodyMemory is the budget, in bytes, of request bodies being read and
	// answers being written (the POST routes) at once. A body reserves
	// its Content-Length (a chunked one, the largest body its route takes)
	// before a byte of it is read, waiting up to QueueWait; its answer
	// then takes the reservation's place until it is written. So slow or
	// non-reading clients cost this budget, never a check slot. Default
	// 4 × MaxInFlight maximum-size bodies (16 MiB for 4 slots): the bodies
	// in the slots, and three times as many slow or unread ones beside.
	BodyMemory int64

	// MinBodyRate, in bytes a second, is how fast a body must arrive once
	// BodyRateGrace is over: a body that falls behind is cut (400). Default
	// 32 KiB/s, at which a maximum-size body takes about ReadTimeout, and
	// a 2 s grace.
	MinBodyRate   int64
	BodyRateGrace time.Duration

	// MaxConns bounds the open connections. At the bound a new connection
	// makes room by closing the longest-idle keep-alive connection, else
	// the oldest one still sending its request head; when every one is in
	// a request, the new one is closed at once. Default 1024.
	MaxConns int

	// QueueWait is how long a request waits for a check slot, or for body
	// memory, before it is refused with 503 overloaded and Retry-After. Default 1 s: long
	// enough to ride out a burst, short enough that a client is not left
	// hanging when the service is saturated.
	QueueWait time.Duration

	// Timeouts against slow or idle clients (defaults: header 5 s, whole
	// request 30 s, answer 10 s, idle keep-alive 120 s). ReadTimeout
	// covers the body, on top of MinBodyRate; WriteTimeout starts again
	// when an execute or /mcp answer is ready, after its check.
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration

	// ShutdownTimeout is how long ListenAndServe lets in-flight requests
	// finish after its context is cancelled before it closes their
	// connections. Default 15 s.
	ShutdownTimeout time.Duration

	// AllowedOrigins are the web origins ("https://app.example.org", or
	// "*" for any) whose pages may call the service from a browser. The
	// CORS answers (cors.go) read it, and so must any Origin check (as
	// /mcp's), through [Server.OriginAllowed]: a page is let in everywhere
	// or nowhere. Empty (the default): no cross-origin access. See
	// [CheckOrigin] for the form.
	AllowedOrigins []string

	// DrainDelay is how long, once shutdown begins, the service keeps
	// serving with GET /readyz answering 503, before it stops accepting:
	// the time a load balancer needs to see it unready and stop sending
	// (its probe interval times its failure threshold). Default 0: stop
	// at once, as a process run by hand should.
	DrainDelay time.Duration

	// Logger receives one JSON access-log line per request and the
	// service's own events. Default: discard (the CLI passes a JSON
	// handler on standard error).
	Logger *slog.Logger
}

// Server is the citecheck HTTP service. Create it with [New]; it is an
// http.Handler, and [Server.ListenAndServe] runs it on Config.Addr.
type Server struct {
	cfg      Config
	log      *slog.Logger
	handler  http.Handler
	metrics  *metrics
	slots    *slotQueue                  // the in-flight bound, cheap requests first (slots.go)
	bodies   *budget                     // Config.BodyMemory
	bodyBufs bodyBuffers                 // the buffers execute and explain bodies are read into
	sameSite *http.CrossOriginProtection // /mcp: this server's own origin and PublicURL's
	tool     *toolInfo
	// The tool page's template and the OpenAPI document are made from the
	// contract when first asked for, not in New: a server that is never
	// asked for them (a probe, a replica behind an API gateway) does not
	// pay for them, and serve listens that much sooner.
	page    func() *pageRenderer
	origins origins            // Config.AllowedOrigins, parsed
	ready   readiness          // GET /readyz: flips to draining when shutdown begins
	openapi func() *openAPIDoc // GET /openapi.json, generated once from the contract

	// testHookHoldingSlot, when set (by tests in this package), runs while
	// an execute request holds a check slot, after its body is read: it
	// lets a test fill the slots with requests it controls.
	testHookHoldingSlot func(r *http.Request)
	// testHookMCPCall, when set, runs with an /mcp tool call's context
	// before the engine runs: a test holds the call there.
	testHookMCPCall func(ctx context.Context)
	// testHookQueued, when set, runs when a request finds every slot taken
	// and starts to wait: a test waits for it instead of sleeping.
	testHookQueued func(r *http.Request)
	// idPrefix and requests make request ids (nextRequestID).
	idPrefix string
	requests atomic.Uint64
	// conns is the connection limiter of the latest Serve, for tests that
	// wait until it has seen a connection's state change.
	conns atomic.Pointer[connLimiter]
}

// New returns a Server for cfg, with defaults filled in. It panics only if
// the embedded contract does not parse, which a test rules out.
func New(cfg Config) *Server {
	cfg = cfg.withDefaults()
	tool := embeddedTool()
	s := &Server{
		cfg:     cfg,
		log:     cfg.Logger,
		metrics: newMetrics(),
		slots:   newSlotQueue(cfg.MaxInFlight),
		bodies:  newBudget(cfg.BodyMemory),
		tool:    tool,
	}
	s.idPrefix = newIDPrefix()
	s.origins = newOrigins(cfg.AllowedOrigins)
	s.sameSite = s.originCheck()
	s.registerHardening()
	s.page = sync.OnceValue(func() *pageRenderer { return newPageRenderer(tool) })
	s.openapi = sync.OnceValue(func() *openAPIDoc { return newOpenAPIDoc(tool) })
	s.handler = s.observe(s.cors(s.routes()))
	return s
}

// DefaultConfig is the configuration New runs with for a zero Config:
// what `citecheck serve --help` shows as each flag's default.
func DefaultConfig() Config { return Config{}.withDefaults() }

func (cfg Config) withDefaults() Config {
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:8080"
	}
	if cfg.MaxInFlight <= 0 {
		cfg.MaxInFlight = 2 * runtime.GOMAXPROCS(0)
	}
	if cfg.QueueWait <= 0 {
		cfg.QueueWait = time.Second
	}
	setDefault(&cfg.ReadHeaderTimeout, 5*time.Second)
	setDefault(&cfg.ReadTimeout, 30*time.Second)
	setDefault(&cfg.WriteTimeout, 10*time.Second)
	setDefault(&cfg.IdleTimeout, 120*time.Second)
	setDefault(&cfg.ShutdownTimeout, 15*time.Second)
	setDefault(&cfg.BodyRateGrace, 2*time.Second)
	if cfg.BodyMemory <= 0 {
		cfg.BodyMemory = 4 * int64(cfg.MaxInFlight) * citecheck.MaxInputBytes
	}
	if cfg.MinBodyRate <= 0 {
		cfg.MinBodyRate = 32 << 10
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = 1024
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return cfg
}

func setDefault(d *time.Duration, v time.Duration) {
	if *d <= 0 {
		*d = v
	}
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Paths, as the tool page publishes them.
const (
	pathCatalogue = "/v1/tools"
	pathContract  = "/v1/tools/{id}/versions/{version}"
	pathExecute   = "/v1/tools/{id}/versions/{version}/execute"
	pathExplain   = "/v1/tools/{id}/versions/{version}/explain" // beyond the contract (spec §5)
	pathPage      = "/tools/{id}"
	pathMCP       = "/mcp"
	pathHealth    = "/healthz"
	pathMetrics   = "/metrics"
)

// routes builds the router. Each path is registered with its methods
// ("POST /…") and once more without a method, as the fallback that answers
// 405 with Allow and an error object: ServeMux's own 404 and 405 answers
// are plain text, and every error here must be {"error": …}.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	route := func(path string, byMethod map[string]http.HandlerFunc, toolScoped bool) {
		var allow []string
		for method, h := range byMethod {
			mux.HandleFunc(method+" "+path, h)
			allow = append(allow, method)
			if method == http.MethodGet {
				allow = append(allow, http.MethodHead)
			}
		}
		sortMethods(allow)
		mux.HandleFunc(path, s.methodNotAllowed(strings.Join(allow, ", "), toolScoped))
	}
	route(pathCatalogue, map[string]http.HandlerFunc{http.MethodGet: s.serveCatalogue}, false)
	route(pathContract, map[string]http.HandlerFunc{http.MethodGet: s.serveContract}, true)
	route(pathExecute, map[string]http.HandlerFunc{http.MethodPost: s.serveExecute}, true)
	route(pathExplain, map[string]http.HandlerFunc{http.MethodPost: s.serveExplain}, true)
	route(pathQuotesReport, map[string]http.HandlerFunc{http.MethodPost: s.serveQuotesReport}, false)
	route(pathPage, map[string]http.HandlerFunc{http.MethodGet: s.servePage}, false)
	route(pathHealth, map[string]http.HandlerFunc{http.MethodGet: serveHealth}, false)
	route(pathMetrics, map[string]http.HandlerFunc{http.MethodGet: s.metrics.handler().ServeHTTP}, false)
	route(pathMCP, map[string]http.HandlerFunc{http.MethodPost: s.mcpHandler().ServeHTTP}, false)
	route(pathReady, map[string]http.HandlerFunc{http.MethodGet: s.serveReady}, false)
	route(pathOpenAPI, map[string]http.HandlerFunc{http.MethodGet: s.serveOpenAPI}, false)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			// The root has nothing of its own: send people to the tool.
			http.Redirect(w, r, "/tools/"+citecheck.ToolID, http.StatusFound)
			return
		}
		writeError(w, r, notFound("no route "+citecheck.Echo(r.Method+" "+r.URL.Path).String()+"; see GET "+pathCatalogue))
	})
	return mux
}

func sortMethods(m []string) {
	order := map[string]int{http.MethodGet: 0, http.MethodHead: 1, http.MethodPost: 2}
	for i := 1; i < len(m); i++ {
		for j := i; j > 0 && order[m[j]] < order[m[j-1]]; j-- {
			m[j], m[j-1] = m[j-1], m[j]
		}
	}
}

// methodNotAllowed answers a known path with a wrong method. For paths under
// a tool, an unknown tool or version is 404 first: the resource does not
// exist, whatever the method.
func (s *Server) methodNotAllowed(allow string, toolScoped bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if toolScoped {
			if e := citecheck.LookupTool(r.PathValue("id"), r.PathValue("version")); e != nil {
				writeError(w, r, citecheck.AsError(e))
				return
			}
		}
		w.Header().Set("Allow", allow)
		writeError(w, r, &citecheck.Error{Code: citecheck.CodeMethodNotAllowed,
			Message: citecheck.Echo(r.Method).String() + " is not allowed on " + citecheck.Echo(r.URL.Path).String() + "; allowed: " + allow})
	}
}

func serveHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, []byte(`{"status":"ok"}`))
}

// acquire waits up to QueueWait for a check slot for a request of cost
// scan units (slots.go). It returns a release function, or nil when the
// service is saturated (or the client left).
func (s *Server) acquire(r *http.Request, cost int64) func() {
	var queued func()
	if s.testHookQueued != nil {
		queued = func() { s.testHookQueued(r) }
	}
	if !s.slots.acquire(cost, s.cfg.QueueWait, r.Context().Done(), queued) {
		return nil
	}
	s.metrics.inFlight.Inc()
	// Once: a handler releases the slot before it writes its answer, and
	// defers the release too, for a panic in the check. The handler's
	// goroutine makes both calls, so a plain flag is enough.
	released := false
	return func() {
		if !released {
			released = true
			s.metrics.inFlight.Dec()
			s.slots.release(cost)
		}
	}
}

// overloaded answers 503 with Retry-After, so well-behaved clients back
// off; what names what ran out.
func (s *Server) overloaded(w http.ResponseWriter, r *http.Request, what string) {
	w.Header().Set("Retry-After", retryAfter(s.cfg.QueueWait))
	writeError(w, r, &citecheck.Error{Code: citecheck.CodeOverloaded,
		Message: what + "; retry after " + retryAfter(s.cfg.QueueWait) + " s"})
}

// httpServer is the http.Server that ListenAndServe and Serve run, with the
// timeouts that keep slow clients from holding connections forever.
func (s *Server) httpServer() *http.Server {
	return &http.Server{
		Addr:              s.cfg.Addr,
		Handler:           s,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		ReadTimeout:       s.cfg.ReadTimeout,
		WriteTimeout:      s.cfg.WriteTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		ConnState:         trackState,
	}
}

// ListenAndServe listens on Config.Addr and serves until ctx is cancelled,
// then shuts down gracefully (see [Server.Serve]).
func (s *Server) ListenAndServe(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return err
	}
	return s.Serve(ctx, ln)
}

// Serve serves on ln until ctx is cancelled. Then it stops accepting,
// lets in-flight requests finish for up to Config.ShutdownTimeout, and
// closes what is left. It returns nil after a clean shutdown.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := s.httpServer()
	ln = s.limitConns(ln)
	s.log.Info("listening", "addr", ln.Addr().String(), "url", "http://"+ln.Addr().String(),
		"max_in_flight", s.cfg.MaxInFlight, "max_conns", s.cfg.MaxConns, "body_memory", s.cfg.BodyMemory)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	s.drain()
	s.log.Info("shutting down", "grace", s.cfg.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		s.log.Warn("shutdown grace expired; closing open connections")
		srv.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}
