// Package jsonenc writes the pieces of JSON that the engine, the
// annotation checker and the server share: strings, RFC 6901 pointer
// tokens, and the names of JSON kinds in messages. Each is linear in
// its input.
package jsonenc

import (
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// AppendString appends s as a JSON string. s is valid UTF-8 wherever the
// engine writes one (it was strictly decoded or validated); a hand-built
// value with invalid UTF-8 gets U+FFFD for its bad bytes rather than a
// malformed document.
func AppendString(dst []byte, s string) []byte {
	out, err := jsontext.AppendQuote(dst, s)
	if err != nil {
		out, _ = jsontext.AppendQuote(dst, strings.ToValidUTF8(s, "\uFFFD"))
	}
	return out
}

// EscapePointer escapes a member name as one token of an RFC 6901 JSON
// Pointer: '~' as "~0", then '/' as "~1" (§3), in that order so that no
// "~1" is escaped again.
func EscapePointer(name string) string {
	if !strings.ContainsAny(name, "~/") {
		return name
	}
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

// KindName names a JSON value by its kind, for a message ("a string", "an
// object"), from the first byte of its token as go-json-experiment's
// jsontext.Kind and the engine's scanner give it: 'n', 'f' or 't', '"',
// '0', '{', '['.
func KindName(k byte) string {
	switch k {
	case 'n':
		return "null"
	case 'f', 't':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '{':
		return "an object"
	case '[':
		return "an array"
	}
	return "invalid JSON"
}
