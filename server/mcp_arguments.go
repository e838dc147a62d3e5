package server

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/jsonenc"
	"github.com/citecheck/citecheck/quotes"
	"github.com/go-json-experiment/json/jsontext"
)

// The MCP tools' arguments are read here, token by token, rather than
// unmarshalled into Go structs: a refusal then says, in the words of the
// engine's own errors, what is wrong and where (a JSON Pointer into the
// arguments), and never names a Go type or a library. Reading is linear in
// the arguments and holds one copy of each string member it keeps.

// argumentError is the error for arguments that are not as a tool takes
// them: invalid_input, path the JSON Pointer of the offending value in the
// arguments ("" for the arguments object itself), the message starting
// "arguments: " so that it reads apart from an error in execute's input,
// whose paths point into the input, as over HTTP.
func argumentError(path, problem string) *citecheck.Error {
	where := "arguments"
	if path != "" {
		where += ": " + path[1:]
	}
	return &citecheck.Error{Code: citecheck.CodeInvalidInput, Path: path, Message: where + ": " + problem}
}

// argumentMember is one member an arguments object may have.
type argumentMember struct {
	name     string
	required bool
}

// readArgumentObject reads the object at path from dec, whose next token
// must begin it: each member, once, from members (any other is refused),
// its value handed to take raw, with its own path; then it refuses a
// missing required member. The decoder is lenient (duplicate names and
// invalid UTF-8 pass it) so that this reader, not the library, words those
// refusals.
func readArgumentObject(dec *jsontext.Decoder, path string, members []argumentMember, take func(name, path string, v jsontext.Value) *citecheck.Error) *citecheck.Error {
	v, err := dec.ReadValue()
	if err != nil {
		return argumentError(path, "not valid JSON")
	}
	if v.Kind() != '{' {
		return argumentError(path, "must be an object, not "+jsonenc.KindName(byte(v.Kind())))
	}
	inner := jsontext.NewDecoder(bytes.NewReader(v), lenientJSON...)
	inner.ReadToken() // '{', known valid
	seen := make([]bool, len(members))
	for inner.PeekKind() == '"' {
		tok, err := inner.ReadToken()
		if err != nil {
			return argumentError(path, "not valid JSON")
		}
		name := tok.String()
		i := memberIndex(members, name)
		if i < 0 {
			return argumentError(path, fmt.Sprintf("member %q is not allowed; allowed: %s", citecheck.Echo(name), memberNames(members)))
		}
		mpath := path + "/" + jsonenc.EscapePointer(name)
		if seen[i] {
			return argumentError(mpath, "member "+strconv.Quote(name)+" appears twice")
		}
		seen[i] = true
		mv, err := inner.ReadValue()
		if err != nil {
			return argumentError(mpath, "not valid JSON")
		}
		if e := take(name, mpath, mv); e != nil {
			return e
		}
	}
	for i, m := range members {
		if m.required && !seen[i] {
			return argumentError(path, "required member "+strconv.Quote(m.name)+" is missing")
		}
	}
	return nil
}

// lenientJSON are the decoder options of every arguments reader: what
// they let through, the reader itself refuses in plain words.
var lenientJSON = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

func memberIndex(members []argumentMember, name string) int {
	for i, m := range members {
		if m.name == name {
			return i
		}
	}
	return -1
}

func memberNames(members []argumentMember) string {
	var b []byte
	for i, m := range members {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendQuote(b, m.name)
	}
	return string(b)
}

// newArgumentDecoder decodes arguments leniently (see lenientJSON).
func newArgumentDecoder(args []byte) *jsontext.Decoder {
	return jsontext.NewDecoder(bytes.NewReader(args), lenientJSON...)
}

// argumentString is the string v, at path: refused if v is not a string,
// or if it is not text (invalid UTF-8, or an escape of half a surrogate
// pair, which no UTF-8 string can hold). Linear in v.
func argumentString(path string, v jsontext.Value) (string, *citecheck.Error) {
	if v.Kind() != '"' {
		return "", argumentError(path, "must be a string, not "+jsonenc.KindName(byte(v.Kind())))
	}
	if !utf8.Valid(v) {
		return "", argumentError(path, "the string is not valid UTF-8")
	}
	if at := loneSurrogate(v); at >= 0 {
		return "", argumentError(path, "the string has an unpaired surrogate escape ("+string(v[at:at+6])+"), which is not text")
	}
	s, err := jsontext.AppendUnquote(nil, v)
	if err != nil {
		return "", argumentError(path, "must be a string")
	}
	return string(s), nil
}

