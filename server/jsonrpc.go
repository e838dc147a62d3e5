package server

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/citecheck/citecheck"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// rpcProblem is why a JSON-RPC message is refused before the MCP SDK sees
// it: code is the JSON-RPC error code, message the error's message.
type rpcProblem struct {
	code    int64
	message string
	id      jsontext.Value // the request's id, answered under; nil: null
}

// maxRPCID is the largest numeric JSON-RPC id answered as it was sent. The
// SDK decodes ids as float64 and converts them to int64, so 1.7 would come
// back as 1, 2^53+1 as 2^53 and 2^63 as −2^63; the I-JSON bound is exact.
const maxRPCID = 1<<53 - 1

// vetMessage refuses, before the SDK reads it, a message the SDK would
// mishandle: one that starts with a byte order mark, or is not JSON (a
// parse error, −32700), one nesting deeper than jsontext reads (−32600
// with a null id: its id cannot be read), a batch (MCP
// 2025-06-18 removed them: refusing them keeps one request one call, whose
// cost the in-flight bound covers), one that is not an object, or one whose
// id the SDK would answer changed (−32600 Invalid Request): a number it
// would round, or a string it would change (invalid UTF-8, an unpaired
// surrogate escape: both become U+FFFD, so two such ids would collide);
// then its envelope (vetEnvelope). Anything else passes, to be judged by
// the SDK. Linear in the message.
//
// Duplicate names and invalid UTF-8 pass here, as they do in parseArguments:
// inside a call's input they are the engine's to report.
func vetMessage(msg []byte) *rpcProblem {
	lenient := []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}
	v := jsontext.Value(bytes.TrimSpace(msg))
	if bytes.HasPrefix(v, byteOrderMark) {
		// As the HTTP routes refuse one (spec §1): JSON sent over a
		// network has none (RFC 8259 §8.1), and dropping it silently
		// would hide that a client writes something else than JSON.
		return &rpcProblem{code: jsonrpc.CodeParseError, message: "Parse error: a byte order mark (U+FEFF) before the message: send the JSON without it"}
	}
	depth := nesting(v)
	if depth > maxReadDepth {
		return &rpcProblem{code: jsonrpc.CodeInvalidRequest, message: fmt.Sprintf(
			"Invalid Request: the message nests %d levels deep, beyond the %d this server reads, so not even its id could be read; %s", depth, maxReadDepth, depthRule)}
	}
	if !v.IsValid(lenient...) {
		return &rpcProblem{code: jsonrpc.CodeParseError, message: "Parse error: the message is not one JSON value"}
	}
	switch v.Kind() {
	case '{':
	case '[':
		return &rpcProblem{code: jsonrpc.CodeInvalidRequest, message: "Invalid Request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them); send one message at a time"}
	default:
		return &rpcProblem{code: jsonrpc.CodeInvalidRequest, message: "Invalid Request: a JSON-RPC message is an object"}
	}
	var id jsontext.Value
	ids := 0
	for _, m := range members(v) {
		if m.name != "id" {
			continue
		}
		val := m.value
		switch val.Kind() {
		case 'n':
		case '"':
			if !val.IsValid() { // strict: no invalid UTF-8, no unpaired surrogate escape
				return &rpcProblem{code: jsonrpc.CodeInvalidRequest,
					message: "Invalid Request: id is not text (it holds invalid UTF-8 or an unpaired surrogate escape), so it could not be answered as sent"}
			}
		case '0':
			if !safeIntegerLiteral(val) {
				return &rpcProblem{code: jsonrpc.CodeInvalidRequest, message: fmt.Sprintf(
					"Invalid Request: id %s is neither a string nor an integer within ±(2^53−1) written plainly, so it could not be answered as sent", citecheck.Echo(val))}
			}
		default:
			return &rpcProblem{code: jsonrpc.CodeInvalidRequest, message: "Invalid Request: an id is a string or an integer"}
		}
		id = val
		ids++
	}
	if ids > 1 || string(id) == "null" {
		id = nil // which one to answer under is not known
	}
	return vetEnvelope(v, id, depth)
}

// maxRPCDepth is how deep an MCP message may nest: the SDK's JSON reader
// refuses a deeper one whole, before it has read the id (so the request
// would go unanswered), and vetMessage refuses it first, under its id.
// Depth counts the objects and arrays open at once, the message's own
// object being the first; the SDK counts so (go-sdk internal/json).
const maxRPCDepth = 1000

