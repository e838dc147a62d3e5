package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/citecheck/citecheck"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tests of spec §4.3 and §5.7: nothing a client sends stops the process,
// and a stateless server announces no list changes.

// crashQuotesCall is the check_quotes call of issue 34 that panicked the
// Anthropic reader: a citation whose start_char_index is 2^63−1.
func crashQuotesCall(id int) string {
	response := `{"type":"message","content":[{"type":"text","text":"Born free.","citations":[{"type":"char_location","cited_text":"Les hommes","document_index":0,"start_char_index":9223372036854775807,"end_char_index":9223372036854775807}]}]}`
	request := `{"messages":[{"role":"user","content":[{"type":"document","source":{"type":"text","media_type":"text/plain","data":` +
		string(mustJSON(declaration)) + `}}]}]}`
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{"text":%s,"request":%s}}}`,
		id, MCPQuotesToolName, mustJSON(response), request)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// TestGuardFailsAPanickingRequestAlone: the middleware every MCP server
// runs turns a panic in a method's work into that request's answer, an
// internal tool error for a tool call (counted, naming the request id)
// or the JSON-RPC internal error for another method, logs the panic with
// the request id, and passes what does not panic through.
func TestGuardFailsAPanickingRequestAlone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, method string
		panics       bool
	}{
		{"a tool call that panics is an internal tool error", "tools/call", true},
		{"another method that panics is a JSON-RPC internal error", "tools/list", true},
		{"a tool call that does not panic passes through", "tools/call", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs syncBuffer
			var outcomes []string
			h := guard(slog.New(slog.NewJSONHandler(&logs, nil)), func(o string) { outcomes = append(outcomes, o) })(
				func(context.Context, string, mcp.Request) (mcp.Result, error) {
					if tc.panics {
						var m map[string]int
						m["boom"]++ // a nil map: a runtime panic, as a bug would be
					}
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fine"}}}, nil
				})
			req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "execute"},
				Extra: &mcp.RequestExtra{Header: http.Header{requestIDHeader: {"req-7"}}}}
			res, err := h(context.Background(), tc.method, req)
			if !tc.panics {
				if err != nil || res.(*mcp.CallToolResult).Content[0].(*mcp.TextContent).Text != "fine" || logs.String() != "" {
					t.Fatalf("%v %v, log %s", res, err, logs.String())
				}
				return
			}
			if !strings.Contains(logs.String(), `"request_id":"req-7"`) || !strings.Contains(logs.String(), "assignment to entry in nil map") {
				t.Errorf("log %s, want the panic with request_id req-7", logs.String())
			}
			if tc.method != "tools/call" {
				var je *jsonrpc.Error
				if res != nil || err == nil || !asJSONRPCError(err, &je) || je.Code != jsonrpc.CodeInternalError || !strings.Contains(je.Message, "req-7") {
					t.Fatalf("%v %v, want a JSON-RPC internal error naming req-7", res, err)
				}
				return
			}
			ctr := res.(*mcp.CallToolResult)
			e := errorOf(t, []byte(ctr.Content[0].(*mcp.TextContent).Text))
			if err != nil || !ctr.IsError || e.Code != citecheck.CodeInternal || !strings.Contains(e.Message, "req-7") ||
				strings.Contains(e.Message, "nil map") || fmt.Sprint(outcomes) != "[internal]" {
				t.Fatalf("%+v %v %+v, outcomes %v", ctr, err, e, outcomes)
			}
		})
	}
}

func asJSONRPCError(err error, je **jsonrpc.Error) bool {
	e, ok := err.(*jsonrpc.Error)
	*je = e
	return ok
}

// TestCrashInputOverMCPLeavesTheServerServing: the check_quotes call
// that panicked `citecheck serve` is answered over /mcp (a JSON-RPC
// response, whatever its verdict), and the server answers the calls and
// requests after it.
func TestCrashInputOverMCPLeavesTheServerServing(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	for i := range 2 {
		resp, out := mcpPost(t, ts, []byte(crashQuotesCall(i+1)), nil)
		var m struct {
			Result *mcp.CallToolResult
		}
		if resp.StatusCode != 200 || json.Unmarshal(out, &m) != nil || m.Result == nil {
			t.Fatalf("crash call %d: %d %.300s", i, resp.StatusCode, out)
		}
	}
	if resp, out := mcpPost(t, ts, mcpCallBody(t, 3, MCPToolName), nil); resp.StatusCode != 200 || !bytes.Contains(out, []byte(`"valid":true`)) {
		t.Fatalf("execute over /mcp after the crash input: %d %.300s", resp.StatusCode, out)
	}
	if resp, out := post(t, ts.URL+executePath, exampleInput(t)); resp.StatusCode != 200 {
		t.Fatalf("execute after the crash input: %d %.300s", resp.StatusCode, out)
	}
}

// stdioSession runs srv over the stdio transport on pipes until the test
// ends: send writes a line (send("") closes the client's side, as a client
// that is done), lines yields every line answered, done Run's end.
func stdioSession(t *testing.T, srv *mcp.Server) (send func(string), lines <-chan string, done <-chan error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	errc := make(chan error, 1)
	go func() { errc <- srv.Run(ctx, NewStdioTransport(inR, outW)); outW.Close() }()
	out := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<22)
		for sc.Scan() {
			out <- sc.Text()
		}
		close(out)
	}()
	t.Cleanup(func() { inW.Close() })
	return func(msg string) {
		if msg == "" {
			inW.Close()
			return
		}
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
	}, out, errc
}

// nextLine is the next answered line, failing after 10 s.
func nextLine(t *testing.T, lines <-chan string) string {
	t.Helper()
	select {
	case l, ok := <-lines:
		if !ok {
			t.Fatal("the server stopped answering")
		}
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("no answer")
	}
	return ""
}

const stdioInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

// TestCrashInputOverStdioLeavesTheServerServing: over stdio, the crash
// call is answered, the call after it too, and the session goes on.
func TestCrashInputOverStdioLeavesTheServerServing(t *testing.T) {
	t.Parallel()
	send, lines, done := stdioSession(t, NewMCPServer())
	send(stdioInit)
	nextLine(t, lines)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(crashQuotesCall(2))
	if l := nextLine(t, lines); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":2,"result":`) {
		t.Fatalf("crash call answered %.300s", l)
	}
	send(string(mcpCallBody(t, 3, MCPToolName)))
	if l := nextLine(t, lines); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":3,"result":`) || !strings.Contains(l, `\"valid\":true`) {
		t.Fatalf("call after the crash answered %.300s", l)
	}
	select {
	case err := <-done:
		t.Fatalf("the session ended: %v", err)
	default:
	}
}

