package server

import (
	"regexp"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
	"github.com/go-json-experiment/json/jsontext"
)

// argumentReaders are every tool's arguments reader, by tool.
var argumentReaders = map[string]func([]byte) *citecheck.Error{
	MCPToolName: func(b []byte) *citecheck.Error { _, _, _, e := parseArguments(b); return e },
	MCPQuotesToolName: func(b []byte) *citecheck.Error {
		_, _, _, e := readQuotesArguments(b)
		return e
	},
}

// goNames are what an argument error must never show: Go types and
// library names.
var goNames = regexp.MustCompile(`(?i)\bGo\b|struct|server\.|jsontext|json:|\[\]|map\[|\*string|unmarshal`)

// namesGo reports whether msg shows one of goNames that input does not
// hold: what input holds (a member named "[]") may be its echo.
func namesGo(msg, input string) bool {
	for _, m := range goNames.FindAllString(msg, -1) {
		if !strings.Contains(strings.ToLower(input), strings.ToLower(m)) {
			return true
		}
	}
	return false
}

// TestArgumentErrorsInPlainWordsWithAPointer: every tool's refused
// arguments are invalid_input, with the JSON Pointer of the offending
// value in the arguments and a message in plain words naming it (no Go
// type, no library); explain reads execute's arguments.
func TestArgumentErrorsInPlainWordsWithAPointer(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat(`[`, 500) + strings.Repeat(`]`, 500)
	for _, tc := range []struct {
		name, tool, args, path, says string
	}{
		{"execute: id a number", MCPToolName, `{"id":1,"version":"1.0.0","input":{}}`, "/id", "must be a string, not a number"},
		{"execute: version null", MCPToolName, `{"id":"a","version":null,"input":{}}`, "/version", "must be a string, not null"},
		{"execute: id 2^53+1", MCPToolName, `{"id":9007199254740993,"version":"1","input":{}}`, "/id", "not a number"},
		{"execute: id 2^63", MCPToolName, `{"id":9223372036854775808,"version":"1","input":{}}`, "/id", "not a number"},
		{"execute: version 1e400", MCPToolName, `{"id":"a","version":1e400,"input":{}}`, "/version", "not a number"},
		{"execute: a missing member", MCPToolName, `{"id":"a","input":{}}`, "", `required member "version" is missing`},
		{"execute: an extra member", MCPToolName, `{"id":"a","version":"1","input":{},"x":1}`, "", `member "x" is not allowed`},
		{"execute: a member twice", MCPToolName, `{"id":"a","id":"b","version":"1","input":{}}`, "/id", "appears twice"},
		{"execute: an array", MCPToolName, `[]`, "", "must be an object, not an array"},
		{"execute: deep nesting", MCPToolName, deep, "", "must be an object, not an array"},
		{"execute: invalid UTF-8 in id", MCPToolName, "{\"id\":\"a\xffb\",\"version\":\"1\",\"input\":{}}", "/id", "not valid UTF-8"},
		{"execute: a lone surrogate in version", MCPToolName, `{"id":"a","version":"\ud800","input":{}}`, "/version", "unpaired surrogate"},
		{"execute: a member name with a slash", MCPToolName, `{"id":"a","version":"1","input":{},"a/b":1}`, "", `"a/b" is not allowed`},
		{"execute: not JSON", MCPToolName, `{"id":`, "", "not valid JSON"},
		{"quotes: text a number", MCPQuotesToolName, `{"text":1}`, "/text", "must be a string, not a number"},
		{"quotes: text missing", MCPQuotesToolName, `{"sources":[]}`, "", `required member "text" is missing`},
		{"quotes: text null", MCPQuotesToolName, `{"text":null}`, "/text", "not null"},
		{"quotes: sources an object", MCPQuotesToolName, `{"text":"x","sources":{}}`, "/sources", "must be an array"},
		{"quotes: a source a string", MCPQuotesToolName, `{"text":"x","sources":["a"]}`, "/sources/0", "must be an object, not a string"},
		{"quotes: a source's text a number", MCPQuotesToolName, `{"text":"x","sources":[{"id":"1","text":"a"},{"id":"2","text":-9223372036854775809}]}`, "/sources/1/text", "must be a string, not a number"},
		{"quotes: a source without text", MCPQuotesToolName, `{"text":"x","sources":[{"id":"1"}]}`, "/sources/0", `required member "text" is missing`},
		{"quotes: a source with an extra member", MCPQuotesToolName, `{"text":"x","sources":[{"id":"1","text":"a","url":"u"}]}`, "/sources/0", `member "url" is not allowed`},
		{"quotes: a source's id twice", MCPQuotesToolName, `{"text":"x","sources":[{"id":"1","id":"2","text":"a"}]}`, "/sources/0/id", "appears twice"},
		{"quotes: a lone surrogate in text", MCPQuotesToolName, `{"text":"a\udc00b"}`, "/text", "unpaired surrogate"},
		{"quotes: a high surrogate then a letter", MCPQuotesToolName, `{"text":"\ud800\u0041"}`, "/text", "unpaired surrogate"},
		{"quotes: request an array", MCPQuotesToolName, `{"text":"x","request":[1]}`, "/request", "must be an object"},
		{"quotes: an extra member", MCPQuotesToolName, `{"text":"x","model":"m"}`, "", `member "model" is not allowed`},
		{"quotes: a number for the arguments", MCPQuotesToolName, `1e400`, "", "must be an object, not a number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := argumentReaders[tc.tool]([]byte(tc.args))
			if e == nil {
				t.Fatalf("%s accepted", tc.args)
			}
			if e.Code != citecheck.CodeInvalidInput || e.Path != tc.path || !strings.Contains(e.Message, tc.says) ||
				!strings.HasPrefix(e.Message, "arguments") || goNames.MatchString(e.Message) {
				t.Errorf("%+v, want path %q saying %q", e, tc.path, tc.says)
			}
			if !pointerResolves([]byte(tc.args), e.Path) {
				t.Errorf("path %q does not resolve in %s", e.Path, tc.args)
			}
		})
	}
	for _, ok := range []string{
		`{"text":"a\ud83d\ude00b","sources":[{"id":"1","text":"\\ud800"}],"request":null}`, // a pair, and an escaped backslash
		`{"text":"x"}`,
	} {
		if e := argumentReaders[MCPQuotesToolName]([]byte(ok)); e != nil {
			t.Errorf("%s refused: %+v", ok, e)
		}
	}
}

