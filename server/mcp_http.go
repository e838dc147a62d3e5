package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/citecheck/citecheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// readMCPBody reads an /mcp body of at most maxMCPBody bytes, failing in
// the engine's words for a body that could not be read, as readBody does.
func readMCPBody(w http.ResponseWriter, r *http.Request) ([]byte, *citecheck.Error) {
	body := http.MaxBytesReader(w, r.Body, maxMCPBody+1)
	var buf bytes.Buffer
	if r.ContentLength > 0 {
		buf.Grow(int(r.ContentLength))
	}
	_, err := buf.ReadFrom(body)
	switch {
	case buf.Len() > maxMCPBody:
		return nil, mcpTooLarge()
	case err != nil:
		_, e := citecheck.ReadBody(failingReader{err})
		return nil, citecheck.AsError(e)
	}
	return buf.Bytes(), nil
}

// originCheck is /mcp's cross-origin protection: Go's own, which lets a
// request through when Sec-Fetch-Site says it is same-origin (or not from a
// page), or when its Origin is this server's (its Host) or a trusted one:
// the public URL's and Config.AllowedOrigins. An allowed origin that is not
// scheme://host[:port] is logged and left out.
func (s *Server) originCheck() *http.CrossOriginProtection {
	c := http.NewCrossOriginProtection()
	if u, err := url.Parse(s.cfg.PublicURL); err == nil && s.cfg.PublicURL != "" {
		if err := c.AddTrustedOrigin(u.Scheme + "://" + u.Host); err != nil {
			s.log.Warn("public URL's origin left out of /mcp's trusted origins", "origin", u.Scheme+"://"+u.Host, "err", err.Error())
		}
	}
	return c
}

// crossOrigin refuses an /mcp request from another site's page (403): the
// MCP specification asks servers to validate Origin, or any page a user
// opens could drive the server from the user's browser.
func (s *Server) crossOrigin(r *http.Request) *citecheck.Error {
	// The pages --cors-origin lets call the service may call /mcp too (the
	// same list, "*" included); any other page must be same-origin.
	if o := r.Header.Get("Origin"); o != "" && s.OriginAllowed(o) {
		return nil
	}
	if s.sameSite.Check(r) == nil {
		return nil
	}
	from := "Sec-Fetch-Site " + r.Header.Get("Sec-Fetch-Site")
	if o := r.Header.Get("Origin"); o != "" {
		from = fmt.Sprintf("Origin %q", citecheck.Echo(o))
	}
	return &citecheck.Error{Code: citecheck.CodeInvalidInput,
		Message: "mcp: cross-origin request refused (" + from + "); a page may call /mcp only from this server's own origin, or one the server allows (--cors-origin)"}
}

// mcpAnswer holds the MCP SDK's answer to one /mcp request, so that it is
// written after the check slot is released (admission.go), and so that the
// plain-text errors the SDK writes (http.Error) become error objects: every
// error body of the service is {"error": …}. JSON answers, JSON-RPC errors
// included, pass unchanged.
type mcpAnswer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (a *mcpAnswer) Header() http.Header { return a.header }

func (a *mcpAnswer) WriteHeader(status int) {
	if a.status == 0 {
		a.status = status
	}
}

func (a *mcpAnswer) Write(b []byte) (int, error) {
	if a.status == 0 {
		a.status = http.StatusOK
	}
	return a.body.Write(b)
}

// Flush is a no-op: the answer is written whole, after the check.
func (a *mcpAnswer) Flush() {}

