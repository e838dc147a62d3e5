package server

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
)

// TestConformanceHTTP runs every conformance case through the real server
// and holds the answer to the in-process one byte for byte, with the status
// that the error code's row of the table gives.
func TestConformanceHTTP(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	for _, c := range testkit.Conformance(t) {
		t.Run(c.Name, func(t *testing.T) {
			body := c.Body
			want, _, e := inProcess(body)
			resp, got := post(t, ts.URL+executePath, body)
			if !bytes.Equal(got, want) {
				t.Fatalf("body differs from the in-process answer\n got %.400s\nwant %.400s", got, want)
			}
			wantStatus := http.StatusOK
			if e != nil {
				wantStatus = HTTPStatus(e.Code)
			}
			if resp.StatusCode != wantStatus {
				t.Errorf("status %d, want %d", resp.StatusCode, wantStatus)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			// The case's own expectation, as a cross-check of the wiring.
			var exp struct {
				Error *citecheck.Error `json:"error"`
			}
			json.Unmarshal(c.Expect, &exp)
			if (exp.Error == nil) != (e == nil) || (e != nil && e.Code != exp.Error.Code) {
				t.Errorf("answer %s, case expects %s", got, c.Expect)
			}
		})
	}
}

func TestStatusTable(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]int{
		citecheck.CodeInvalidInput: 400, citecheck.CodeLimitExceeded: 413, citecheck.CodeNotFound: 404,
		citecheck.CodeMethodNotAllowed: 405, citecheck.CodeUnsupportedMedia: 415, citecheck.CodeOverloaded: 503,
		citecheck.CodeInternal: 500, citecheck.CodeUsage: 400, citecheck.CodeUnavailable: 502, "no-such-code": 500,
	} {
		if got := HTTPStatus(code); got != want {
			t.Errorf("HTTPStatus(%s) = %d, want %d", code, got, want)
		}
	}
	// A status maps back to the service's code, never to one only the
	// CLI reports (400 is invalid_input, not usage; 502 is no code of ours).
	for status, want := range map[int]string{400: citecheck.CodeInvalidInput, 502: citecheck.CodeInternal, 503: citecheck.CodeOverloaded} {
		if got := codeForStatus(status); got != want {
			t.Errorf("codeForStatus(%d) = %s, want %s", status, got, want)
		}
	}
}

// TestTooLargeIsReadBodysAnswer: the early 413 (from Content-Length) is the
// same error the engine's reader gives, so both paths answer the same bytes.
func TestTooLargeIsReadBodysAnswer(t *testing.T) {
	t.Parallel()
	_, e := citecheck.ReadBody(bytes.NewReader(make([]byte, citecheck.MaxInputBytes+10)))
	if e == nil {
		t.Fatal("ReadBody took an oversized body")
	}
	if got, want := citecheck.AppendEnvelope(nil, nil, tooLarge()), citecheck.AppendEnvelope(nil, nil, e); !bytes.Equal(got, want) {
		t.Fatalf("tooLarge()\n got %s\nwant %s", got, want)
	}
}

