package server

import (
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// CORS lets web pages on other origins (a tool host's UI, a notebook, an
// extension) call the service from a browser, for the origins that
// Config.AllowedOrigins names and no others. Without an allowed origin the
// service sends no CORS header at all, so browsers keep their same-origin
// rule: off by default.

// Headers a cross-origin page may send (Content-Type: application/json is
// what makes a browser ask first; the Mcp-* headers are what MCP clients
// in a page send on /mcp), and headers it may read beyond the safelisted
// ones: Retry-After, so a page can back off on 503 overloaded as other
// clients do.
const (
	corsAllowMethods  = "GET, HEAD, POST"
	corsAllowHeaders  = "Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID"
	corsExposeHeaders = "Retry-After"
	// corsMaxAge is how long (seconds) a browser may reuse a preflight
	// answer: 2 h, Chromium's own cap, since the list changes only on a
	// restart.
	corsMaxAge = "7200"
)

// origins is Config.AllowedOrigins parsed: "*" or a set of serialized
// origins (scheme://host[:port], lower case, as browsers send them).
type origins struct {
	any bool
	set map[string]bool
}

func newOrigins(list []string) origins {
	o := origins{set: make(map[string]bool, len(list))}
	for _, s := range list {
		if s == "*" {
			o.any = true
			continue
		}
		o.set[normalizeOrigin(s)] = true
	}
	return o
}

// none reports whether no cross-origin access is allowed (the default).
func (o origins) none() bool { return !o.any && len(o.set) == 0 }

// allows reports whether a page of origin may call the service. An empty
// origin (not a browser's cross-origin request) is not an origin at all;
// callers decide what its absence means.
func (o origins) allows(origin string) bool {
	return origin != "" && (o.any || o.set[normalizeOrigin(origin)])
}

// OriginAllowed reports whether Config.AllowedOrigins lets a page of this
// origin (an Origin header's value) call the service. /mcp's Origin check
// and the CORS answers both ask it.
func (s *Server) OriginAllowed(origin string) bool { return s.origins.allows(origin) }

func normalizeOrigin(s string) string { return strings.ToLower(strings.TrimSuffix(s, "/")) }

// CheckOrigin reports whether s can stand in Config.AllowedOrigins: "*",
// or an origin as browsers send it in the Origin header, scheme://host
// with an optional port and nothing after (a trailing "/" is forgiven).
// An origin with a path would never match, so it is refused rather than
// silently ignored.
func CheckOrigin(s string) error {
	if s == "*" {
		return nil
	}
	u, err := url.Parse(strings.TrimSuffix(s, "/"))
	switch {
	case err != nil:
		return err
	case u.Scheme == "" || u.Host == "" || u.Opaque != "":
		return errors.New("an origin is scheme://host[:port], e.g. https://app.example.org, or *")
	case u.Path != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return errors.New("an origin has no path, query, fragment or user: scheme://host[:port] only")
	}
	return nil
}

// cors answers preflight requests from allowed origins and marks every
// answer to them as readable by the page. Requests from other origins pass
// unchanged, with no CORS header: the browser then refuses the page the
// answer (or, for a preflight, the request), which is the refusal.
func (s *Server) cors(next http.Handler) http.Handler {
	if s.origins.none() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		h := w.Header()
		if !s.origins.any {
			// The answer depends on the Origin: caches must key on it.
			h.Add("Vary", "Origin")
		}
		if !s.origins.allows(origin) {
			next.ServeHTTP(w, r)
			return
		}
		if s.origins.any {
			h.Set("Access-Control-Allow-Origin", "*")
		} else {
			h.Set("Access-Control-Allow-Origin", origin)
		}
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			h.Set("Access-Control-Allow-Methods", corsAllowMethods)
			h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
			h.Set("Access-Control-Max-Age", corsMaxAge)
			setOutcome(r, outcomeOK)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		next.ServeHTTP(w, r)
	})
}
