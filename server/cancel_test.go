package server

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/citecheck/citecheck"
)

// Tests of spec §5.7 (work stops when nobody waits for it) and §4.2 (a
// content coding is 415).

// mcpCallBody is a tools/call message for tool with the example input.
func mcpCallBody(t testing.TB, id int, tool string) []byte {
	t.Helper()
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"id":%q,"version":%q,"input":%s}}}`,
		id, tool, citecheck.ToolID, citecheck.ToolVersion, exampleInput(t)))
}

// rawPost is a POST of body to path as raw HTTP/1.1, with extra header
// lines.
func rawPost(path string, body []byte, extra ...string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: %d\r\n", path, len(body))
	for _, h := range extra {
		b.WriteString(h + "\r\n")
	}
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes()
}

// TestContentEncodingIsUnsupportedMedia: a body with a content coding
// other than identity is refused with 415 unsupported_media_type and
// Accept-Encoding: identity on every POST route, before it is read (a
// gzip body is not answered "not I-JSON"); no Content-Encoding, an empty
// one and identity in any case are read as they are.
func TestContentEncodingIsUnsupportedMedia(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	example := exampleInput(t)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(example)
	zw.Close()
	routes := []struct {
		name, path string
		body       []byte
	}{
		{"execute", executePath, example},
		{"explain", explainPath, example},
		{"mcp", "/mcp", mcpCallBody(t, 1, MCPToolName)},
	}
	for _, rt := range routes {
		for _, tc := range []struct {
			name     string
			encoding []string // header values; nil: none sent
			gzipped  bool
			refused  bool
		}{
			{"gzip body with gzip is refused", []string{"gzip"}, true, true},
			{"coding names are case-insensitive: GZIP is refused", []string{"GZIP"}, true, true},
			{"br is refused", []string{"br"}, false, true},
			{"deflate is refused", []string{"deflate"}, false, true},
			{"an unknown coding is refused", []string{"x-citecheck"}, false, true},
			{"a list with a coding after identity is refused", []string{"identity, gzip"}, true, true},
			{"a second header line with a coding is refused", []string{"identity", "gzip"}, true, true},
			{"no Content-Encoding is read", nil, false, false},
			{"identity is read", []string{"identity"}, false, false},
			{"IDENTITY is read (any case)", []string{"IDENTITY"}, false, false},
			{"an empty Content-Encoding is read", []string{""}, false, false},
		} {
			t.Run(rt.name+"/"+tc.name, func(t *testing.T) {
				body := rt.body
				if tc.gzipped && rt.name != "mcp" {
					body = gz.Bytes()
				}
				req, _ := http.NewRequest("POST", ts.URL+rt.path, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				for _, v := range tc.encoding {
					req.Header.Add("Content-Encoding", v)
				}
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				out, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if !tc.refused {
					if resp.StatusCode != 200 {
						t.Fatalf("status %d, want 200: %.300s", resp.StatusCode, out)
					}
					return
				}
				if resp.StatusCode != http.StatusUnsupportedMediaType {
					t.Fatalf("status %d, want 415: %.300s", resp.StatusCode, out)
				}
				e := errorOf(t, out)
				if e.Code != citecheck.CodeUnsupportedMedia || e.Path != "" || !strings.Contains(e.Message, "Content-Encoding") {
					t.Errorf("error %+v, want unsupported_media_type naming Content-Encoding", e)
				}
				if got := resp.Header.Get("Accept-Encoding"); got != "identity" {
					t.Errorf("Accept-Encoding %q, want identity", got)
				}
			})
		}
	}
}

// holdUntilDone is a test hook that reports each held request on held and
// holds it until its context is done (or 10 s pass, which fails the test
// through the answer it then gets).
func holdUntilDone(held chan<- struct{}) func(ctx context.Context) {
	return func(ctx context.Context) {
		held <- struct{}{}
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
		}
	}
}

// TestHangUpsStopTheWorkAndReturnTheSlots: four clients take the four
// check slots (execute, explain and /mcp, each held in its slot by a test
// hook until its context is done) and hang up. Each request's context
// ends, the engine stops before its first citation (the outcome is
// overloaded, "stopped", where the body would have been valid), every
// slot comes back (checks_in_flight is 0 again) and a new client is
// answered 200.
func TestHangUpsStopTheWorkAndReturnTheSlots(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{MaxInFlight: 4})
	held := make(chan struct{}, 4)
	ts.testHookHoldingSlot = func(r *http.Request) { holdUntilDone(held)(r.Context()) }
	ts.testHookMCPCall = holdUntilDone(held)
	addr := strings.TrimPrefix(ts.URL, "http://")
	example := exampleInput(t)
	requests := [][]byte{
		rawPost(executePath, example),
		rawPost(executePath, example),
		rawPost(explainPath, example),
		rawPost("/mcp", mcpCallBody(t, 7, MCPToolName)),
	}
	var conns []net.Conn
	for _, req := range requests {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Write(req); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for range requests {
		select {
		case <-held:
		case <-time.After(10 * time.Second):
			t.Fatal("the requests did not reach their slots")
		}
	}
	if n := metricValue(t, ts, "citecheck_checks_in_flight"); n != 4 {
		t.Fatalf("checks_in_flight %v with four held, want 4", n)
	}
	for _, c := range conns {
		c.Close()
	}
	waitFor(t, "checks_in_flight back to 0", func() bool { return metricValue(t, ts, "citecheck_checks_in_flight") == 0 })
	stopped := `outcome="` + citecheck.CodeOverloaded + `"`
	waitFor(t, "three stopped HTTP checks logged", func() bool {
		return metricValue(t, ts, `citecheck_http_requests_total{`+stopped+`,route="POST /v1/tools/{id}/versions/{version}/execute"}`) == 2 &&
			metricValue(t, ts, `citecheck_http_requests_total{`+stopped+`,route="POST /v1/tools/{id}/versions/{version}/explain"}`) == 1
	})
	if n := metricValue(t, ts, `citecheck_mcp_tool_calls_total{`+stopped+`}`); n != 1 {
		t.Errorf("%v stopped MCP calls, want 1", n)
	}
	ts.testHookHoldingSlot, ts.testHookMCPCall = nil, nil
	if resp, out := post(t, ts.URL+executePath, example); resp.StatusCode != 200 {
		t.Errorf("after the hang-ups, execute answers %d %.200s", resp.StatusCode, out)
	}
}

// TestStoppedWorkStillWaitedForIsOverloaded: when the request's context
// ends while its client still waits (a deadline an embedding program set,
// or its cancellation), the client gets 503 overloaded, the error object
// saying the work stopped and why, with Retry-After, on execute and
// explain.
func TestStoppedWorkStillWaitedForIsOverloaded(t *testing.T) {
	t.Parallel()
	type cancelKey struct{}
	s := New(Config{})
	s.testHookHoldingSlot = func(r *http.Request) {
		if cancel, ok := r.Context().Value(cancelKey{}).(context.CancelFunc); ok {
			cancel()
		}
		<-r.Context().Done()
	}
	// The embedding program's middleware: a deadline, or a cancel func
	// the hook calls.
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithCancel(r.Context())
		if r.URL.Query().Get("deadline") != "" {
			ctx, cancel = context.WithTimeout(r.Context(), 50*time.Millisecond)
		} else {
			ctx = context.WithValue(ctx, cancelKey{}, cancel)
		}
		defer cancel()
		s.ServeHTTP(w, r.WithContext(ctx))
	})
	hs := httptest.NewServer(h)
	defer hs.Close()
	for _, path := range []string{executePath, explainPath} {
		for _, tc := range []struct{ query, what, why string }{
			{"", "cancelled", "context canceled"},
			{"?deadline=1", "past its deadline", "context deadline exceeded"},
		} {
			t.Run(path+"/"+tc.what, func(t *testing.T) {
				resp, out := post(t, hs.URL+path+tc.query, exampleInput(t))
				if resp.StatusCode != http.StatusServiceUnavailable {
					t.Fatalf("status %d, want 503: %.300s", resp.StatusCode, out)
				}
				e := errorOf(t, out)
				if e.Code != citecheck.CodeOverloaded || !strings.HasSuffix(e.Message, "stopped: "+tc.why) {
					t.Errorf("error %+v, want overloaded, stopped: %s", e, tc.why)
				}
				if resp.Header.Get("Retry-After") == "" {
					t.Error("no Retry-After")
				}
			})
		}
	}
}

// TestMCPCallStopsWhenItsHTTPClientGoesAway: an /mcp tool call of the
// protocol revisions the SDK does not tie to the HTTP request (2025-06-18
// here) still stops when its client hangs up, and gives its slot back.
func TestMCPCallStopsWhenItsHTTPClientGoesAway(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	held := make(chan struct{}, 1)
	ts.testHookMCPCall = holdUntilDone(held)
	for _, tool := range []string{MCPToolName, MCPExplainToolName, MCPQuotesToolName} {
		c, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		c.Write(rawPost("/mcp", mcpCallBody(t, 1, tool), "MCP-Protocol-Version: 2025-06-18"))
		select {
		case <-held:
		case <-time.After(10 * time.Second):
			t.Fatal("the call did not start")
		}
		c.Close()
		waitFor(t, tool+": checks_in_flight back to 0", func() bool { return metricValue(t, ts, "citecheck_checks_in_flight") == 0 })
	}
	waitFor(t, "three stopped calls counted", func() bool {
		return metricValue(t, ts, `citecheck_mcp_tool_calls_total{outcome="overloaded"}`) == 3
	})
}

// TestStdioCancelledCallIsStoppedAndNotAnswered: over stdio, a call the
// client cancels with notifications/cancelled stops (the engine sees its
// context done) and gets no response, as MCP asks of a receiver; the
// calls around it are answered.
func TestStdioCancelledCallIsStoppedAndNotAnswered(t *testing.T) {
	t.Parallel()
	held := make(chan struct{}, 1)
	outcomes := make(chan string, 4)
	first := true
	srv := newMCPServer(embeddedTool(), slog.New(slog.DiscardHandler), func(o string) { outcomes <- o }, func(ctx context.Context) {
		if first { // only the first call is held; the others run at once
			first = false
			holdUntilDone(held)(ctx)
		}
	})
	send, lines, done := stdioSession(t, srv)
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(string(mcpCallBody(t, 2, MCPToolName)))
	select {
	case <-held:
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not start")
	}
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the user gave up"}}`)
	if o := <-outcomes; o != citecheck.CodeOverloaded {
		t.Errorf("the cancelled call's outcome is %q, want overloaded (stopped)", o)
	}
	send(string(mcpCallBody(t, 3, MCPToolName)))
	send("")
	ids := map[string]bool{}
	for l := range lines {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		json.Unmarshal([]byte(l), &m)
		ids[string(m.ID)] = true
	}
	if err := <-done; err != nil {
		t.Logf("Run: %v", err)
	}
	if !ids["1"] || !ids["3"] || ids["2"] {
		t.Errorf("answered ids %v; want 1 and 3, and no answer to the cancelled 2", ids)
	}
}

