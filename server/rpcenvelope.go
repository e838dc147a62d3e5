package server

import (
	"bytes"
	"slices"
	"strings"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/jsonenc"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// The JSON-RPC envelope of an MCP message, judged before the SDK reads
// it, so that every error says in plain words what is wrong with which
// member (a JSON Pointer into the message) and names no Go type, and so
// that both transports answer alike (spec §4.3):
//
//   - a member named twice in the envelope (anywhere but inside a tool
//     call's arguments, which the tool judges) is −32600: the SDK keeps the
//     last, so "method":"ping","method":"tools/call" would run the call;
//   - "jsonrpc" other than "2.0", or no method in a message that is no
//     response, is −32600; a method the server does not serve is −32601;
//   - params that are not an object, or a member of them of the wrong
//     kind (a tool name that is not a string or names no tool, a cursor
//     that is not a string, a _meta that is not an object, a progress
//     token that is neither a string nor an integer within ±(2^53−1), an
//     initialize member of the wrong kind), and a cursor (this server
//     never gives one), are −32602;
//   - a message nesting deeper than the SDK reads (maxRPCDepth) is −32600;
//   - a response (result or error, no method) without an id, with both
//     result and error, or whose error is not an object of an integer
//     code and a string message, is −32600 with a null id: the SDK would
//     refuse it in its Go types' words, and a response is not answered.
//
// Each is answered under the request's id (null if it has none, or if
// the message is not JSON-RPC 2.0). Cost:
// linear in the message: one walk of the envelope, none of the
// arguments beyond skipping them.

// servedMethods are the methods the MCP server answers (the SDK's table).
var servedMethods = []string{
	"initialize", "ping", "tools/list", "tools/call",
	"prompts/list", "prompts/get", "resources/list", "resources/templates/list", "resources/read",
	"resources/subscribe", "resources/unsubscribe", "completion/complete", "logging/setLevel",
	"notifications/initialized", "notifications/cancelled", "notifications/progress", "notifications/roots/list_changed",
}

// toolNames are the tools a tools/call may name.
var toolNames = []string{MCPToolName, MCPExplainToolName, MCPQuotesToolName}

// member is one member of an object: its name and value.
type member struct {
	name  string
	value jsontext.Value
}

// members reads the members of the object v (leniently: duplicate names
// and invalid UTF-8 are the caller's to judge), or nil if v is not one.
// Linear in v: each member's value is copied once (a decoder's value is
// valid only until its next read).
func members(v jsontext.Value) []member {
	if v.Kind() != '{' {
		return nil
	}
	dec := newArgumentDecoder(v)
	dec.ReadToken()
	var ms []member
	for dec.PeekKind() == '"' {
		tok, _ := dec.ReadToken()
		name := tok.String()
		val, err := dec.ReadValue()
		if err != nil {
			break
		}
		ms = append(ms, member{name, bytes.Clone(val)})
	}
	return ms
}

// twice is the pointer of the first member named twice in msg, skipping
// the value of the member parent/child of its top object (params/arguments);
// "" if there is none. One streaming pass: linear in msg, with a set of
// names for each object open. A member's pointer is built only for the
// duplicate found (building it costs the depth and its names, so building
// one for every member would cost the message times its depth).
func twice(msg jsontext.Value, parent, child string) string {
	dec := newArgumentDecoder(msg)
	var open []map[string]bool // nil for an array
	top := ""                  // the name of the top object's member being read
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return ""
		}
		switch tok.Kind() {
		case '{':
			open = append(open, map[string]bool{})
			continue
		case '[':
			open = append(open, nil)
			continue
		case '}', ']':
			open = open[:len(open)-1]
			continue
		}
		depth := dec.StackDepth()
		if len(open) == 0 || depth == 0 {
			continue
		}
		names := open[len(open)-1]
		if kind, n := dec.StackIndex(depth); kind != '{' || n%2 == 0 || names == nil {
			continue // a value, not a member name
		}
		name := tok.String()
		if names[name] {
			return string(dec.StackPointer())
		}
		names[name] = true
		switch {
		case depth == 1:
			top = name
		case depth == 2 && top == parent && name == child:
			if dec.SkipValue() != nil {
				return ""
			}
		}
	}
}

