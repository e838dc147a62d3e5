package server

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/citecheck/citecheck"
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
		return nil, e
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
	h := w.Header()
	for k, v := range a.header {
		h[k] = v
	}
	h.Set("Content-Length", strconv.Itoa(a.body.Len()))
	w.WriteHeader(a.status)
	w.Write(a.body.Bytes())
}

var _ io.Writer = (*mcpAnswer)(nil)