// writeTo writes the answer through w.
func (a *mcpAnswer) writeTo(w http.ResponseWriter, r *http.Request) {
	if a.status == 0 {
		a.status = http.StatusOK
	}
	if a.status >= 400 && strings.HasPrefix(a.header.Get("Content-Type"), "text/plain") {
		msg, _, _ := strings.Cut(strings.TrimSpace(a.body.String()), "\n")
		code := codeForStatus(a.status)
		e := &citecheck.Error{Code: code, Message: "mcp: " + citecheck.Echo(msg).String()}
		if code == citecheck.CodeLimitExceeded {
			e = mcpTooLarge()
		}
		setOutcome(r, code)
		// Keep the SDK's status (a 403 is not in our table).
		writeJSON(w, a.status, citecheck.AppendEnvelope(nil, nil, e))
		return
	}
	body := plainRPCAnswer(a.body.Bytes())
	h := w.Header()
	for k, v := range a.header {
		h[k] = v
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(a.status)
	w.Write(body)
}

var _ io.Writer = (*mcpAnswer)(nil)

// mcpHandler is /mcp: the official SDK's streamable HTTP handler in
// stateless JSON mode (the tool is pure, so there is no session to keep and
// nothing to stream), behind the same check slots as execute. The MCP
// server and its tools' schemas are made on the first MCP request, not
// when the service starts.
func (s *Server) mcpHandler() http.Handler {
	sdk := sync.OnceValue(func() http.Handler {
		srv := newMCPServer(s.tool, s.log, func(outcome string) { s.metrics.mcpCalls.WithLabelValues(outcome).Inc() }, func(ctx context.Context) {
			if s.testHookMCPCall != nil {
				s.testHookMCPCall(ctx)
			}
		})
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
			Stateless:           true,
			JSONResponse:        true,
			MaxRequestBodyBytes: maxMCPBody,
			Logger:              s.log,
			// We make the SDK's DNS-rebinding check ourselves (rebinding), so
			// that the public URL's host passes and a refusal is an error object.
			DisableLocalhostProtection: true,
			// A call stops when its POST's client goes away: the SDK ties the
			// two for the newest protocol revision, callContext for the others.
			PropagateRequestCancellation: true,
		})
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e := s.crossOrigin(r)
		if e == nil {
			e = s.rebinding(r)
		}
		if e != nil {
			writeJSON(w, http.StatusForbidden, citecheck.AppendEnvelope(nil, nil, e))
			setOutcome(r, e.Code)
			return
		}
		body, a := s.admitBody(w, r, maxMCPBody, readMCPBody, mcpTooLarge)
		if a == nil {
			return
		}
		defer a.end()
		if p := vetMessage(body); p != nil {
			a.answer(w, func() {
				if p.id != nil {
					// A request with an id gets its JSON-RPC error, as over
					// stdio (the SDK answers its own errors so too).
					setOutcome(r, citecheck.CodeInvalidInput)
					writeJSON(w, http.StatusOK, rpcError(p))
					return
				}
				writeError(w, r, &citecheck.Error{Code: citecheck.CodeInvalidInput, Message: "mcp: " + p.message})
			})
			return
		}
		r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(body)), int64(len(body))
		if rec, ok := r.Context().Value(recordKey{}).(*record); ok {
			r.Header.Set(requestIDHeader, rec.id) // for the MCP middleware's log (guard)
		}
		r = r.WithContext(context.WithValue(r.Context(), requestContextKey{}, r.Context()))
		a.check(w, r, mcpCost(body), func() (int, func()) {
			ans := &mcpAnswer{header: make(http.Header)}
			sdk().ServeHTTP(ans, r)
			if e := stopped(r.Context()); e != nil {
				// Its client went away (or a deadline passed): answered, and
				// logged, as execute answers a stopped check.
				setOutcome(r, e.Code)
				w.Header().Set("Retry-After", retryAfter(s.cfg.QueueWait))
				out := errorEnvelope(e)
				return len(out), func() { writeJSON(w, HTTPStatus(e.Code), out) }
			}
			return ans.body.Len(), func() { ans.writeTo(w, r) }
		})
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
		Message: fmt.Sprintf("mcp: Host %q", citecheck.Echo(r.Host)) + " reached a loopback address; use localhost, or set --public-url to this host"}
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
