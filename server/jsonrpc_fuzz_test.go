package server

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// FuzzVetMessage: vetMessage and mcpCost never panic, a cost is within
// its bounds, a refusal is answered with small valid JSON; a message it lets through that
// the SDK decodes as a request is answered under the very id it was sent
// with (the SDK's own encoding of the id equals the one sent, numerically
// and in spelling); one it refuses as not JSON is not JSON; one it lets
// through nests within the SDK's bound, and the SDK decodes it.
func FuzzVetMessage(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":"x","method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, `{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":-0,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `not json`, `{}`, `123`, `{"id":1e2}`,
		`{"jsonrpc":"2.0","id":"\ud800","method":"ping"}`, "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}",
		`{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}`, `{"jsonrpc":"2.0","id":-9007199254740991,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call"}`, `{"jsonrpc":"2.0","id":1,"method":"foo/bar"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute","name":"explain","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"check_quotes","arguments":{"text":"a","text":"b"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":1e400},"name":"execute"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":5}}`, `{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":5}}`, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + strings.Repeat("a", 1<<16) + `"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"a":{"b":{"c":1,"c":2}}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":"x"}}`, `{"jsonrpc":"2.0","id":1,"error":{"code":1e400,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":9223372036854775808,"message":"m"}}`, `{"jsonrpc":"2.0","id":1,"error":"x"}`,
		`{"jsonrpc":"2.0","id":1,"result":1,"error":{"code":1,"message":"m"}}`, `{"jsonrpc":"2.0","id":null,"result":{}}`,
		"\uFEFF" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"zzz"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","x":` + strings.Repeat("[", 999) + strings.Repeat("]", 999) + `}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","x":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`,
		`{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat(`{"a":`, 2000) + "1" + strings.Repeat("}", 2000) + `}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","x":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","x":"` + strings.Repeat(`[\"`, 2000) + `"}`, strings.Repeat("[", 20000),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		p := vetMessage(msg)
		lenient := []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
		if p != nil && p.code == jsonrpc.CodeParseError && jsontext.Value(bytes.TrimSpace(msg)).IsValid(lenient...) {
			t.Fatalf("valid JSON refused as a parse error: %q", msg)
		}
		if c := mcpCost(msg); c < 0 || c > max(int64(len(msg)), citecheck.MaxScanUnits)*explainCostFactor {
			t.Fatalf("cost %d of a %d-byte message", c, len(msg))
		}
		if p != nil {
			// Its answer is JSON, and small: the message is cut, only the
			// id is repeated whole (and it is bounded by the message).
			out := rpcError(p)
			if !jsontext.Value(out).IsValid() || len(out) > 2048+6*len(p.id) {
				t.Fatalf("answer %.300q (%d bytes) of %.300q", out, len(out), msg)
			}
			return
		}
		if d := nesting(msg); d > maxRPCDepth {
			t.Fatalf("a message nesting %d levels passed", d)
		}
		m, err := jsonrpc.DecodeMessage(msg)
		if err != nil {
			// The SDK's words would reach the client (over /mcp, its
			// "malformed payload: …" with Go type names).
			t.Fatalf("passed, and the SDK refuses it: %v: %.300q", err, msg)
		}
		req, ok := m.(*jsonrpc.Request)
		if !ok || !req.IsCall() {
			return
		}
		var sent struct{ ID json.RawMessage }
		if json.Unmarshal(msg, &sent) != nil || len(sent.ID) == 0 {
			return // the SDK's decoder and encoding/json disagree on a malformed body; nothing to compare
		}
		answered, err := json.Marshal(req.ID.Raw())
		if err != nil {
			t.Fatal(err)
		}
		if sent.ID[0] != '"' && !bytes.Equal(answered, sent.ID) {
			t.Fatalf("id %s would be answered as %s", sent.ID, answered)
		}
	})
}

// FuzzCannedError: cannedError never panics, recognises only error
// statuses, and never takes a handler's answer (which has a Date header)
// for one of net/http's own.
func FuzzCannedError(f *testing.F) {
	f.Add([]byte("HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large"))
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nDate: x\r\n\r\nok"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, status, ok := cannedError(b)
		if !ok {
			return
		}
		if status < 400 || e == nil {
			t.Fatalf("status %d recognised", status)
		}
		head, _, _ := bytes.Cut(b, []byte("\r\n\r\n"))
		if bytes.Contains(head, []byte("\r\nDate:")) {
			t.Fatalf("a head with a Date header recognised: %q", b)
		}
	})
}