// pointerResolves reports whether the JSON Pointer p names a value in
// doc, or, for a member refused as not allowed or missing, its object.
func pointerResolves(doc []byte, p string) bool {
	if p == "" {
		return true
	}
	v := jsontext.Value(doc)
	// Names are unescaped by jsontext's pointer walk on a decoder.
	dec := jsontext.NewDecoder(strings.NewReader(string(v)), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	for {
		if string(dec.StackPointer()) == p {
			return true
		}
		if _, err := dec.ReadToken(); err != nil {
			return false
		}
	}
}

// FuzzToolArguments: every tool's arguments reader, on any bytes, never
// panics; a refusal is invalid_input whose message starts "arguments",
// names no Go type or library, and whose path resolves in the arguments.
// The seeds hold extreme integers, sizes and nestings.
func FuzzToolArguments(f *testing.F) {
	for _, s := range []string{
		`{"id":"citation-batch-check","version":"1.0.0","input":{"sources":[],"citations":[]}}`,
		`{"id":9007199254740993,"version":-9223372036854775809,"input":1e400}`,
		`{"text":"x","sources":[{"id":"1","text":"a"}],"request":{"messages":[]}}`,
		`{"text":"{\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":\"a\",\"citations\":[{\"type\":\"char_location\",\"document_index\":0,\"start_char_index\":9223372036854775807,\"end_char_index\":-9223372036854775808}]}]}"}`,
		`{"text":"\ud800","sources":[{"id":"\udfff\ud800","text":"\\u"}]}`,
		`{"sources":[` + strings.Repeat(`{"id":"1","text":"a"},`, 300) + `{"id":"2","text":"b"}],"text":"y"}`,
		strings.Repeat(`{"text":`, 200) + `"x"` + strings.Repeat(`}`, 200),
		`{"text":"` + strings.Repeat("é", 4000) + `"}`,
		"{\"text\":\"\xff\xfe\"}",
		`{"text":"x"} {}`,
		``, `null`, `[]`, `"x"`, `0`, `-0`, `1E+999999`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, args string) {
		for tool, read := range argumentReaders {
			e := read([]byte(args))
			if e == nil {
				continue
			}
			if e.Code != citecheck.CodeInvalidInput || !strings.HasPrefix(e.Message, "arguments") || namesGo(e.Message, args) {
				t.Fatalf("%s: %+v", tool, e)
			}
			if jsontext.Value(args).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) && !pointerResolves([]byte(args), e.Path) {
				t.Fatalf("%s: path %q does not resolve: %+v", tool, e.Path, e)
			}
		}
	})
}
