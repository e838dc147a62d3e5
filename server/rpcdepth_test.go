package server

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
)

// Tests of the envelope rules of spec §4.3 that both transports answer
// alike: how deep a message may nest, what a response must hold, a byte
// order mark, a cursor. Each message is sent over /mcp and over stdio.

// envelopeCase is one message and the answer both transports owe it:
// under id 9 with code (over /mcp, HTTP 200), or, when id is "null", a
// JSON-RPC error with a null id over stdio and 400 invalid_input over
// /mcp; either way with a message holding want.
type envelopeCase struct {
	name, msg string
	id        string
	code      int
	want      string
}

// checkEnvelopeCases sends each case over both transports and checks the
// answer: its id, its code, its words, and that it names no Go type or
// library.
func checkEnvelopeCases(t *testing.T, cases []envelopeCase) {
	t.Helper()
	ts := start(t, Config{})
	for _, tc := range cases {
		check := func(transport string, id string, code int, message, raw string) {
			t.Helper()
			if id != tc.id || code != tc.code || !strings.Contains(message, tc.want) {
				t.Errorf("%s: %s: id %s code %d %q, want id %s code %d and %q", transport, tc.name, id, code, message, tc.id, tc.code, tc.want)
			}
			for _, word := range []string{"mcp.", "json:", "jsontext", "unmarshal", "Go ", "malformed payload", "jsonrpc2", "int64", "not one JSON value"} {
				if strings.Contains(message, word) {
					t.Errorf("%s: %s: message %q names %q", transport, tc.name, message, word)
				}
			}
			if len(raw) > 1024 {
				t.Errorf("%s: %s: answer of %d bytes", transport, tc.name, len(raw))
			}
		}
		t.Run(tc.name, func(t *testing.T) {
			resp, out := mcpPost(t, ts, []byte(tc.msg), nil)
			if tc.id == "null" {
				var e struct {
					Error struct{ Code, Message string }
				}
				if resp.StatusCode != 400 || json.Unmarshal(out, &e) != nil || e.Error.Code != "invalid_input" ||
					!strings.HasPrefix(e.Error.Message, "mcp: ") {
					t.Errorf("http: %s: %d %.300s", tc.name, resp.StatusCode, out)
				}
				msg, _ := strings.CutPrefix(e.Error.Message, "mcp: ")
				check("http", "null", tc.code, msg, string(out))
			} else {
				var a rpcAnswer
				if resp.StatusCode != 200 || json.Unmarshal(out, &a) != nil || a.Error == nil {
					t.Errorf("http: %s: %d %.300s", tc.name, resp.StatusCode, out)
				} else {
					check("http", string(a.ID), a.Error.Code, a.Error.Message, string(out))
				}
			}
			send, lines, _ := stdioSession(t, NewMCPServer())
			send(stdioInit)
			nextLine(t, lines)
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			send(tc.msg)
			line := nextLine(t, lines)
			var a rpcAnswer
			if json.Unmarshal([]byte(line), &a) != nil || a.Error == nil {
				t.Errorf("stdio: %s: %.300s", tc.name, line)
				return
			}
			check("stdio", string(a.ID), a.Error.Code, a.Error.Message, line)
		})
	}
}

// nested is open×n, inner, close×n.
func nested(open, inner, close string, n int) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

// executeWithInput is a tools/call of execute, id 9, whose input is input.
func executeWithInput(input string) string {
	return `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"execute","arguments":{"id":"citation-batch-check","version":"1.0.0","input":` + input + `}}}`
}