// vetEnvelope judges the envelope of the message object msg, whose id
// vetMessage has already judged (id is its value, nil if none), and which
// nests depth levels deep (nesting).
func vetEnvelope(msg jsontext.Value, id jsontext.Value, depth int) *rpcProblem {
	bad := func(code int64, path, what string) *rpcProblem {
		p := &rpcProblem{code: code, message: what, id: id}
		if path != "" {
			p.message = path + ": " + what
		}
		switch code {
		case jsonrpc.CodeInvalidRequest:
			p.message = "Invalid Request: " + p.message
		case jsonrpc.CodeMethodNotFound:
			p.message = "Method not found: " + p.message
		case jsonrpc.CodeInvalidParams:
			p.message = "Invalid params: " + p.message
		}
		return p
	}
	if d := twice(msg, "params", "arguments"); d != "" {
		code := int64(jsonrpc.CodeInvalidRequest)
		if strings.HasPrefix(d, "/params/") {
			code = jsonrpc.CodeInvalidParams
		}
		return bad(code, d, "named twice; name each member once")
	}
	var version, method, params, result, rpcErr jsontext.Value
	for _, m := range members(msg) {
		switch m.name {
		case "jsonrpc":
			version = m.value
		case "method":
			method = m.value
		case "params":
			params = m.value
		case "result":
			result = m.value
		case "error":
			rpcErr = m.value
		}
	}
	response := result != nil || rpcErr != nil
	if string(version) != `"2.0"` {
		// Not a JSON-RPC 2.0 message at all, so no id of one: null.
		p := bad(jsonrpc.CodeInvalidRequest, "/jsonrpc", `must be "2.0"`)
		p.id = nil
		return p
	}
	if method == nil {
		if !response {
			return bad(jsonrpc.CodeInvalidRequest, "/method", "is missing; a request names its method")
		}
		if p := vetResponse(bad, id, result, rpcErr); p != nil {
			p.id = nil // a response is not answered under its id: that id is not one of our requests
			return p
		}
		if depth > maxRPCDepth {
			return &rpcProblem{code: jsonrpc.CodeInvalidRequest, message: tooDeep(depth)}
		}
		return nil
	}
	if method.Kind() != '"' {
		return bad(jsonrpc.CodeInvalidRequest, "/method", "must be a string, not "+jsonenc.KindName(byte(method.Kind())))
	}
	name := unquote(method)
	if !slices.Contains(servedMethods, name) {
		return bad(jsonrpc.CodeMethodNotFound, "", citecheck.Echo(name).String()+" is not a method this server serves; it serves "+strings.Join(servedMethods, ", "))
	}
	deep := func() *rpcProblem {
		if depth > maxRPCDepth {
			return &rpcProblem{code: jsonrpc.CodeInvalidRequest, message: tooDeep(depth), id: id}
		}
		return nil
	}
	if params == nil {
		return deep()
	}
	if params.Kind() != '{' {
		return bad(jsonrpc.CodeInvalidParams, "/params", "must be an object, not "+jsonenc.KindName(byte(params.Kind())))
	}
	kind := func(path string, v jsontext.Value, want byte, what string) *rpcProblem {
		if byte(v.Kind()) == want {
			return nil
		}
		return bad(jsonrpc.CodeInvalidParams, path, "must be "+what+", not "+jsonenc.KindName(byte(v.Kind())))
	}
	token := func(path string, v jsontext.Value) *rpcProblem {
		if v.Kind() == '"' || v.Kind() == '0' && safeIntegerLiteral(v) {
			return nil
		}
		return bad(jsonrpc.CodeInvalidParams, path, "must be a string or an integer within ±(2^53−1), not "+
			citecheck.Echo(string(v)).String())
	}
	for _, m := range members(params) {
		p := "/params/" + jsonenc.EscapePointer(m.name)
		var e *rpcProblem
		switch {
		case m.name == "_meta":
			if e = kind(p, m.value, '{', "an object"); e == nil {
				for _, mm := range members(m.value) {
					if mm.name == "progressToken" {
						e = token(p+"/progressToken", mm.value)
					}
				}
			}
		case name == "tools/call" && m.name == "name":
			if e = kind(p, m.value, '"', "a string"); e == nil && !slices.Contains(toolNames, unquote(m.value)) {
				e = bad(jsonrpc.CodeInvalidParams, p, "no tool is named "+citecheck.Echo(unquote(m.value)).String()+
					"; the tools are "+strings.Join(toolNames, ", "))
			}
		case name == "tools/call" && m.name == "arguments":
			if m.value.Kind() != 'n' {
				e = kind(p, m.value, '{', "an object")
			}
		case strings.HasSuffix(name, "/list") && m.name == "cursor":
			// Every list this server answers fits one page (3 tools, the
			// SDK's pages hold 1000), so it never gives a nextCursor: any
			// cursor but "" (the first page) is none of its own.
			if e = kind(p, m.value, '"', "a string"); e == nil && unquote(m.value) != "" {
				e = bad(jsonrpc.CodeInvalidParams, p, citecheck.Echo(unquote(m.value)).String()+
					" is not a cursor this server gave: it gives none, as every list fits one page; leave cursor out to list from the start")
			}
		case name == "initialize" && m.name == "protocolVersion":
			e = kind(p, m.value, '"', "a string")
		case name == "initialize" && (m.name == "capabilities" || m.name == "clientInfo"):
			e = kind(p, m.value, '{', "an object")
			if e == nil && m.name == "clientInfo" {
				for _, mm := range members(m.value) {
					if mm.name == "name" || mm.name == "version" || mm.name == "title" {
						if e = kind(p+"/"+mm.name, mm.value, '"', "a string"); e != nil {
							break
						}
					}
				}
			}
		case name == "notifications/cancelled" && m.name == "requestId":
			e = token(p, m.value)
		case name == "notifications/cancelled" && m.name == "reason", name == "logging/setLevel" && m.name == "level":
			e = kind(p, m.value, '"', "a string")
		}
		if e != nil {
			return e
		}
	}
	if name == "tools/call" && !slices.ContainsFunc(members(params), func(m member) bool { return m.name == "name" }) {
		return bad(jsonrpc.CodeInvalidParams, "/params/name", "is missing; a tools/call names its tool")
	}
	return deep()
}