// maxReadDepth is how deep jsontext reads: a deeper message cannot be
// checked to be JSON, nor its id read.
const maxReadDepth = 10000

// depthRule says what maxRPCDepth counts, for the messages that refuse
// a deeper message. The arguments of a tool call are the third level
// (message, params, arguments), execute's input the fourth.
var depthRule = "an MCP message may nest at most " + itoa(maxRPCDepth) + " levels, counting the objects and arrays open at once, " +
	"the message's own object being the first (so a tool call's arguments may nest at most " + itoa(maxRPCDepth-2) +
	" levels and execute's input " + itoa(maxRPCDepth-3) + ")"

// byteOrderMark is U+FEFF in UTF-8.
var byteOrderMark = []byte("\uFEFF")

// nesting is how deep msg nests: the most objects and arrays open at once,
// brackets inside strings not counted, as the SDK counts (for JSON, its
// depth; for anything else, its brackets as a reader would meet them).
// Linear in msg; it allocates nothing.
func nesting(msg []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, b := range msg {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth = max(depth-1, 0)
		}
	}
	return deepest
}

// safeIntegerLiteral reports whether a JSON number is an integer within
// ±maxRPCID written as the SDK writes it back: no fraction, no exponent,
// no "-0".
func safeIntegerLiteral(lit []byte) bool {
	n, err := strconv.ParseInt(string(lit), 10, 64)
	return err == nil && n >= -maxRPCID && n <= maxRPCID && strconv.FormatInt(n, 10) == string(lit)
}

// rpcError is a JSON-RPC error response with a null id: the one a server
// sends for a message it could not take an id from (JSON-RPC 2.0 §5).
// A problem found under a request's id is answered under that id.
func rpcError(p *rpcProblem) []byte {
	if p.id != nil {
		return rpcErrorFor(p.id, p)
	}
	return rpcErrorFor([]byte("null"), p)
}

// rpcErrorFor is a JSON-RPC error response to the request of id, as JSON.
func rpcErrorFor(id []byte, p *rpcProblem) []byte {
	b := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, p.code, 10)
	b = append(b, `,"message":`...)
	b, _ = jsontext.AppendQuote(b, p.message)
	return append(b, "}}"...)
}

// plainRPCError is err as the JSON-RPC error the service answers: its
// message cut as every echo of input is (citecheck.Echo: at most
// MaxEchoBytes and its length), and a code JSON-RPC defines (the SDK
// answers code 0 for an error it did not give one; that is −32603).
// The envelope is judged before the SDK reads it (vetEnvelope), so this
// is the net for what the SDK says after.
func plainRPCError(err error) *jsonrpc.Error {
	var we *jsonrpc.Error
	code := int64(jsonrpc.CodeInternalError)
	if errors.As(err, &we) && validRPCCode(we.Code) {
		code = we.Code
	}
	return &jsonrpc.Error{Code: code, Message: citecheck.Echo(err.Error()).String()}
}

// validRPCCode reports whether code is one JSON-RPC 2.0 defines (§5.1),
// or a server error (−32000 to −32099).
func validRPCCode(code int64) bool {
	switch code {
	case jsonrpc.CodeParseError, jsonrpc.CodeInvalidRequest, jsonrpc.CodeMethodNotFound,
		jsonrpc.CodeInvalidParams, jsonrpc.CodeInternalError:
		return true
	}
	return code <= -32000 && code >= -32099
}

// plainRPCAnswer is an /mcp answer body with its JSON-RPC error, if it is
// one, made plain (plainRPCError); any other body as it is. An error
// answer has no "result" member, which a result always has (a string
// cannot hold the bytes unescaped), so a result costs one scan.
func plainRPCAnswer(body []byte) []byte {
	if bytes.Contains(body, []byte(`"result":`)) {
		return body
	}
	msg, err := jsonrpc.DecodeMessage(body)
	if err != nil {
		return body
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error == nil {
		return body
	}
	resp.Error = plainRPCError(resp.Error)
	out, err := jsonrpc.EncodeMessage(resp)
	if err != nil {
		return body
	}
	return out
}
