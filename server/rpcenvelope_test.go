package server

import (
	"encoding/json"
	"strings"
	"testing"
)

// Tests of spec §4.3 and §5.7: every JSON-RPC error says in plain words
// what is wrong with which member, with a code JSON-RPC defines, cut as
// every echo of input is; both transports answer alike.

// rpcAnswer is a JSON-RPC answer as a test reads it.
type rpcAnswer struct {
	ID    json.RawMessage
	Error *struct {
		Code    int
		Message string
	}
}

// TestJSONRPCErrorsArePlainWithAPointer: each message is answered, over
// /mcp (HTTP 200) and over stdio, with the JSON-RPC error of its code,
// under its id, whose message names the member by its JSON Pointer, names
// no Go type or library, and is at most a few hundred bytes whatever the
// message holds.
func TestJSONRPCErrorsArePlainWithAPointer(t *testing.T) {
	t.Parallel()
	pad := strings.Repeat("a", 1<<20)
	call := func(params string) string {
		return `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":` + params + `}`
	}
	for _, tc := range []struct {
		name, msg string
		code      int
		want      string
	}{
		{"params not an object", call(`[1]`), -32602, "/params: must be an object, not an array"},
		{"tool name not a string", call(`{"name":5,"arguments":{}}`), -32602, "/params/name: must be a string, not a number"},
		{"tool name missing", call(`{"arguments":{}}`), -32602, "/params/name: is missing"},
		{"unknown tool, 1 MB name", call(`{"name":"` + pad + `","arguments":{}}`), -32602, "/params/name: no tool is named aaa"},
		{"arguments not an object", call(`{"name":"execute","arguments":[]}`), -32602, "/params/arguments: must be an object, not an array"},
		{"_meta not an object, padded", call(`{"_meta":5,"name":"execute","pad":"` + pad + `"}`), -32602, "/params/_meta: must be an object, not a number"},
		{"progress token out of range", call(`{"_meta":{"progressToken":1e400},"name":"execute"}`), -32602, "/params/_meta/progressToken: must be a string or an integer"},
		{"cursor not a string, padded", `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":5,"pad":"` + pad + `"}}`, -32602, "/params/cursor: must be a string, not a number"},
		{"protocolVersion not a string", `{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":5,"capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`, -32602, "/params/protocolVersion: must be a string"},
		{"clientInfo name not a string", `{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":1,"version":"0"}}}`, -32602, "/params/clientInfo/name: must be a string"},
		{"unknown method", `{"jsonrpc":"2.0","id":9,"method":"foo/bar"}`, -32601, "Method not found: foo/bar is not a method this server serves"},
		{"unknown method, 1 MB", `{"jsonrpc":"2.0","id":9,"method":"` + pad + `"}`, -32601, "(1048576 bytes) is not a method"},
		{"method not a string", `{"jsonrpc":"2.0","id":9,"method":5}`, -32600, "/method: must be a string, not a number"},
		{"no method", `{"jsonrpc":"2.0","id":9}`, -32600, "/method: is missing"},
		{"method named twice", `{"jsonrpc":"2.0","id":9,"method":"ping","method":"tools/call","params":{"name":"execute"}}`, -32600, "/method: named twice"},
		{"tool name named twice", call(`{"name":"execute","name":"explain","arguments":{}}`), -32602, "/params/name: named twice"},
		{"_meta member named twice", call(`{"name":"execute","_meta":{"a":1,"a":2},"arguments":{}}`), -32602, "/params/_meta/a: named twice"},
		{"params named twice", call(`{"name":"execute"},"params":{"name":"explain"}`), -32600, "/params: named twice"},
	} {
		check := func(transport, line string) {
			t.Helper()
			var a rpcAnswer
			if err := json.Unmarshal([]byte(line), &a); err != nil || a.Error == nil {
				t.Errorf("%s: %s: answered %.300s", transport, tc.name, line)
				return
			}
			if a.Error.Code != tc.code || string(a.ID) != "9" || !strings.Contains(a.Error.Message, tc.want) {
				t.Errorf("%s: %s: id %s code %d %q, want id 9 code %d and %q", transport, tc.name, a.ID, a.Error.Code, a.Error.Message, tc.code, tc.want)
			}
			if len(line) > 1024 {
				t.Errorf("%s: %s: answer of %d bytes", transport, tc.name, len(line))
			}
			for _, word := range []string{"*mcp.", "mcp.", "json:", "jsontext", "unmarshal", "Go ", "malformed payload"} {
				if strings.Contains(a.Error.Message, word) {
					t.Errorf("%s: %s: message %q names %q", transport, tc.name, a.Error.Message, word)
				}
			}
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ts := start(t, Config{})
			resp, out := mcpPost(t, ts, []byte(tc.msg), nil)
			if resp.StatusCode != 200 {
				t.Errorf("http: %s: status %d: %.300s", tc.name, resp.StatusCode, out)
			}
			check("http", string(out))
			send, lines, _ := stdioSession(t, NewMCPServer())
			send(stdioInit)
			nextLine(t, lines)
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			send(tc.msg)
			check("stdio", nextLine(t, lines))
		})
	}
}

// TestWrongJSONRPCVersionIsNoRequest: a message whose jsonrpc is not
// "2.0" is no JSON-RPC 2.0 request, so it has no id to answer under:
// over stdio −32600 with a null id, over /mcp 400, both naming /jsonrpc.
func TestWrongJSONRPCVersionIsNoRequest(t *testing.T) {
	t.Parallel()
	msg := `{"jsonrpc":"1.0","id":9,"method":"ping"}`
	ts := start(t, Config{})
	resp, out := mcpPost(t, ts, []byte(msg), nil)
	if resp.StatusCode != 400 || !strings.Contains(string(out), `/jsonrpc: must be \"2.0\"`) {
		t.Errorf("http: %d %.300s", resp.StatusCode, out)
	}
	send, lines, _ := stdioSession(t, NewMCPServer())
	send(msg)
	if l := nextLine(t, lines); !strings.HasPrefix(l, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: /jsonrpc: must be \"2.0\""`) {
		t.Errorf("stdio: %.300s", l)
	}
}

// TestDuplicatesInsideArgumentsAreTheToolsToJudge: a member named twice
// inside a tool call's arguments reaches the tool, which refuses it as a
// tool error (spec §4.3), not as a JSON-RPC error.
func TestDuplicatesInsideArgumentsAreTheToolsToJudge(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	resp, out := mcpPost(t, ts, []byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"check_quotes","arguments":{"text":"a","text":"b"}}}`), nil)
	if resp.StatusCode != 200 || !strings.Contains(string(out), `"isError":true`) {
		t.Fatalf("%d %.300s", resp.StatusCode, out)
	}
}
