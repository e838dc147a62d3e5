package server

import (
	"net/http"
	"strings"
	"testing"
)

// corsRequest sends method to ts's path with an Origin (and, for a
// preflight, Access-Control-Request-Method) and returns the answer.
func corsRequest(t *testing.T, ts *testServer, method, path, origin string, preflight bool) *http.Response {
	t.Helper()
	var body *strings.Reader
	if method == http.MethodPost {
		body = strings.NewReader(string(exampleInput(t)))
	} else {
		body = strings.NewReader("")
	}
	req, err := http.NewRequest(method, ts.URL+path, body)
	if err != nil {
		t.Fatal(err)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	if preflight {
		req.Header.Set("Access-Control-Request-Method", http.MethodPost)
		req.Header.Set("Access-Control-Request-Headers", "content-type")
	} else if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func TestCORSIsOffByDefault(t *testing.T) {
	ts := start(t, Config{})
	for _, preflight := range []bool{false, true} {
		method := http.MethodPost
		if preflight {
			method = http.MethodOptions
		}
		resp := corsRequest(t, ts, method, executePath, "https://app.example.org", preflight)
		for k := range resp.Header {
			if strings.HasPrefix(k, "Access-Control-") {
				t.Errorf("%s: %s sent with no allowed origin", method, k)
			}
		}
		if preflight && resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("preflight: %d, want 405 (OPTIONS is not a method of the route)", resp.StatusCode)
		}
	}
}

func TestCORSAnswersAllowedOriginsOnly(t *testing.T) {
	const allowed, other = "https://app.example.org", "https://evil.example"
	ts := start(t, Config{AllowedOrigins: []string{"https://APP.example.org/", "http://localhost:3000"}})
	for _, path := range []string{executePath, pathMCP, pathCatalogue} {
		pre := corsRequest(t, ts, http.MethodOptions, path, allowed, true)
		if pre.StatusCode != http.StatusNoContent {
			t.Errorf("%s preflight from %s: %d, want 204", path, allowed, pre.StatusCode)
		}
		for h, want := range map[string]string{
			"Access-Control-Allow-Origin":  allowed,
			"Access-Control-Allow-Methods": corsAllowMethods,
			"Access-Control-Allow-Headers": corsAllowHeaders,
			"Access-Control-Max-Age":       corsMaxAge,
			"Vary":                         "Origin",
		} {
			if got := pre.Header.Get(h); got != want {
				t.Errorf("%s preflight: %s = %q, want %q", path, h, got, want)
			}
		}
		if !strings.Contains(strings.ToLower(corsAllowHeaders), "content-type") {
			t.Error("Content-Type is not an allowed header: a JSON POST could not be sent")
		}
		refused := corsRequest(t, ts, http.MethodOptions, path, other, true)
		if refused.Header.Get("Access-Control-Allow-Origin") != "" || refused.StatusCode == http.StatusNoContent {
			t.Errorf("%s preflight from %s: %d, Allow-Origin %q", path, other, refused.StatusCode, refused.Header.Get("Access-Control-Allow-Origin"))
		}
		if v := refused.Header.Get("Vary"); v != "Origin" {
			t.Errorf("%s: Vary %q on a refused origin's answer (caches must key on Origin)", path, v)
		}
	}
	resp := corsRequest(t, ts, http.MethodPost, executePath, allowed, false)
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != allowed ||
		resp.Header.Get("Access-Control-Expose-Headers") != "Retry-After" {
		t.Errorf("POST from %s: %d, headers %v", allowed, resp.StatusCode, resp.Header)
	}
	resp = corsRequest(t, ts, http.MethodPost, executePath, other, false)
	if resp.StatusCode != 200 || resp.Header.Get("Access-Control-Allow-Origin") != "" {
		// The browser, not the server, withholds the answer from the page.
		t.Errorf("POST from %s: %d, Allow-Origin %q", other, resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
	resp = corsRequest(t, ts, http.MethodPost, executePath, "", false)
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Error("CORS headers on a request without Origin")
	}
	if !ts.OriginAllowed("http://localhost:3000") || ts.OriginAllowed("http://localhost:3001") || ts.OriginAllowed("") {
		t.Error("OriginAllowed disagrees with the list")
	}
}

func TestCORSStarAllowsEveryOrigin(t *testing.T) {
	ts := start(t, Config{AllowedOrigins: []string{"*"}})
	for _, origin := range []string{"https://a.example", "http://127.0.0.1:9", "null"} {
		pre := corsRequest(t, ts, http.MethodOptions, executePath, origin, true)
		if pre.StatusCode != http.StatusNoContent || pre.Header.Get("Access-Control-Allow-Origin") != "*" || pre.Header.Get("Vary") != "" {
			t.Errorf("%s: %d, Allow-Origin %q, Vary %q", origin, pre.StatusCode, pre.Header.Get("Access-Control-Allow-Origin"), pre.Header.Get("Vary"))
		}
	}
}

func TestCheckOrigin(t *testing.T) {
	for _, c := range []struct {
		origin string
		ok     bool
	}{
		{"*", true},
		{"https://app.example.org", true},
		{"http://localhost:3000", true},
		{"https://app.example.org/", true},
		{"http://[::1]:8080", true},
		{"app.example.org", false},
		{"https://app.example.org/path", false},
		{"https://app.example.org?q=1", false},
		{"https://user@app.example.org", false},
		{"", false},
		{"**", false},
	} {
		if err := CheckOrigin(c.origin); (err == nil) != c.ok {
			t.Errorf("CheckOrigin(%q) = %v, want ok %v", c.origin, err, c.ok)
		}
	}
}