// FuzzContentEncoding: checkContentEncoding never panics, refuses a
// request exactly when one of its Content-Encoding values lists a coding
// other than identity (any case; empty list members are no coding), and
// answers unsupported_media_type in one line.
func FuzzContentEncoding(f *testing.F) {
	for _, s := range []string{"", "identity", "IDENTITY", "gzip", "identity, gzip", " , ", "br,identity", "x\r\n", "iDeNtItY ,\tidentity"} {
		f.Add(s, "")
		f.Add("identity", s)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		r := &http.Request{Header: http.Header{"Content-Encoding": {a, b}}}
		e := checkContentEncoding(r)
		coded := false
		for _, v := range []string{a, b} {
			for _, tok := range strings.Split(v, ",") {
				for tok != "" && (tok[0] == ' ' || tok[0] == '\t') {
					tok = tok[1:]
				}
				for tok != "" && (tok[len(tok)-1] == ' ' || tok[len(tok)-1] == '\t') {
					tok = tok[:len(tok)-1]
				}
				if tok != "" && strings.ToLower(tok) != "identity" {
					coded = true
				}
			}
		}
		if (e != nil) != coded {
			t.Fatalf("values %q, %q: error %v, want refused %v", a, b, e, coded)
		}
		if e != nil && (e.Code != citecheck.CodeUnsupportedMedia || strings.ContainsAny(e.Message, "\r\n")) {
			t.Fatalf("error %+v", e)
		}
	})
}