func TestRoutes(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	example, _ := parseContract(citecheck.ContractJSON())
	exampleInput := []byte(example.Examples[0].Input)
	const contractPath = "/v1/tools/citation-batch-check/versions/1.0.0"

	t.Run("contract is served byte for byte", func(t *testing.T) {
		resp, body := do(t, "GET", ts.URL+contractPath, "", nil)
		if resp.StatusCode != 200 || !bytes.Equal(body, citecheck.ContractJSON()) {
			t.Fatalf("%d, %d bytes; want the %d bytes of ContractJSON", resp.StatusCode, len(body), len(citecheck.ContractJSON()))
		}
		if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
	})

	t.Run("catalogue", func(t *testing.T) {
		resp, body := do(t, "GET", ts.URL+"/v1/tools", "", nil)
		var c catalogue
		if err := json.Unmarshal(body, &c); err != nil || resp.StatusCode != 200 || len(c.Tools) != 1 {
			t.Fatalf("%d %v %s", resp.StatusCode, err, body)
		}
		e := c.Tools[0]
		if e.ID != citecheck.ToolID || e.Version != citecheck.ToolVersion ||
			e.ContractURL != ts.URL+contractPath || e.ExecuteURL != ts.URL+executePath ||
			e.PageURL != ts.URL+"/tools/citation-batch-check" || c.MCPURL != ts.URL+"/mcp" {
			t.Fatalf("catalogue %s", body)
		}
		// Its URLs work.
		if resp, b := do(t, "GET", e.ContractURL, "", nil); resp.StatusCode != 200 || !bytes.Equal(b, citecheck.ContractJSON()) {
			t.Errorf("contract_url: %d", resp.StatusCode)
		}
		if resp, _ := post(t, e.ExecuteURL, exampleInput); resp.StatusCode != 200 {
			t.Errorf("execute_url: %d", resp.StatusCode)
		}
	})

	t.Run("public URL", func(t *testing.T) {
		ps := start(t, Config{PublicURL: "https://cite.example.org/"})
		_, body := do(t, "GET", ps.URL+"/v1/tools", "", nil)
		if !strings.Contains(string(body), `"execute_url":"https://cite.example.org/v1/tools/`) {
			t.Fatalf("catalogue ignores PublicURL: %s", body)
		}
		_, page := do(t, "GET", ps.URL+"/tools/citation-batch-check", "", nil)
		if !strings.Contains(string(page), "https://cite.example.org/mcp") {
			t.Fatal("page ignores PublicURL")
		}
	})

	t.Run("example", func(t *testing.T) {
		resp, body := post(t, ts.URL+executePath, exampleInput)
		want := `{"result":` + compact(example.Examples[0].Output) + `}`
		if resp.StatusCode != 200 || string(body) != want {
			t.Fatalf("%d %s\nwant %s", resp.StatusCode, body, want)
		}
	})

	errorCases := []struct {
		name, method, path, contentType string
		body                            []byte
		status                          int
		code, allow                     string
	}{
		{"unknown tool", "POST", "/v1/tools/nope/versions/1.0.0/execute", "application/json", exampleInput, 404, "not_found", ""},
		{"unknown version", "POST", "/v1/tools/citation-batch-check/versions/9.9.9/execute", "application/json", exampleInput, 404, "not_found", ""},
		{"unknown version of contract", "GET", "/v1/tools/citation-batch-check/versions/0.1.0", "", nil, 404, "not_found", ""},
		{"unknown tool page", "GET", "/tools/nope", "", nil, 404, "not_found", ""},
		{"unknown route", "GET", "/v2/whatever", "", nil, 404, "not_found", ""},
		{"unknown tool with wrong method", "GET", "/v1/tools/nope/versions/1.0.0/execute", "", nil, 404, "not_found", ""},
		{"GET execute", "GET", executePath, "", nil, 405, "method_not_allowed", "POST"},
		{"PUT execute", "PUT", executePath, "application/json", exampleInput, 405, "method_not_allowed", "POST"},
		{"POST contract", "POST", contractPath, "application/json", exampleInput, 405, "method_not_allowed", "GET, HEAD"},
		{"DELETE catalogue", "DELETE", "/v1/tools", "", nil, 405, "method_not_allowed", "GET, HEAD"},
		{"POST page", "POST", "/tools/citation-batch-check", "", nil, 405, "method_not_allowed", "GET, HEAD"},
		{"GET mcp", "GET", "/mcp", "", nil, 405, "method_not_allowed", "POST"},
		{"POST healthz", "POST", "/healthz", "", nil, 405, "method_not_allowed", "GET, HEAD"},
		{"no Content-Type", "POST", executePath, "", exampleInput, 415, "unsupported_media_type", ""},
		{"form Content-Type", "POST", executePath, "application/x-www-form-urlencoded", exampleInput, 415, "unsupported_media_type", ""},
		{"text/plain", "POST", executePath, "text/plain", exampleInput, 415, "unsupported_media_type", ""},
		{"latin1", "POST", executePath, "application/json; charset=latin1", exampleInput, 415, "unsupported_media_type", ""},
		{"other parameter", "POST", executePath, "application/json; foo=bar", exampleInput, 415, "unsupported_media_type", ""},
		{"json-seq", "POST", executePath, "application/json-seq", exampleInput, 415, "unsupported_media_type", ""},
		{"mcp text/plain", "POST", "/mcp", "text/plain", []byte(`{}`), 415, "unsupported_media_type", ""},
		{"invalid input", "POST", executePath, "application/json", []byte(`{"sources":[]}`), 400, "invalid_input", ""},
		{"empty body", "POST", executePath, "application/json", []byte{}, 400, "invalid_input", ""},
	}
	for _, c := range errorCases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := do(t, c.method, ts.URL+c.path, c.contentType, c.body)
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, c.status, body)
			}
			if e := errorOf(t, body); e.Code != c.code {
				t.Fatalf("code %s, want %s", e.Code, c.code)
			}
			if got := resp.Header.Get("Allow"); got != c.allow {
				t.Errorf("Allow %q, want %q", got, c.allow)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
		})
	}

	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON; Charset=UTF-8", "application/json;charset=\"utf-8\""} {
		t.Run("accepts "+ct, func(t *testing.T) {
			if resp, body := do(t, "POST", ts.URL+executePath, ct, exampleInput); resp.StatusCode != 200 {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
		})
	}

	t.Run("HEAD", func(t *testing.T) {
		if resp, _ := do(t, "HEAD", ts.URL+contractPath, "", nil); resp.StatusCode != 200 {
			t.Fatalf("HEAD contract: %d", resp.StatusCode)
		}
	})

	t.Run("healthz", func(t *testing.T) {
		if resp, body := do(t, "GET", ts.URL+"/healthz", "", nil); resp.StatusCode != 200 || string(body) != `{"status":"ok"}` {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
	})

	t.Run("root redirects to the page", func(t *testing.T) {
		resp, body := do(t, "GET", ts.URL+"/", "", nil)
		if resp.StatusCode != 200 || !strings.Contains(string(body), "<h1>Citation batch check</h1>") {
			t.Fatalf("%d", resp.StatusCode)
		}
	})

	t.Run("metrics", func(t *testing.T) {
		_, body := do(t, "GET", ts.URL+"/metrics", "", nil)
		for _, want := range []string{
			`citecheck_http_requests_total{outcome="valid",route="POST /v1/tools/{id}/versions/{version}/execute"}`,
			`citecheck_http_requests_total{outcome="invalid_input",route="POST /v1/tools/{id}/versions/{version}/execute"}`,
			`citecheck_http_requests_total{outcome="method_not_allowed",route="/v1/tools/{id}/versions/{version}/execute"}`,
			`citecheck_http_requests_total{outcome="unsupported_media_type",`,
			`citecheck_http_request_duration_seconds_bucket{outcome="valid",route="POST /v1/tools/{id}/versions/{version}/execute",le=`,
			`citecheck_checks_in_flight 0`,
			`process_resident_memory_bytes`,
			`go_goroutines`,
		} {
			if !strings.Contains(string(body), want) {
				t.Errorf("metrics lack %s", want)
			}
		}
	})
}

// TestPage checks the page is generated from the contract: every
// supported and unsupported operation, every semantics line, limit and
// input member is on it, with this server's address in the call examples.
func TestPage(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	resp, body := do(t, "GET", ts.URL+"/tools/citation-batch-check", "", nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("%d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	page := string(body)
	tool, _ := parseContract(citecheck.ContractJSON())
	var want []string
	for _, list := range [][]string{tool.Supported, tool.Unsupported, tool.Semantics} {
		for _, s := range list {
			want = append(want, htmlEscape(s))
		}
	}
	want = append(want, htmlEscape(tool.Description), "max scan units: 16777216", "max input bytes: 1048576",
		"<code>sources</code> (array of object, required): min items 1; max items 16",
		"<code>claimed_start</code> (integer): min 0",
		"<code>citations_checked</code> (integer, required): min 0",
		"curl -X POST &#39;"+ts.URL+executePath+"&#39;",
		ts.URL+"/mcp", "--base-url &#39;"+ts.URL+"&#39;", "citecheck mcp",
		`<textarea id="try-input"`, "&#34;claimed_start&#34;: 23")
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
}

func htmlEscape(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;")
	return r.Replace(s)
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer = testkit.SyncBuffer

func TestAccessLog(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	ts := start(t, Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	post(t, ts.URL+executePath, []byte(`{"sources":[]}`))
	var line map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "request" {
			line = m
		}
	}
	if line == nil {
		t.Fatalf("no access log line in %s", logs.String())
	}
	for k, want := range map[string]any{
		"method": "POST", "route": "POST /v1/tools/{id}/versions/{version}/execute",
		"status": float64(400), "outcome": "invalid_input", "path": executePath,
	} {
		if line[k] != want {
			t.Errorf("%s = %v, want %v", k, line[k], want)
		}
	}
	for _, k := range []string{"bytes", "duration_ms", "time", "remote"} {
		if _, ok := line[k]; !ok {
			t.Errorf("no %s in %v", k, line)
		}
	}
}

// TestMCPRebinding: /mcp on a loopback listener refuses a foreign Host (a
// DNS-rebinding page), with an error object, but takes localhost and the
// configured public host.
func TestMCPRebinding(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{PublicURL: "https://cite.example.org"})
	ping := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	for host, want := range map[string]int{"evil.example": 403, "cite.example.org": 200, "localhost:1234": 200, "127.0.0.1": 200} {
		req, _ := http.NewRequest("POST", ts.URL+"/mcp", bytes.NewReader(ping))
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d: %s", host, resp.StatusCode, want, body)
		}
		if want == 403 {
			errorOf(t, body)
		}
	}
}

// TestMCPErrorsAreErrorObjects: the SDK's own plain-text refusals (here: an
// Accept header without text/event-stream) reach the client as error
// objects, like every other error of the service.
func TestMCPErrorsAreErrorObjects(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	resp, body := do(t, "POST", ts.URL+"/mcp", "application/json", []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if resp.StatusCode != 400 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if e := errorOf(t, body); e.Code != citecheck.CodeInvalidInput || !strings.HasPrefix(e.Message, "mcp: ") {
		t.Fatalf("%+v", e)
	}
}

// TestPanicIsAnInternalError: a bug in a handler answers 500 with an error
// object, and is counted, rather than dropping the connection.
func TestPanicIsAnInternalError(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	ts.testHookHoldingSlot = func(*http.Request) { panic("boom") }
	resp, body := post(t, ts.URL+executePath, exampleInput(t))
	if resp.StatusCode != 500 || errorOf(t, body).Code != citecheck.CodeInternal {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	waitIdle(t, ts) // the slot was released on the way out
	_, m := do(t, "GET", ts.URL+"/metrics", "", nil)
	if !strings.Contains(string(m), `citecheck_http_requests_total{outcome="internal"`) {
		t.Error("the panic is not counted")
	}
}