// tooDeep is the message refusing a message that nests depth levels deep,
// over maxRPCDepth.
func tooDeep(depth int) string {
	return "Invalid Request: the message nests " + itoa(depth) + " levels deep; " + depthRule
}

// vetResponse judges a response's members as JSON-RPC 2.0 (§5) defines
// them, where the SDK would refuse them in its Go types' words: an id
// that is not null, result or error but not both, an error an object of
// an integer code and a string message.
func vetResponse(bad func(code int64, path, what string) *rpcProblem, id, result, rpcErr jsontext.Value) *rpcProblem {
	invalid := func(path, what string) *rpcProblem { return bad(jsonrpc.CodeInvalidRequest, path, what) }
	switch {
	case id == nil:
		return invalid("/id", "is missing or null; a response carries the id of the request it answers")
	case result != nil && rpcErr != nil:
		return invalid("/error", "and /result are both present; a response carries one of them")
	case rpcErr == nil:
		return nil
	case rpcErr.Kind() != '{':
		return invalid("/error", "must be an object, not "+jsonenc.KindName(byte(rpcErr.Kind())))
	}
	var code, message jsontext.Value
	for _, m := range members(rpcErr) {
		switch m.name {
		case "code":
			code = m.value
		case "message":
			message = m.value
		}
	}
	switch {
	case code == nil:
		return invalid("/error/code", "is missing; an error carries its code")
	case code.Kind() != '0' || !safeIntegerLiteral(code):
		return invalid("/error/code", "must be an integer within ±(2^53−1) written plainly, not "+citecheck.Echo(string(code)).String())
	case message == nil:
		return invalid("/error/message", "is missing; an error carries its message")
	case message.Kind() != '"':
		return invalid("/error/message", "must be a string, not "+jsonenc.KindName(byte(message.Kind())))
	}
	return nil
}