// TestMessageNestsAtMost1000Levels: a message nested deeper than the
// SDK reads (maxRPCDepth, the message's own object the first level) is
// answered −32600 under its id, saying how deep it nests and what is
// counted; one nested deeper than jsontext reads, −32600 with a null id,
// saying so; a response, with a null id. A message at the bound passes.
func TestMessageNestsAtMost1000Levels(t *testing.T) {
	t.Parallel()
	checkEnvelopeCases(t, []envelopeCase{
		{"execute input 2,000 arrays deep", executeWithInput(`{"sources":` + nested("[", "", "]", 2000) + `}`),
			"9", -32600, "the message nests 2004 levels deep; an MCP message may nest at most 1000 levels, counting the objects and arrays open at once, the message's own object being the first"},
		{"execute input one level too deep", executeWithInput(`{"sources":` + nested("[", "", "]", 997) + `}`),
			"9", -32600, "the message nests 1001 levels deep"},
		{"check_quotes request 2,000 objects deep",
			`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"check_quotes","arguments":{"text":"a","request":` + nested(`{"a":`, "1", "}", 2000) + `}}}`,
			"9", -32600, "nests 2003 levels deep"},
		{"ping with _meta 2,000 deep", `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"_meta":` + nested(`{"a":`, "1", "}", 2000) + `}}`,
			"9", -32600, "nests 2002 levels deep"},
		{"an unknown member 5,000 deep", `{"jsonrpc":"2.0","id":9,"method":"ping","x":` + nested("[", "", "]", 5000) + `}`,
			"9", -32600, "nests 5001 levels deep"},
		{"brackets in strings are not counted", `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"_meta":{"s":"` + strings.Repeat(`[{\"`, 3000) + `"}},"x":` + nested("[", "", "]", 1500) + `}`,
			"9", -32600, "nests 1501 levels deep"},
		{"response 2,000 deep", `{"jsonrpc":"2.0","id":9,"result":` + nested("[", "", "]", 2000) + `}`,
			"null", -32600, "nests 2001 levels deep"},
		{"20,000 deep, beyond what is read", executeWithInput(nested("[", "", "]", 20000)),
			"null", -32600, "the message nests 20003 levels deep, beyond the 10000 this server reads, so not even its id could be read; an MCP message may nest at most 1000"},
	})
}

// TestMessageAtTheDepthBoundReachesItsTool: execute's input may nest 997
// levels (the message 1000): the call reaches the tool, which answers it
// (here a tool error: sources of arrays are no sources), over both
// transports.
func TestMessageAtTheDepthBoundReachesItsTool(t *testing.T) {
	t.Parallel()
	msg := executeWithInput(`{"sources":` + nested("[", "", "]", 996) + `}`)
	if d := nesting([]byte(msg)); d != maxRPCDepth {
		t.Fatalf("the message nests %d levels, want %d", d, maxRPCDepth)
	}
	ok := func(transport, out string) {
		t.Helper()
		if !strings.HasPrefix(out, `{"jsonrpc":"2.0","id":9,"result":`) || !strings.Contains(out, `"isError":true`) || !strings.Contains(out, `invalid_input`) {
			t.Errorf("%s: %.300s", transport, out)
		}
	}
	ts := start(t, Config{})
	_, out := mcpPost(t, ts, []byte(msg), nil)
	ok("http", string(out))
	send, lines, _ := stdioSession(t, NewMCPServer())
	send(stdioInit)
	nextLine(t, lines)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(msg)
	ok("stdio", nextLine(t, lines))
}

// TestResponseIsJudgedAsJSONRPCDefinesIt: a response-shaped message
// whose members are not as JSON-RPC 2.0 §5 defines them is answered
// −32600 in plain words naming the member, with a null id (a response is
// not answered under its id), over /mcp (400) as over stdio.
func TestResponseIsJudgedAsJSONRPCDefinesIt(t *testing.T) {
	t.Parallel()
	resp := func(rest string) string { return `{"jsonrpc":"2.0","id":9,` + rest + `}` }
	checkEnvelopeCases(t, []envelopeCase{
		{"code a string", resp(`"error":{"code":"x"}`), "null", -32600, `Invalid Request: /error/code: must be an integer within ±(2^53−1) written plainly, not "x"`},
		{"code 1e400", resp(`"error":{"code":1e400,"message":"m"}`), "null", -32600, "/error/code: must be an integer within ±(2^53−1) written plainly, not 1e400"},
		{"code 1.5", resp(`"error":{"code":1.5,"message":"m"}`), "null", -32600, "/error/code: must be an integer"},
		{"code missing", resp(`"error":{"message":"m"}`), "null", -32600, "/error/code: is missing"},
		{"message a number", resp(`"error":{"code":1,"message":7}`), "null", -32600, "/error/message: must be a string, not a number"},
		{"message missing", resp(`"error":{"code":1}`), "null", -32600, "/error/message: is missing"},
		{"error a string", resp(`"error":"x"`), "null", -32600, "/error: must be an object, not a string"},
		{"error null", resp(`"error":null`), "null", -32600, "/error: must be an object, not null"},
		{"result and error", resp(`"result":{},"error":{"code":1,"message":"m"}`), "null", -32600, "/error: and /result are both present"},
		{"no id", `{"jsonrpc":"2.0","result":{}}`, "null", -32600, "/id: is missing or null"},
		{"null id", `{"jsonrpc":"2.0","id":null,"result":{}}`, "null", -32600, "/id: is missing or null"},
	})
}

