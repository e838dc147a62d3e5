// Package server is the HTTP face of citecheck: the routes of the tool page
// (SPEC §4) over the same engine the CLI runs in-process, plus MCP over
// streamable HTTP and, through [NewMCPServer], over stdio.
//
// A [Server] is an http.Handler with no global state: its metrics live on
// its own Prometheus registry and its limits in its own fields, so tests can
// run several side by side.
package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/citecheck/citecheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
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

	// MaxInFlight bounds the requests that hold a body or run a check at
	// once (execute and POST /mcp). Each holds at most about 2 MiB (the
	// body, plus the engine's indexes), so the bound is what keeps memory
	// flat under a burst of maximum-size bodies. Default 2×GOMAXPROCS:
	// checks are CPU-bound, more at once would only queue on the CPUs
	// while holding memory.
	MaxInFlight int

	// QueueWait is how long a request waits for a slot before it is
	// refused with 503 overloaded and Retry-After. Default 1 s: long
	// enough to ride out a burst, short enough that a client is not left
	// hanging when the service is saturated.
	QueueWait time.Duration

	// Timeouts against slow or idle clients (defaults: header 5 s, whole
	// request 30 s, answer 60 s, idle keep-alive 120 s). ReadTimeout covers
	// the body: a client that trickles its body holds its check slot (the
	// body is read inside one, so that memory stays bounded) for at most
	// that long.
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration

	// ShutdownTimeout is how long ListenAndServe lets in-flight requests
	// finish after its context is cancelled before it closes their
	// connections. Default 15 s.
	ShutdownTimeout time.Duration

	// Logger receives one JSON access-log line per request and the
	// service's own events. Default: discard (the CLI passes a JSON
	// handler on standard error).
	Logger *slog.Logger
}

// Server is the citecheck HTTP service. Create it with [New]; it is an
// http.Handler, and [Server.ListenAndServe] runs it on Config.Addr.
type Server struct {
	cfg     Config
	log     *slog.Logger
	handler http.Handler
	metrics *metrics
	slots   chan struct{} // the in-flight bound: a buffered channel as a semaphore
	tool    *toolInfo
	page    *pageRenderer

	// testHookHoldingSlot, when set (by tests in this package), runs while
	// a request holds a check slot, before its body is read: it lets a test
	// fill the slots with requests it controls.
	testHookHoldingSlot func(r *http.Request)
}

// New returns a Server for cfg, with defaults filled in. It panics only if
// the embedded contract does not parse, which a test rules out.
func New(cfg Config) *Server {
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
	setDefault(&cfg.WriteTimeout, 60*time.Second)
	setDefault(&cfg.IdleTimeout, 120*time.Second)
	setDefault(&cfg.ShutdownTimeout, 15*time.Second)
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	tool := embeddedTool()
	s := &Server{
		cfg:     cfg,
		log:     cfg.Logger,
		metrics: newMetrics(),
		slots:   make(chan struct{}, cfg.MaxInFlight),
		tool:    tool,
	}
	s.page = newPageRenderer(tool)
	s.handler = s.observe(s.routes())
	return s
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
	route(pathPage, map[string]http.HandlerFunc{http.MethodGet: s.servePage}, false)
	route(pathHealth, map[string]http.HandlerFunc{http.MethodGet: serveHealth}, false)
	route(pathMetrics, map[string]http.HandlerFunc{http.MethodGet: s.metrics.handler().ServeHTTP}, false)
	route(pathMCP, map[string]http.HandlerFunc{http.MethodPost: s.mcpHandler().ServeHTTP}, false)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			// The root has nothing of its own: send people to the tool.
			http.Redirect(w, r, "/tools/"+citecheck.ToolID, http.StatusFound)
			return
		}
		writeError(w, r, notFound("no route "+r.Method+" "+r.URL.Path+"; see GET "+pathCatalogue))
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
				writeError(w, r, e)
				return
			}
		}
		w.Header().Set("Allow", allow)
		writeError(w, r, &citecheck.Error{Code: citecheck.CodeMethodNotAllowed,
			Message: r.Method + " is not allowed on " + r.URL.Path + "; allowed: " + allow})
	}
}

func serveHealth(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, []byte(`{"status":"ok"}`))
}

// acquire waits up to QueueWait for a check slot. It returns a release
// function, or nil when the service is saturated (or the client left).
func (s *Server) acquire(r *http.Request) func() {
	select {
	case s.slots <- struct{}{}:
	default:
		t := time.NewTimer(s.cfg.QueueWait)
		defer t.Stop()
		select {
		case s.slots <- struct{}{}:
		case <-t.C:
			return nil
		case <-r.Context().Done():
			return nil
		}
	}
	s.metrics.inFlight.Inc()
	return func() {
		s.metrics.inFlight.Dec()
		<-s.slots
	}
}