// TestPanicInACheckSlotFailsThatRequestAlone: a panic while an execute
// request holds its check slot answers it 500 internal, naming its
// request id, which the log line of the panic carries too; the slot and
// its body memory come back and the next request is answered 200.
func TestPanicInACheckSlotFailsThatRequestAlone(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	ts := start(t, Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	ts.testHookHoldingSlot = func(r *http.Request) {
		if r.URL.Query().Has("panic") {
			panic("a bug in a check")
		}
	}
	resp, out := post(t, ts.URL+executePath+"?panic", exampleInput(t))
	e := errorOf(t, out)
	if resp.StatusCode != 500 || e.Code != citecheck.CodeInternal || strings.Contains(e.Message, "a bug") {
		t.Fatalf("%d %.300s", resp.StatusCode, out)
	}
	id := strings.TrimPrefix(e.Message, "internal error; it is logged as request ")
	if id == e.Message || !strings.Contains(logs.String(), `"request_id":"`+id+`"`) {
		t.Fatalf("message %q; log %s", e.Message, logs.String())
	}
	waitFor(t, "the slot and the body memory back", func() bool {
		return metricValue(t, ts, "citecheck_checks_in_flight") == 0 && ts.bodies.inUse() == 0
	})
	if resp, out := post(t, ts.URL+executePath, exampleInput(t)); resp.StatusCode != 200 {
		t.Fatalf("after the panic: %d %.300s", resp.StatusCode, out)
	}
}

// TestInitializeAnnouncesNoListChanged: over both transports, initialize
// announces the tools capability without listChanged (the tools never
// change, and a stateless server has no session to say so on), and no
// logging, which the server never sends.
func TestInitializeAnnouncesNoListChanged(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	_, overHTTP := mcpPost(t, ts, []byte(stdioInit), nil)
	send, lines, _ := stdioSession(t, NewMCPServer())
	send(stdioInit)
	overStdio := nextLine(t, lines)
	for name, answer := range map[string]string{"http": string(overHTTP), "stdio": overStdio} {
		var m struct {
			Result struct {
				Capabilities map[string]json.RawMessage
			}
		}
		if err := json.Unmarshal([]byte(answer), &m); err != nil {
			t.Fatalf("%s: %v %s", name, err, answer)
		}
		caps := m.Result.Capabilities
		if string(caps["tools"]) != "{}" || len(caps) != 1 {
			t.Errorf("%s: capabilities %s, want only tools: {}", name, answer)
		}
	}
}

// TestMCPHangUpIsLoggedAsStopped: an /mcp call whose client hangs up
// while it runs (held by a hook until its context ends) is logged and
// counted as execute's stopped checks are: 503 overloaded, for each tool.
func TestMCPHangUpIsLoggedAsStopped(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	ts := start(t, Config{Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	held := make(chan struct{}, 1)
	ts.testHookMCPCall = holdUntilDone(held)
	tools := []string{MCPToolName, MCPExplainToolName, MCPQuotesToolName}
	for _, tool := range tools {
		hangUpMidCall(t, ts, held, mcpCallBody(t, 1, tool))
	}
	waitFor(t, "three /mcp hang-ups logged", func() bool {
		return metricValue(t, ts, `citecheck_http_requests_total{outcome="overloaded",route="POST /mcp"}`) == 3
	})
	n := 0
	for _, l := range strings.Split(logs.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "request" && m["route"] == "POST /mcp" {
			n++
			if m["status"] != float64(503) || m["outcome"] != citecheck.CodeOverloaded {
				t.Errorf("access log %s, want 503 overloaded", l)
			}
		}
	}
	if n != len(tools) {
		t.Errorf("%d /mcp access log lines, want %d", n, len(tools))
	}
}

// hangUpMidCall sends body to /mcp, waits until the hook holds its call,
// hangs up, and waits until its check slot is back.
func hangUpMidCall(t *testing.T, ts *testServer, held <-chan struct{}, body []byte) {
	t.Helper()
	c, err := (&net.Dialer{}).Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	c.Write(rawPost("/mcp", body, "MCP-Protocol-Version: 2025-06-18"))
	select {
	case <-held:
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not start")
	}
	c.Close()
	waitFor(t, "checks_in_flight back to 0", func() bool { return metricValue(t, ts, "citecheck_checks_in_flight") == 0 })
}