// TestEnvelopeWordsForBOMAndCursor: a byte order mark before a message is
// a parse error saying so (null id; over /mcp 400); a cursor this server
// never gave is −32602 naming /params/cursor and why.
func TestEnvelopeWordsForBOMAndCursor(t *testing.T) {
	t.Parallel()
	checkEnvelopeCases(t, []envelopeCase{
		{"BOM", "\uFEFF" + `{"jsonrpc":"2.0","id":9,"method":"ping"}`, "null", -32700,
			"Parse error: a byte order mark (U+FEFF) before the message: send the JSON without it"},
		{"cursor zzz", `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"cursor":"zzz"}}`, "9", -32602,
			"Invalid params: /params/cursor: zzz is not a cursor this server gave: it gives none, as every list fits one page; leave cursor out"},
	})
}

// TestQuotesArgumentsOverMaxInputBytesSayArguments: a check_quotes call
// whose arguments are over max_input_bytes is refused limit_exceeded at
// "" (the arguments object), saying that the arguments are that big, not
// a body, over both transports.
func TestQuotesArgumentsOverMaxInputBytesSayArguments(t *testing.T) {
	t.Parallel()
	args := `{"text":"` + strings.Repeat("a", citecheck.MaxInputBytes) + `"}`
	msg := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"check_quotes","arguments":` + args + `}}`
	want := fmt.Sprintf(`{"error":{"code":"limit_exceeded","message":"arguments: the arguments are %d bytes, over max_input_bytes %d (they hold the text and the sources)","path":"","limit":"max_input_bytes","max":%d,"actual":%d}}`,
		len(args), citecheck.MaxInputBytes, citecheck.MaxInputBytes, len(args))
	check := func(transport, out string) {
		t.Helper()
		var a struct {
			Result struct {
				IsError bool
				Content []struct{ Text string }
			}
		}
		if json.Unmarshal([]byte(out), &a) != nil || !a.Result.IsError || len(a.Result.Content) != 1 || a.Result.Content[0].Text != want {
			t.Errorf("%s: %.600s\nwant %s", transport, out, want)
		}
	}
	ts := start(t, Config{})
	_, out := mcpPost(t, ts, []byte(msg), nil)
	check("http", string(out))
	send, lines, _ := stdioSession(t, NewMCPServer())
	send(stdioInit)
	nextLine(t, lines)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(msg)
	check("stdio", nextLine(t, lines))
}

// TestEnvelopeJudgeIsLinear: judging a message costs memory linear in it
// whatever its depth: a member's JSON Pointer, which costs the depth, is
// built only for the duplicate reported. 100,000 members 990 levels deep
// once cost 990 pointers' bytes each (about 200 MB for a 1 MB message).
func TestEnvelopeJudgeIsLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":1,"method":"ping","x":` + strings.Repeat(`{"a":`, 990) + `{`)
	for i := range 100_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"m%d":0`, i)
	}
	b.WriteString(strings.Repeat("}", 991) + `}`)
	msg := []byte(b.String())
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	p := vetMessage(msg)
	runtime.ReadMemStats(&after)
	if p != nil {
		t.Fatalf("refused: %s", p.message)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > uint64(32*len(msg)) {
		t.Errorf("judging a %d-byte message allocated %d bytes, over 32 a byte", len(msg), n)
	}
}