// loneSurrogate is the offset in the quoted JSON string q of the first
// \u escape of a surrogate that is not half of a high-low pair, or −1.
func loneSurrogate(q []byte) int {
	pending := -1 // offset of a high surrogate escape waiting for its low half
	for i := 0; i < len(q); i++ {
		if q[i] != '\\' {
			if pending >= 0 {
				return pending
			}
			continue
		}
		if i+1 >= len(q) {
			break
		}
		if q[i+1] != 'u' || i+6 > len(q) {
			if pending >= 0 {
				return pending
			}
			i++ // the escaped byte
			continue
		}
		r, err := strconv.ParseUint(string(q[i+2:i+6]), 16, 16)
		if err != nil {
			return -1 // not an escape the decoder takes: it refuses the string itself
		}
		switch {
		case r >= 0xD800 && r < 0xDC00:
			if pending >= 0 {
				return pending
			}
			pending = i
		case r >= 0xDC00 && r < 0xE000:
			if pending < 0 {
				return i
			}
			pending = -1
		default:
			if pending >= 0 {
				return pending
			}
		}
		i += 5
	}
	return pending
}

// readArguments reads the arguments object of a tool call (absent
// arguments read as {}), refusing anything after it.
func readArguments(args []byte, members []argumentMember, take func(name, path string, v jsontext.Value) *citecheck.Error) *citecheck.Error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = []byte("{}")
	}
	dec := newArgumentDecoder(args)
	if e := readArgumentObject(dec, "", members, take); e != nil {
		return e
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return argumentError("", "must be one JSON object, with nothing after it")
	}
	return nil
}

var executeMembers = []argumentMember{{"id", true}, {"version", true}, {"input", true}}

// parseArguments reads execute's and explain's {"id", "version",
// "input"}. It is lenient about the input's encoding (invalid UTF-8,
// duplicate names) so that the engine, not this wrapper, reports those as
// it does over HTTP; it is strict about the arguments' own members.
func parseArguments(args []byte) (id, version string, input []byte, _ *citecheck.Error) {
	e := readArguments(args, executeMembers, func(name, path string, v jsontext.Value) *citecheck.Error {
		var e *citecheck.Error
		switch name {
		case "id":
			id, e = argumentString(path, v)
		case "version":
			version, e = argumentString(path, v)
		case "input":
			input = bytes.Clone(v)
		}
		return e
	})
	return id, version, input, e
}

var (
	quotesMembers = []argumentMember{{"text", true}, {"sources", false}, {"request", false}}
	sourceMembers = []argumentMember{{"id", true}, {"text", true}}
)

// readQuotesArguments reads check_quotes' {"text", "sources", "request"}:
// text a string, sources an array of {"id", "text"} (both strings), and
// request, when present and not null, an object handed on raw (the
// Anthropic reader judges it).
func readQuotesArguments(args []byte) (text string, sources []quotes.Source, request []byte, _ *citecheck.Error) {
	e := readArguments(args, quotesMembers, func(name, path string, v jsontext.Value) *citecheck.Error {
		var e *citecheck.Error
		switch name {
		case "text":
			text, e = argumentString(path, v)
		case "sources":
			sources, e = readSources(path, v)
		case "request":
			switch v.Kind() {
			case 'n':
			case '{':
				request = bytes.Clone(v)
			default:
				e = argumentError(path, "must be an object (the Messages request), not "+jsonenc.KindName(byte(v.Kind())))
			}
		}
		return e
	})
	return text, sources, request, e
}

// readSources reads the array of sources at path.
func readSources(path string, v jsontext.Value) ([]quotes.Source, *citecheck.Error) {
	if v.Kind() != '[' {
		return nil, argumentError(path, "must be an array of {\"id\", \"text\"}, not "+jsonenc.KindName(byte(v.Kind())))
	}
	dec := newArgumentDecoder(v)
	dec.ReadToken() // '['
	var sources []quotes.Source
	for i := 0; dec.PeekKind() != ']'; i++ {
		var s quotes.Source
		spath := path + "/" + strconv.Itoa(i)
		e := readArgumentObject(dec, spath, sourceMembers, func(name, path string, v jsontext.Value) *citecheck.Error {
			var e *citecheck.Error
			switch name {
			case "id":
				s.ID, e = argumentString(path, v)
			case "text":
				s.Text, e = argumentString(path, v)
			}
			return e
		})
		if e != nil {
			return nil, e
		}
		sources = append(sources, s)
	}
	return sources, nil
}