// overloaded answers 503 with Retry-After, so well-behaved clients back off.
func (s *Server) overloaded(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Retry-After", retryAfter(s.cfg.QueueWait))
	writeError(w, r, &citecheck.Error{Code: citecheck.CodeOverloaded,
		Message: "too many requests in flight; retry after " + retryAfter(s.cfg.QueueWait) + " s"})
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
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
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
	s.log.Info("listening", "addr", ln.Addr().String(), "url", "http://"+ln.Addr().String(),
		"max_in_flight", s.cfg.MaxInFlight)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
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

// mcpHandler is /mcp: the official SDK's streamable HTTP handler in
// stateless JSON mode (the tool is pure, so there is no session to keep and
// nothing to stream), behind the same check slots as execute.
func (s *Server) mcpHandler() http.Handler {
	srv := newMCPServer(s.tool, func(outcome string) { s.metrics.mcpCalls.WithLabelValues(outcome).Inc() })
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		MaxRequestBodyBytes: maxMCPBody,
		Logger:              s.log,
		// We make the SDK's DNS-rebinding check ourselves (rebinding), so
		// that the public URL's host passes and a refusal is an error object.
		DisableLocalhostProtection: true,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if e := s.rebinding(r); e != nil {
			writeJSON(w, http.StatusForbidden, citecheck.AppendEnvelope(nil, nil, e))
			setOutcome(r, e.Code)
			return
		}
		release := s.admit(w, r, maxMCPBody, mcpTooLarge)
		if release == nil {
			return
		}
		defer release()
		ew := &errorObjects{ResponseWriter: w, r: r}
		h.ServeHTTP(ew, r)
		ew.finish()
	})
}

// rebinding refuses an MCP request that reached a loopback listener under a
// name that is neither loopback nor the configured public URL's host: a
// web page could otherwise point its own name at 127.0.0.1 (DNS
// rebinding) and drive a local MCP server from the browser. This is the MCP
// SDK's own rule, plus the public host, so a proxy that keeps the Host
// header works.
func (s *Server) rebinding(r *http.Request) *citecheck.Error {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil || !isLoopback(local.String()) || isLoopback(r.Host) {
		return nil
	}
	if s.cfg.PublicURL != "" {
		if u, err := url.Parse(s.cfg.PublicURL); err == nil && strings.EqualFold(u.Host, r.Host) {
			return nil
		}
	}
	return &citecheck.Error{Code: citecheck.CodeInvalidInput,
		Message: "mcp: Host " + strconv.Quote(r.Host) + " reached a loopback address; use localhost, or set --public-url to this host"}
}

// isLoopback reports whether a host or host:port names the loopback.
func isLoopback(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = strings.Trim(hostport, "[]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// maxMCPBody bounds one MCP message on /mcp: an input of max_input_bytes
// with room to spare for the JSON-RPC envelope around it. A bigger message
// cannot carry a valid input.
const maxMCPBody = 2 * citecheck.MaxInputBytes

func mcpTooLarge() *citecheck.Error {
	e := tooLarge()
	e.Message = "MCP message is over " + itoa(maxMCPBody) + " bytes, so its input is over " +
		citecheck.LimitInputBytes + " " + itoa(citecheck.MaxInputBytes)
	return e
}

// errorObjects rewrites the plain-text errors that the MCP SDK writes
// (http.Error) into error objects, so that every error body of the service
// is {"error": …}. JSON answers, JSON-RPC errors included, pass unchanged.
type errorObjects struct {
	http.ResponseWriter
	r         *http.Request
	status    int
	swallow   bool
	swallowed strings.Builder
}

func (w *errorObjects) WriteHeader(status int) {
	if status >= 400 && strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		w.status, w.swallow = status, true
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *errorObjects) Write(b []byte) (int, error) {
	if w.swallow {
		if w.swallowed.Len() < 1024 {
			w.swallowed.Write(b)
		}
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

func (w *errorObjects) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *errorObjects) Flush() {
	if !w.swallow {
		http.NewResponseController(w.ResponseWriter).Flush()
	}
}

func (w *errorObjects) finish() {
	if !w.swallow {
		return
	}
	msg := strings.TrimSpace(w.swallowed.String())
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	code := codeForStatus(w.status)
	e := &citecheck.Error{Code: code, Message: "mcp: " + msg}
	if code == citecheck.CodeLimitExceeded {
		e = mcpTooLarge()
	}
	w.Header().Del("Content-Length")
	// Keep the SDK's status (403 for a rebinding Host is not in our table).
	body := citecheck.AppendEnvelope(nil, nil, e)
	setOutcome(w.r, code)
	w.Header().Set("Content-Type", "application/json")
	w.ResponseWriter.WriteHeader(w.status)
	w.ResponseWriter.Write(body)
}

var _ io.Writer = (*errorObjects)(nil)
