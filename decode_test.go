package citecheck

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/citecheck/citecheck/internal/testkit"
)

// Tests of spec §1, one table row per rule, named for the rule. Each row
// gives a body and the error it must get (code, path, and for limits the
// limit, max and actual), or nil when the body is accepted. Bodies are
// written out as JSON text so that every byte a rule is about is visible.

// dCase is one row: a body and the answer Decode must give.
type dCase struct {
	name string
	body string
	want *Error // nil: accepted
}

// refused builds the expected invalid_input at path.
func refused(path string) *Error { return &Error{Code: CodeInvalidInput, Path: path} }

// overLimit builds the expected limit_exceeded.
func overLimit(path, limit string, max, actual int64) *Error {
	return &Error{Code: CodeLimitExceeded, Path: path, Limit: limit, Max: max, Actual: actual}
}

// The building blocks. dSrc is source "s"/"v1" over the alphabet; dPos and
// dQuote are a position and a quote citation on it that pass.
const (
	dAlphabet = "abcdefghijklmnopqrstuvwxyz"
	dSrc      = `{"source_id":"s","version":"v1","text":"abcdefghijklmnopqrstuvwxyz"}`
	dPosSel   = `"type":"TextPositionSelector","start":4,"end":7`
	dQuoteSel = `"type":"TextQuoteSelector","exact":"xyz","prefix":"w"`
)

// dCite is a citation id on s/v1 whose selector members and the members
// after its selector are written raw (",\"quote\":\"efg\"" for a position
// citation that passes).
func dCite(id, sel, after string) string {
	return testkit.Citation{CitationID: id, SourceID: "s", Version: "v1", RawSelector: sel, RawAfter: after}.JSON()
}

// dOK is a valid body: one source, a position citation and a quote citation.
var dOK = dBody(dSrc, dCite("p", dPosSel, `,"quote":"efg"`)+","+dCite("q", dQuoteSel, `,"claimed_start":23`))

// dBody is a body whose sources and citations are raw JSON text.
var dBody = testkit.RawBody

// dSources is n distinct empty sources t/v0 … t/v(n-1), comma-separated.
func dSources(n int) string {
	return testkit.JoinN(n, func(j int) string { return testkit.NewSource("t", "v"+strconv.Itoa(j), "").JSON() })
}

// dCites is n passing position citations p0 … p(n-1) on dSrc.
func dCites(n int) string {
	return testkit.JoinN(n, func(k int) string {
		return testkit.PositionCitation("p"+strconv.Itoa(k), "s", "v1", 4, 7, "efg").JSON()
	})
}

// dQuotes is n quote citations <id>0 … <id>(n-1) on source s/ver, exact "x".
func dQuotes(n int, id, ver string) string {
	return testkit.JoinN(n, func(k int) string { return testkit.QuoteCitation(id+strconv.Itoa(k), "s", ver, "x").JSON() })
}

func rep(s string, n int) string { return strings.Repeat(s, n) }

// padTo pads body with trailing spaces to exactly n bytes.
func padTo(body string, n int) string { return body + rep(" ", n-len(body)) }

func runDecodeCases(t *testing.T, cases []dCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, got := Decode([]byte(c.body))
			assertDecoded(t, req, AsError(got), c.want)
		})
	}
}

func assertDecoded(t *testing.T, req *Request, got, want *Error) {
	t.Helper()
	if (req == nil) == (got == nil) {
		t.Fatalf("Decode must return exactly one of a request and an error: %v, %v", req, got)
	}
	if want == nil {
		if got != nil {
			t.Fatalf("refused: %s %s at %q: %s", got.Code, got.Limit, got.Path, got.Message)
		}
		return
	}
	if got == nil {
		t.Fatalf("accepted; want %s %s at %q", want.Code, want.Limit, want.Path)
	}
	if got.Code != want.Code || got.Path != want.Path || got.Limit != want.Limit || got.Max != want.Max || got.Actual != want.Actual {
		t.Fatalf("got  %s %q limit %q max %d actual %d (%s)\nwant %s %q limit %q max %d actual %d",
			got.Code, got.Path, got.Limit, got.Max, got.Actual, got.Message,
			want.Code, want.Path, want.Limit, want.Max, want.Actual)
	}
	// The message is one line a person can act on.
	if got.Message == "" || strings.ContainsAny(got.Message, "\r\n") || !utf8.ValidString(got.Message) {
		t.Errorf("message %q is not one line of text", got.Message)
	}
}

func TestDecodeAcceptsTheBaseBody(t *testing.T) {
	t.Parallel()
	runDecodeCases(t, []dCase{{"base body is valid", dOK, nil}})
}

// spec §1 step 1.
func TestDecodeSize(t *testing.T) {
	t.Parallel()
	runDecodeCases(t, []dCase{
		{"size/body of exactly max_input_bytes is accepted", padTo(dOK, MaxInputBytes), nil},
		{"size/body over max_input_bytes is limit_exceeded", padTo(dOK, MaxInputBytes+1),
			overLimit("", LimitInputBytes, MaxInputBytes, MaxInputBytes+1)},
		{"size/actual is the body's length", padTo(dOK, 2*MaxInputBytes),
			overLimit("", LimitInputBytes, MaxInputBytes, 2*MaxInputBytes)},
		{"size/an oversized body is refused for its size before it is parsed", rep("\xff", MaxInputBytes+1),
			overLimit("", LimitInputBytes, MaxInputBytes, MaxInputBytes+1)},
	})
}

// ReadBody is the size rule for streams: it must decide without reading more
// than max_input_bytes + 1 bytes.
func TestReadBodyReadsAtMostMaxInputBytesPlusOne(t *testing.T) {
	t.Parallel()
	t.Run("size/a stream over max_input_bytes is limit_exceeded, read no further than max+1", func(t *testing.T) {
		r := &testkit.CountingReader{R: testkit.Endless('x')}
		body, err := ReadBody(r)
		if body != nil || err == nil {
			t.Fatal("want an error")
		}
		want := overLimit("", LimitInputBytes, MaxInputBytes, MaxInputBytes+1)
		if AsError(err).Code != want.Code || AsError(err).Limit != want.Limit || AsError(err).Max != want.Max || AsError(err).Actual != want.Actual || AsError(err).Path != "" {
			t.Fatalf("got %+v", err)
		}
		if r.N() > MaxInputBytes+1 {
			t.Fatalf("read %d bytes; at most %d allowed", r.N(), MaxInputBytes+1)
		}
	})
	t.Run("size/a stream of exactly max_input_bytes is read whole", func(t *testing.T) {
		body, err := ReadBody(strings.NewReader(padTo(dOK, MaxInputBytes)))
		if err != nil || len(body) != MaxInputBytes {
			t.Fatalf("got %d bytes, %v", len(body), err)
		}
	})
	t.Run("size/a read failure is an error, not a truncated body", func(t *testing.T) {
		_, err := ReadBody(io.MultiReader(strings.NewReader(`{"sources"`), testkit.FailingReader{Err: errors.New("connection reset")}))
		if err == nil || AsError(err).Code != CodeInvalidInput {
			t.Fatalf("got %v", err)
		}
	})
}

// spec §1 step 2.
func TestDecodeIJSON(t *testing.T) {
	t.Parallel()
	withText := func(raw string) string {
		return dBody(`{"source_id":"s","version":"v1","text":"`+raw+`"}`, dCite("p", dPosSel, `,"quote":"efg"`))
	}
	ws := func(sep string) string { // every token separated by sep
		return strings.NewReplacer("{", sep+"{"+sep, "}", sep+"}"+sep, "[", sep+"["+sep, "]", sep+"]"+sep, ",", sep+","+sep, ":", sep+":"+sep).Replace(
			dBody(`{"source_id":"s","version":"v1","text":"abcdefgh"}`, `{"citation_id":"p","source_id":"s","version":"v1","selector":{"type":"TextPositionSelector","start":4,"end":7},"quote":"efg"}`))
	}
	runDecodeCases(t, []dCase{
		// Encoding.
		{"ijson/byte-order mark is invalid_input", "\xEF\xBB\xBF" + dOK, refused("")},
		{"ijson/an escaped U+FEFF inside a string is an ordinary code point", withText(`abcdefg\ufeff`), nil},
		{"ijson/UTF-16 is not UTF-8", "{\x00\"\x00", refused("")},
		{"ijson/invalid UTF-8 in a string is refused, never repaired", withText("abcdefg\xff"), refused("")},
		{"ijson/overlong UTF-8 encoding", withText("abcdefg\xC0\xAF"), refused("")},
		{"ijson/UTF-8-encoded surrogate", withText("abcdefg\xED\xA0\x80"), refused("")},
		{"ijson/truncated UTF-8 sequence", withText("abcdefg\xE2\x82"), refused("")},
		{"ijson/UTF-8 beyond U+10FFFF", withText("abcdefg\xF4\x90\x80\x80"), refused("")},
		{"ijson/invalid UTF-8 between tokens", dOK[:len(dOK)-1] + "\xff}", refused("")},
		{"ijson/lone surrogate escape", withText(`abcdefg\ud800`), refused("/sources/0/text")},
		{"ijson/lone low surrogate escape", withText(`abcdefg\udc00x`), refused("/sources/0/text")},
		{"ijson/surrogate pair in the wrong order", withText(`abcdefg\udc00\ud800`), refused("/sources/0/text")},
		{"ijson/high surrogate before a non-surrogate escape", withText(`abcdefg\ud800\u0041`), refused("/sources/0/text")},
		{"ijson/lone surrogate escape in a selector member",
			dBody(dSrc, dCite("q", dQuoteSel+`,"suffix":"\udbff"`, "")), refused("/citations/0/selector/suffix")},
		{"ijson/escaped surrogate pair is one astral code point", withText(`abcdefg\ud83d\ude00`), nil},
		{"ijson/noncharacters U+FDD0 and U+FFFF are accepted", withText(`abcdefg\ufdd0\uffff`), nil},
		{"ijson/noncharacters U+FFFE U+1FFFF U+10FFFF and raw U+FDEF are accepted", withText("abcdefg\\ufffe\\ud83f\\udfff\\udbff\\udfff\uFDEF"), nil},
		// Duplicate names.
		{"ijson/duplicate member names at the top level", `{"sources":[` + dSrc + `],"sources":[` + dSrc + `],"citations":[` + dCites(1) + `]}`, refused("/sources")},
		{"ijson/duplicate member names in a source", dBody(`{"source_id":"s","version":"v1","text":"abcdefgh","text":"abcdefgh"}`, dCites(1)), refused("/sources/0/text")},
		{"ijson/duplicate member names in a selector", dBody(dSrc, dCite("q", dQuoteSel+`,"exact":"xyz"`, "")), refused("/citations/0/selector/exact")},
		{"ijson/duplicate member names compared after unescaping", dBody(dSrc, dCite("p", dPosSel, `,"quote":"efg","\u0071uote":"efg"`)), refused("/citations/0/quote")},
		{"ijson/duplicate member names compared after unescaping the first", dBody(dSrc, dCite("p", dPosSel, `,"\u0071uote":"efg","quote":"efg"`)), refused("/citations/0/quote")},
		{"ijson/duplicate names of unknown members are still duplicates", `{"x":1,"x":1,` + dOK[1:], refused("/x")},
		// Numbers where an integer is expected.
		{"ijson/integer beyond 2^53-1", dBody(dSrc, dCite("q", dQuoteSel, `,"claimed_start":9007199254740992`)), refused("/citations/0/claimed_start")},
		{"ijson/integer beyond 2^53-1 written with an exponent", dBody(dSrc, dCite("p", `"type":"TextPositionSelector","start":1e16,"end":7`, `,"quote":"efg"`)), refused("/citations/0/selector/start")},
		{"ijson/integer beyond -(2^53-1)", dBody(dSrc, dCite("p", `"type":"TextPositionSelector","start":4,"end":-9007199254740992`, `,"quote":"efg"`)), refused("/citations/0/selector/end")},
		{"ijson/integer with a huge exponent", dBody(dSrc, dCite("q", dQuoteSel, `,"claimed_start":1e400`)), refused("/citations/0/claimed_start")},
		{"ijson/2^53-1 is accepted", dBody(dSrc, dCite("q", dQuoteSel, `,"claimed_start":9007199254740991`)), nil},
		// White space.
		{"ijson/white space is only space tab LF CR: all four are accepted between every token", ws(" \t\n\r"), nil},
		{"ijson/white space is only space tab LF CR: white space after the body is accepted", dOK + " \t\r\n", nil},
		{"ijson/white space is only space tab LF CR: form feed is refused", ws("\f"), refused("")},
		{"ijson/white space is only space tab LF CR: vertical tab is refused", dOK + "\v", refused("")},
		{"ijson/white space is only space tab LF CR: NO-BREAK SPACE is refused", "\u00a0" + dOK, refused("")},
		{"ijson/white space is only space tab LF CR: LINE SEPARATOR is refused", dOK + "\u2028", refused("")},
		{"ijson/white space is only space tab LF CR: IDEOGRAPHIC SPACE is refused", strings.Replace(dOK, ",", ",\u3000", 1), refused("")},
		{"ijson/white space is only space tab LF CR: U+FEFF after the body is refused", dOK + "\uFEFF", refused("")},
		{"ijson/LINE SEPARATOR inside a string is text", withText("abcdefg\u2028\u2029"), nil},
		// One JSON text.
		{"ijson/empty body", "", refused("")},
		{"ijson/white space only", " \n", refused("")},
		{"ijson/a second value after the request", dOK + " {}", refused("")},
		{"ijson/a second value right after the request", dOK + dOK, refused("")},
		{"ijson/a number after the request", dOK + "0", refused("")},
		{"ijson/truncated body", dOK[:len(dOK)-1], refused("")},
		{"ijson/trailing comma in an array", strings.Replace(dOK, `]}`, `,]}`, 1), refused("")},
		{"ijson/trailing comma in an object", strings.Replace(dOK, `"efg"}`, `"efg",}`, 1), refused("")},
		{"ijson/single-quoted string", strings.Replace(dOK, `"efg"`, `'efg'`, 1), refused("")},
		{"ijson/unquoted member name", strings.Replace(dOK, `"quote"`, `quote`, 1), refused("")},
		{"ijson/leading zero", strings.Replace(dOK, `"start":4`, `"start":04`, 1), refused("")},
		{"ijson/plus sign", strings.Replace(dOK, `"start":4`, `"start":+4`, 1), refused("")},
		{"ijson/NaN", strings.Replace(dOK, `"start":4`, `"start":NaN`, 1), refused("")},
		{"ijson/comment", "// c\n" + dOK, refused("")},
		{"ijson/raw control character in a string", withText("abcdefg\x01"), refused("")},
		{"ijson/raw tab in a string", withText("abcdefg\t"), refused("")},
		{"ijson/invalid escape", withText(`abcdefg\x41`), refused("")},
		{"ijson/short unicode escape", withText(`abcdefg\u41"`), refused("")},
	})
}

// Noncharacters are not only accepted but compared like any code point.
func TestDecodeKeepsNoncharactersAsTheyAre(t *testing.T) {
	t.Parallel()
	body := dBody(`{"source_id":"s","version":"v1","text":"a\ufdd0\uffff\udbff\udfffz"}`,
		`{"citation_id":"q","source_id":"s","version":"v1","selector":{"type":"TextQuoteSelector","exact":"\ufdd0\uffff\udbff\udfff"},"claimed_start":1}`+
			`,{"citation_id":"p","source_id":"s","version":"v1","selector":{"type":"TextPositionSelector","start":3,"end":5},"quote":"\udbff\udfffz"}`)
	req, err := Decode([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if got := req.Sources[0].Text; got != "a\uFDD0\uFFFF\U0010FFFFz" {
		t.Fatalf("text %+q", got)
	}
	if res := Check(req); !res.Valid {
		t.Fatalf("noncharacters must match themselves: %s", res.AppendJSON(nil))
	}
}

// spec §1 step 3.
func TestDecodeSchema(t *testing.T) {
	t.Parallel()
	pos := func(sel, after string) string { return dBody(dSrc, dCite("p", sel, after)) }
	quote := func(sel, after string) string { return dBody(dSrc, dCite("q", sel, after)) }
	runDecodeCases(t, []dCase{
		{"schema/the body must be an object, not an array", `[` + dOK + `]`, refused("")},
		{"schema/the body must be an object, not null", `null`, refused("")},
		{"schema/the body must be an object, not a string", `"x"`, refused("")},
		// Required members: the path is the object that lacks one.
		{"schema/missing sources", `{"citations":[` + dCites(1) + `]}`, refused("")},
		{"schema/missing citations", `{"sources":[` + dSrc + `]}`, refused("")},
		{"schema/missing text of a source", dBody(`{"source_id":"s","version":"v1"}`, dCites(1)), refused("/sources/0")},
		{"schema/missing source_id of a source", dBody(`{"version":"v1","text":""}`, dCites(1)), refused("/sources/0")},
		{"schema/missing citation_id", dBody(dSrc, `{"source_id":"s","version":"v1","selector":{`+dPosSel+`},"quote":"efg"}`), refused("/citations/0")},
		{"schema/missing selector", dBody(dSrc, `{"citation_id":"p","source_id":"s","version":"v1","quote":"efg"}`), refused("/citations/0")},
		{"schema/missing selector type", pos(`"start":4,"end":7`, `,"quote":"efg"`), refused("/citations/0/selector")},
		{"schema/missing end of a position selector", pos(`"type":"TextPositionSelector","start":4`, `,"quote":"efg"`), refused("/citations/0/selector")},
		{"schema/missing exact of a quote selector", quote(`"type":"TextQuoteSelector","prefix":"w"`, ""), refused("/citations/0/selector")},
		// Wrong JSON types: the path is the value.
		{"schema/sources must be an array", `{"sources":{},"citations":[` + dCites(1) + `]}`, refused("/sources")},
		{"schema/citations must be an array", `{"sources":[` + dSrc + `],"citations":null}`, refused("/citations")},
		{"schema/a source must be an object", dBody(`"s"`, dCites(1)), refused("/sources/0")},
		{"schema/text must be a string", dBody(`{"source_id":"s","version":"v1","text":5}`, dCites(1)), refused("/sources/0/text")},
		{"schema/text must not be null", dBody(`{"source_id":"s","version":"v1","text":null}`, dCites(1)), refused("/sources/0/text")},
		{"schema/selector must be an object", dBody(dSrc, `{"citation_id":"p","source_id":"s","version":"v1","selector":"TextPositionSelector","quote":"efg"}`), refused("/citations/0/selector")},
		{"schema/selector type must be a string", pos(`"type":["TextPositionSelector"],"start":4,"end":7`, `,"quote":"efg"`), refused("/citations/0/selector/type")},
		{"schema/quote must be a string", pos(dPosSel, `,"quote":5`), refused("/citations/0/quote")},
		{"schema/prefix must be a string, not null", quote(`"type":"TextQuoteSelector","exact":"xyz","prefix":null`, ""), refused("/citations/0/selector/prefix")},
		{"schema/true is not an integer", pos(`"type":"TextPositionSelector","start":true,"end":7`, `,"quote":"efg"`), refused("/citations/0/selector/start")},
		{"schema/false is not an integer", quote(dQuoteSel, `,"claimed_start":false`), refused("/citations/0/claimed_start")},
		{"schema/null is not an integer", pos(`"type":"TextPositionSelector","start":4,"end":null`, `,"quote":"efg"`), refused("/citations/0/selector/end")},
		{`schema/"4" is not an integer`, pos(`"type":"TextPositionSelector","start":"4","end":7`, `,"quote":"efg"`), refused("/citations/0/selector/start")},
		// Integers are judged on the exact literal.
		{"schema/4.0 4e0 40e-1 are the integer 4", pos(`"type":"TextPositionSelector","start":4.0,"end":70e-1`, `,"quote":"efg"`), nil},
		{"schema/4.5 1e-400 4.0000000000000001 are not integers: 4.5", pos(`"type":"TextPositionSelector","start":4.5,"end":7`, `,"quote":"efg"`), refused("/citations/0/selector/start")},
		{"schema/4.5 1e-400 4.0000000000000001 are not integers: 1e-400", pos(`"type":"TextPositionSelector","start":1e-400,"end":7`, `,"quote":"efg"`), refused("/citations/0/selector/start")},
		{"schema/4.5 1e-400 4.0000000000000001 are not integers: 4.0000000000000001", quote(dQuoteSel, `,"claimed_start":4.0000000000000001`), refused("/citations/0/claimed_start")},
		{"schema/-0 is 0", pos(`"type":"TextPositionSelector","start":-0,"end":-0.0e3`, `,"quote":"efg"`), nil},
		{"schema/a negative position", pos(`"type":"TextPositionSelector","start":-1,"end":7`, `,"quote":"efg"`), refused("/citations/0/selector/start")},
		{"schema/a negative position written with an exponent", pos(`"type":"TextPositionSelector","start":4,"end":-7e0`, `,"quote":"efg"`), refused("/citations/0/selector/end")},
		{"schema/a negative claimed_start", quote(dQuoteSel, `,"claimed_start":-1`), refused("/citations/0/claimed_start")},
		// Unknown members, at every depth; the path is the member.
		{"schema/unknown member at every depth: the body", `{"extra":1,` + dOK[1:], refused("/extra")},
		{"schema/unknown member at every depth: a source", dBody(`{"source_id":"s","version":"v1","text":"","lang":"en"}`, dCites(1)), refused("/sources/0/lang")},
		{"schema/unknown member at every depth: a citation", dBody(dSrc, dCite("p", dPosSel, `,"quote":"efg","note":null`)), refused("/citations/0/note")},
		{"schema/unknown member at every depth: a position selector", pos(dPosSel+`,"exect":"efg"`, `,"quote":"efg"`), refused("/citations/0/selector/exect")},
		{"schema/unknown member at every depth: a quote selector", quote(dQuoteSel+`,"exect":"xyz"`, ""), refused("/citations/0/selector/exect")},
		{"schema/unknown member named like a member of another object", dBody(dSrc, dCite("p", dPosSel, `,"quote":"efg","text":"x"`)), refused("/citations/0/text")},
		{"schema/unknown member names are escaped in the path", `{"a/b~c":1,` + dOK[1:], refused("/a~1b~0c")},
		{"schema/unknown member names are compared after unescaping", `{"\u0073ources":[` + dSrc + `],"citations":[` + dCites(1) + `]}`, nil},
		// minLength 1 counts code points: one code point of any width passes.
		{"schema/minLength counts code points: empty source_id", dBody(`{"source_id":"","version":"v1","text":""}`, dCites(1)), refused("/sources/0/source_id")},
		{"schema/minLength counts code points: empty version", dBody(`{"source_id":"s","version":"","text":""}`, dCites(1)), refused("/sources/0/version")},
		{"schema/minLength counts code points: empty citation_id", dBody(dSrc, strings.Replace(dCites(1), `"p0"`, `""`, 1)), refused("/citations/0/citation_id")},
		{"schema/minLength counts code points: empty citation version", dBody(dSrc, `{"citation_id":"p","source_id":"s","version":"","selector":{`+dPosSel+`},"quote":"efg"}`), refused("/citations/0/version")},
		{"schema/minLength counts code points: empty quote", pos(dPosSel, `,"quote":""`), refused("/citations/0/quote")},
		{"schema/minLength counts code points: empty exact", quote(`"type":"TextQuoteSelector","exact":""`, ""), refused("/citations/0/selector/exact")},
		{"schema/minLength counts code points: one astral code point is enough", dBody(`{"source_id":"\ud83d\ude00","version":"v","text":""}`, dCites(1)), nil},
		{"schema/minLength counts code points: one escaped NUL is enough", dBody(`{"source_id":"\u0000","version":"v","text":""}`, dCites(1)), nil},
		{"schema/text, prefix and suffix may be empty", dBody(`{"source_id":"s","version":"v1","text":""}`, dCite("q", `"type":"TextQuoteSelector","exact":"x","prefix":"","suffix":""`, "")), nil},
		{"schema/empty sources array", `{"sources":[],"citations":[` + dCites(1) + `]}`, refused("/sources")},
		{"schema/empty citations array", `{"sources":[` + dSrc + `],"citations":[]}`, refused("/citations")},
		// Selectors.
		{"schema/selector type is neither TextPositionSelector nor TextQuoteSelector", pos(`"type":"TextRangeSelector","start":4,"end":7`, `,"quote":"efg"`), refused("/citations/0/selector/type")},
		{"schema/selector type is compared exactly (case)", pos(`"type":"textPositionSelector","start":4,"end":7`, `,"quote":"efg"`), refused("/citations/0/selector/type")},
		{"schema/selector type may be escaped", pos(`"type":"Text\u0050ositionSelector","start":4,"end":7`, `,"quote":"efg"`), nil},
		{"schema/selector carries a member of the other type: exact in a position selector", pos(dPosSel+`,"exact":"efg"`, `,"quote":"efg"`), refused("/citations/0/selector/exact")},
		{"schema/selector carries a member of the other type: prefix in a position selector", pos(dPosSel+`,"prefix":""`, `,"quote":"efg"`), refused("/citations/0/selector/prefix")},
		{"schema/selector carries a member of the other type: suffix in a position selector", pos(dPosSel+`,"suffix":"h"`, `,"quote":"efg"`), refused("/citations/0/selector/suffix")},
		{"schema/selector carries a member of the other type: start in a quote selector", quote(dQuoteSel+`,"start":23`, ""), refused("/citations/0/selector/start")},
		{"schema/selector carries a member of the other type: end in a quote selector", quote(`"end":26,`+dQuoteSel, ""), refused("/citations/0/selector/end")},
		{"schema/selector carries a member of the other type: type given last", pos(`"start":4,"end":7,"exact":"efg","type":"TextPositionSelector"`, `,"quote":"efg"`), refused("/citations/0/selector/exact")},
		{"schema/selector members in any order", pos(`"end":7,"start":4,"type":"TextPositionSelector"`, `,"quote":"efg"`), nil},
	})
}

// Integers are echoed as the integer they are, whatever the literal.
func TestDecodeIntegerLiteralsAreJudgedExactly(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lit  string
		want int // -1: refused
	}{
		{"4", 4}, {"4.0", 4}, {"4e0", 4}, {"4E+0", 4}, {"40e-1", 4}, {"0.4e1", 4}, {"400e-2", 4}, {"4.000", 4},
		{"-0", 0}, {"-0.0", 0}, {"0e10", 0}, {"0.0e-5", 0}, {"-0e-400", 0},
		{"9007199254740991", 9007199254740991}, {"9007199254740991.000", 9007199254740991}, {"90071992547409910e-1", 9007199254740991},
		{"4.5", -1}, {"1e-400", -1}, {"4.0000000000000001", -1}, {"0.1", -1}, {"45e-1", -1}, {"-4.5", -1},
		{"9007199254740992", -1}, {"1e16", -1}, {"-9007199254740992", -1}, {"-1", -1}, {"-1e0", -1},
	} {
		t.Run("schema/integer literal "+c.lit, func(t *testing.T) {
			req, err := Decode([]byte(dBody(dSrc, dCite("q", dQuoteSel, `,"claimed_start":`+c.lit))))
			if c.want < 0 {
				if err == nil || AsError(err).Code != CodeInvalidInput || AsError(err).Path != "/citations/0/claimed_start" {
					t.Fatalf("want invalid_input at /citations/0/claimed_start, got %v %+v", req, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !req.Citations[0].HasClaimedStart {
				t.Fatal("claimed_start not set")
			}
			if got := req.Citations[0].ClaimedStart; got != c.want {
				t.Fatalf("claimed_start %d, want %d", got, c.want)
			}
		})
	}
	t.Run("schema/4.0 4e0 40e-1 are echoed as 4", func(t *testing.T) {
		res, err := Run([]byte(dBody(dSrc, dCite("p", `"type":"TextPositionSelector","start":4.0,"end":40e-1`, `,"quote":"e"`))))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(res.AppendJSON(nil)); !strings.Contains(got, `"start":4,"end":4,`) {
			t.Fatalf("start and end not echoed as 4: %s", got)
		}
	})
}

// spec §1 step 4.
func TestDecodeRules(t *testing.T) {
	t.Parallel()
	pos := dCites(1)
	runDecodeCases(t, []dCase{
		{"rules/a position citation needs a quote", dBody(dSrc, pos+","+dCite("p1", dPosSel, "")), refused("/citations/1")},
		{"rules/a quote citation takes no quote", dBody(dSrc, pos+","+dCite("q1", dQuoteSel, `,"quote":"xyz"`)), refused("/citations/1/quote")},
		{"rules/a position citation takes no claimed_start", dBody(dSrc, dCite("p", dPosSel, `,"quote":"efg","claimed_start":4`)), refused("/citations/0/claimed_start")},
		{"rules/two sources with the same (source_id, version) pair: the later is named",
			dBody(dSrc+`,{"source_id":"s","version":"v2","text":""},`+dSrc, pos), refused("/sources/2")},
		{"rules/same source_id with another version is not a duplicate", dBody(dSrc+`,{"source_id":"s","version":"v2","text":""}`, pos), nil},
		{"rules/same version with another source_id is not a duplicate", dBody(dSrc+`,{"source_id":"t","version":"v1","text":""}`, pos), nil},
		{"rules/source pairs are compared exactly: NFC and NFD ids differ",
			dBody(`{"source_id":"caf\u00e9","version":"v1","text":""},{"source_id":"cafe\u0301","version":"v1","text":""},`+dSrc, pos), nil},
		{"rules/source pairs are compared after unescaping",
			dBody(dSrc+`,{"source_id":"\u0073","version":"v1","text":""}`, pos), refused("/sources/1")},
		{"rules/two citations with the same citation_id: the later is named",
			dBody(dSrc, dCite("a", dPosSel, `,"quote":"efg"`)+","+dCite("b", dPosSel, `,"quote":"efg"`)+","+dCite("a", dPosSel, `,"quote":"efg"`)), refused("/citations/2/citation_id")},
		{"rules/a citation_id may equal a source_id", dBody(dSrc, dCite("s", dPosSel, `,"quote":"efg"`)), nil},
		{"rules/the first failure in document order is reported: sources first",
			dBody(dSrc+","+dSrc, dCite("p", dPosSel, "")), refused("/sources/1")},
		{"rules/the first failure in document order is reported: citations first",
			`{"citations":[` + dCite("p", dPosSel, "") + `],"sources":[` + dSrc + "," + dSrc + `]}`, refused("/citations/0")},
		{"rules/rule failures are found even when the citation fails its check", dBody(dSrc, dCite("p", `"type":"TextPositionSelector","start":7,"end":4`, "")), refused("/citations/0")},
	})
}

// spec §1 step 5: each limit at its value and one over, measured on the
// decoded string (UTF-8 bytes), not its escaped form.
func TestDecodeLimits(t *testing.T) {
	t.Parallel()
	src := func(id, ver, text string) string {
		return `{"source_id":"` + id + `","version":"` + ver + `","text":"` + text + `"}`
	}
	cite := func(id, sid, ver string) string {
		return `{"citation_id":"` + id + `","source_id":"` + sid + `","version":"` + ver + `","selector":{` + dPosSel + `},"quote":"efg"}`
	}
	quote := func(q string) string { return dBody(dSrc, dCite("p", dPosSel, `,"quote":"`+q+`"`)) }
	exact := func(e string) string {
		return dBody(dSrc, dCite("q", `"type":"TextQuoteSelector","exact":"`+e+`"`, ""))
	}
	context := func(member, v string) string {
		return dBody(dSrc, dCite("q", `"type":"TextQuoteSelector","exact":"x","`+member+`":"`+v+`"`, ""))
	}
	L := rep("a", MaxLabelBytes)
	runDecodeCases(t, []dCase{
		{"limits/max_sources: 16 sources are accepted", dBody(dSrc+","+dSources(15), dCites(1)), nil},
		{"limits/max_sources: 17 sources are limit_exceeded at /sources", dBody(dSrc+","+dSources(16), dCites(1)),
			overLimit("/sources", LimitSources, MaxSources, 17)},
		{"limits/max_citations: 256 citations are accepted", dBody(dSrc, dCites(256)), nil},
		{"limits/max_citations: 257 citations are limit_exceeded at /citations", dBody(dSrc, dCites(257)),
			overLimit("/citations", LimitCitations, MaxCitations, 257)},

		{"limits/max_text_bytes: a text of 524288 bytes is accepted", dBody(src("s", "v1", rep("a", MaxTextBytes)), dCites(1)), nil},
		{"limits/max_text_bytes: one byte over", dBody(src("s", "v1", rep("a", MaxTextBytes+1)), dCites(1)),
			overLimit("/sources/0/text", LimitTextBytes, MaxTextBytes, MaxTextBytes+1)},
		{"limits/max_text_bytes: counted in UTF-8 bytes, not code points", dBody(src("s", "v1", rep("é", MaxTextBytes/2+1)), dCites(1)),
			overLimit("/sources/0/text", LimitTextBytes, MaxTextBytes, MaxTextBytes+2)},
		{"limits/max_text_bytes: an escaped text is measured decoded", dBody(src("s", "v1", rep(`\u0041`, 150000)), dCites(1)), nil},
		{"limits/max_text_bytes: a later source's text", dBody(dSrc+","+src("s", "v2", rep("a", MaxTextBytes+1)), dCites(1)),
			overLimit("/sources/1/text", LimitTextBytes, MaxTextBytes, MaxTextBytes+1)},

		{"limits/max_quote_bytes: a quote of 16384 bytes is accepted", quote(rep("a", MaxQuoteBytes)), nil},
		{"limits/max_quote_bytes: a quote one byte over", quote(rep("a", MaxQuoteBytes+1)),
			overLimit("/citations/0/quote", LimitQuoteBytes, MaxQuoteBytes, MaxQuoteBytes+1)},
		{`limits/max_quote_bytes: a quote of 16384 escaped \u0041 (98304 bytes written) is accepted`, quote(rep(`\u0041`, MaxQuoteBytes)), nil},
		{`limits/max_quote_bytes: a quote of 16385 escaped \u0041 is one byte over`, quote(rep(`\u0041`, MaxQuoteBytes+1)),
			overLimit("/citations/0/quote", LimitQuoteBytes, MaxQuoteBytes, MaxQuoteBytes+1)},
		{"limits/max_quote_bytes: an exact of 16384 bytes is accepted", exact(rep("a", MaxQuoteBytes)), nil},
		{"limits/max_quote_bytes: an exact one byte over", exact(rep("a", MaxQuoteBytes+1)),
			overLimit("/citations/0/selector/exact", LimitQuoteBytes, MaxQuoteBytes, MaxQuoteBytes+1)},
		{`limits/max_quote_bytes: an exact of 8192 escaped \u00e9 (2 bytes each) is accepted`, exact(rep(`\u00e9`, MaxQuoteBytes/2)), nil},
		{`limits/max_quote_bytes: an exact of 8193 escaped \u00e9 is 16386 bytes`, exact(rep(`\u00e9`, MaxQuoteBytes/2+1)),
			overLimit("/citations/0/selector/exact", LimitQuoteBytes, MaxQuoteBytes, MaxQuoteBytes+2)},
		{"limits/max_quote_bytes: an exact of 4097 escaped surrogate pairs is 16388 bytes", exact(rep(`\ud83d\ude00`, MaxQuoteBytes/4+1)),
			overLimit("/citations/0/selector/exact", LimitQuoteBytes, MaxQuoteBytes, MaxQuoteBytes+4)},

		{"limits/max_context_bytes: a prefix of 1024 bytes is accepted", context("prefix", rep("a", MaxContextBytes)), nil},
		{"limits/max_context_bytes: a prefix one byte over", context("prefix", rep("a", MaxContextBytes+1)),
			overLimit("/citations/0/selector/prefix", LimitContextBytes, MaxContextBytes, MaxContextBytes+1)},
		{"limits/max_context_bytes: a suffix of 1024 bytes is accepted", context("suffix", rep("a", MaxContextBytes)), nil},
		{"limits/max_context_bytes: a suffix one byte over", context("suffix", rep("a", MaxContextBytes+1)),
			overLimit("/citations/0/selector/suffix", LimitContextBytes, MaxContextBytes, MaxContextBytes+1)},
		{`limits/max_context_bytes: a prefix of 1024 escaped \u0041 is accepted`, context("prefix", rep(`\u0041`, MaxContextBytes)), nil},
		{"limits/max_context_bytes: a suffix of 257 four-byte code points is 1028 bytes", context("suffix", rep("😀", MaxContextBytes/4+1)),
			overLimit("/citations/0/selector/suffix", LimitContextBytes, MaxContextBytes, MaxContextBytes+4)},

		{"limits/max_label_bytes: 256-byte labels everywhere are accepted",
			dBody(src(L, L, dAlphabet), `{"citation_id":"`+L+`","source_id":"`+L+`","version":"`+L+`","selector":{`+dPosSel+`},"quote":"efg"}`), nil},
		{"limits/max_label_bytes: sources' source_id one byte over", dBody(src(L+"a", "v1", ""), dCites(1)),
			overLimit("/sources/0/source_id", LimitLabelBytes, MaxLabelBytes, MaxLabelBytes+1)},
		{"limits/max_label_bytes: sources' version one byte over", dBody(src("s", L+"a", ""), dCites(1)),
			overLimit("/sources/0/version", LimitLabelBytes, MaxLabelBytes, MaxLabelBytes+1)},
		{"limits/max_label_bytes: citations' citation_id one byte over", dBody(dSrc, cite(L+"a", "s", "v1")),
			overLimit("/citations/0/citation_id", LimitLabelBytes, MaxLabelBytes, MaxLabelBytes+1)},
		{"limits/max_label_bytes: citations' source_id one byte over", dBody(dSrc, cite("p", L+"a", "v1")),
			overLimit("/citations/0/source_id", LimitLabelBytes, MaxLabelBytes, MaxLabelBytes+1)},
		{"limits/max_label_bytes: citations' version one byte over", dBody(dSrc, cite("p", "s", L+"a")),
			overLimit("/citations/0/version", LimitLabelBytes, MaxLabelBytes, MaxLabelBytes+1)},
		{`limits/max_label_bytes: 128 escaped \u00e9 are 256 bytes, accepted`, dBody(src(rep(`\u00e9`, 128), "v1", ""), dCites(1)), nil},
		{`limits/max_label_bytes: 129 escaped \u00e9 are 258 bytes`, dBody(src(rep(`\u00e9`, 129), "v1", ""), dCites(1)),
			overLimit("/sources/0/source_id", LimitLabelBytes, MaxLabelBytes, MaxLabelBytes+2)},
		{`limits/max_label_bytes: 256 escaped \" are 256 bytes, accepted`, dBody(dSrc, cite(rep(`\"`, 256), "s", "v1")), nil},
		{`limits/max_label_bytes: 257 escaped \\ are 257 bytes`, dBody(dSrc, cite(rep(`\\`, 257), "s", "v1")),
			overLimit("/citations/0/citation_id", LimitLabelBytes, MaxLabelBytes, MaxLabelBytes+1)},
	})
}

// spec §1 step 6.
func TestDecodeScanBudget(t *testing.T) {
	t.Parallel()
	big := `{"source_id":"s","version":"v1","text":"` + rep("a", MaxTextBytes) + `"}`
	tiny := `{"source_id":"s","version":"tiny","text":"x"}`
	astral := `{"source_id":"s","version":"v1","text":"` + rep("😀", MaxTextBytes/4) + `"}`           // 524288 bytes, 262144 UTF-16 units
	lateE := `{"source_id":"s","version":"v1","text":"` + rep("a", MaxTextBytes-2) + `é"}`           // 524288 bytes, 524287 units
	lateEscape := `{"source_id":"s","version":"v1","text":"` + rep("a", MaxTextBytes-2) + `\u00e9"}` // the same text
	astralEscaped := `{"source_id":"s","version":"v1","text":"` + rep(`\ud83d\ude00`, 60000) + `"}`  // 240000 bytes, 120000 units
	unknownID := strings.ReplaceAll(dQuotes(5, "u", "v1"), `"source_id":"s"`, `"source_id":"nobody"`)
	over := dQuotes(33, "q", "v1")
	runDecodeCases(t, []dCase{
		{"scan/32 quote citations of a 524288-unit text are exactly max_scan_units", dBody(big, dQuotes(32, "q", "v1")), nil},
		{"scan/one unit over max_scan_units", dBody(big+","+tiny, dQuotes(32, "q", "v1")+","+dQuotes(1, "t", "tiny")),
			overLimit("/citations", LimitScanUnits, MaxScanUnits, MaxScanUnits+1)},
		{"scan/counting astral chars as 2 units: 64 citations are at the limit", dBody(astral, dQuotes(64, "q", "v1")), nil},
		{"scan/counting astral chars as 2 units: 65 citations are over", dBody(astral, dQuotes(65, "q", "v1")),
			overLimit("/citations", LimitScanUnits, MaxScanUnits, 65*MaxTextBytes/2)},
		{"scan/ignoring quote citations of unknown sources: unknown source_id",
			dBody(big, dQuotes(32, "q", "v1")+","+unknownID), nil},
		{"scan/ignoring quote citations of unknown sources: unknown version",
			dBody(big, dQuotes(32, "q", "v1")+","+dQuotes(5, "n", "v9")), nil},
		{"scan/position citations are not counted", dBody(big, dQuotes(32, "q", "v1")+","+dCites(10)), nil},
		// An ASCII text is measured by its length; a text is ASCII only if
		// no byte of it, nor any \uXXXX, is above ASCII, wherever it is.
		{"scan/one two-byte char after a long ASCII run counts one unit", dBody(lateE, dQuotes(33, "q", "v1")),
			overLimit("/citations", LimitScanUnits, MaxScanUnits, 33*(MaxTextBytes-1))},
		{"scan/one \\u00e9 after a long ASCII run counts one unit", dBody(lateEscape, dQuotes(33, "q", "v1")),
			overLimit("/citations", LimitScanUnits, MaxScanUnits, 33*(MaxTextBytes-1))},
		{"scan/astral chars written as \\u escapes count 2 units each", dBody(astralEscaped, dQuotes(140, "q", "v1")),
			overLimit("/citations", LimitScanUnits, MaxScanUnits, 140*120000)},
		{"scan/a text is counted once per quote citation on it", dBody(big, over),
			overLimit("/citations", LimitScanUnits, MaxScanUnits, 33*MaxTextBytes)},
		{"scan/decided before any citation is checked: a failing first citation does not matter",
			dBody(big, `{"citation_id":"first","source_id":"nobody","version":"v1","selector":{`+dPosSel+`},"quote":"efg"},`+over),
			overLimit("/citations", LimitScanUnits, MaxScanUnits, 33*MaxTextBytes)},
	})
}

// spec §1: the steps run in order and the first failing step decides; within
// a step the first failure in document order is preferred.
func TestDecodeOrder(t *testing.T) {
	t.Parallel()
	bigText := func(ver string) string {
		return `{"source_id":"s","version":"` + ver + `","text":"` + rep("a", MaxTextBytes+1) + `"}`
	}
	big := `{"source_id":"s","version":"v1","text":"` + rep("a", MaxTextBytes) + `"}`
	longQuote := dCite("p", dPosSel, `,"quote":"`+rep("a", MaxQuoteBytes+1)+`"`)
	runDecodeCases(t, []dCase{
		{"order/size beats I-JSON", "\xEF\xBB\xBF" + padTo(dOK, MaxInputBytes), overLimit("", LimitInputBytes, MaxInputBytes, MaxInputBytes+3)},
		{"order/I-JSON beats schema: a later lone surrogate beats an earlier unknown member",
			dBody(`{"source_id":"s","version":"v1","text":"","x":1}`, dCite("p", dPosSel, `,"quote":"\ud800"`)), refused("/citations/0/quote")},
		{"order/I-JSON beats schema: a later duplicate name beats an earlier wrong type",
			dBody(`{"source_id":"s","version":"v1","text":5}`, dCite("p", dPosSel, `,"quote":"efg","quote":"efg"`)), refused("/citations/0/quote")},
		{"order/I-JSON beats schema: a later syntax error beats an earlier missing member",
			dBody(`{"source_id":"s","version":"v1"}`, dCites(1)) + ",", refused("")},
		{"order/I-JSON beats schema: a later second value beats an earlier empty array",
			`{"sources":[],"citations":[` + dCites(1) + `]} {}`, refused("")},
		{"order/schema beats rules: a later unknown member beats an earlier duplicate citation_id",
			dBody(dSrc, dCites(1)+","+dCites(1)+","+dCite("x", dPosSel, `,"quote":"efg","note":1`)), refused("/citations/2/note")},
		{"order/schema beats limits: a later wrong type beats an earlier oversized text",
			dBody(bigText("v1"), dCite("p", `"type":"TextPositionSelector","start":"4","end":7`, `,"quote":"efg"`)), refused("/citations/0/selector/start")},
		{"order/rules beat limits: a duplicate source pair among 17 sources is invalid_input",
			dBody(dSources(16)+`,{"source_id":"t","version":"v0","text":""}`, dCites(1)), refused("/sources/16")},
		{"order/rules beat limits: a later missing quote beats an earlier oversized text",
			dBody(bigText("v1"), dCite("p", dPosSel, "")), refused("/citations/0")},
		{"order/limits beat scan: a label over the limit in an over-budget batch",
			dBody(big, dQuotes(40, "q", "v1")+`,{"citation_id":"`+rep("a", MaxLabelBytes+1)+`","source_id":"s","version":"v1","selector":{"type":"TextQuoteSelector","exact":"x"}}`),
			overLimit("/citations/40/citation_id", LimitLabelBytes, MaxLabelBytes, MaxLabelBytes+1)},
		{"order/the first limit in document order: a text before a quote",
			dBody(bigText("v1"), longQuote), overLimit("/sources/0/text", LimitTextBytes, MaxTextBytes, MaxTextBytes+1)},
		{"order/the first limit in document order: a quote before a text when citations come first",
			`{"citations":[` + longQuote + `],"sources":[` + bigText("v1") + `]}`, overLimit("/citations/0/quote", LimitQuoteBytes, MaxQuoteBytes, MaxQuoteBytes+1)},
		{"order/the first limit in document order: a source_id before its text",
			dBody(`{"source_id":"`+rep("a", MaxLabelBytes+1)+`","version":"v1","text":"`+rep("a", MaxTextBytes+1)+`"}`, dCites(1)),
			overLimit("/sources/0/source_id", LimitLabelBytes, MaxLabelBytes, MaxLabelBytes+1)},
		{"order/the first limit in document order: a prefix before exact in one selector",
			dBody(dSrc, dCite("q", `"type":"TextQuoteSelector","prefix":"`+rep("a", MaxContextBytes+1)+`","exact":"`+rep("a", MaxQuoteBytes+1)+`"`, "")),
			overLimit("/citations/0/selector/prefix", LimitContextBytes, MaxContextBytes, MaxContextBytes+1)},
		{"order/the first limit in document order: exact before a suffix in one selector",
			dBody(dSrc, dCite("q", `"type":"TextQuoteSelector","exact":"`+rep("a", MaxQuoteBytes+1)+`","suffix":"`+rep("a", MaxContextBytes+1)+`"`, "")),
			overLimit("/citations/0/selector/exact", LimitQuoteBytes, MaxQuoteBytes, MaxQuoteBytes+1)},
		{"order/the first limit in document order: a suffix before a prefix in one selector",
			dBody(dSrc, dCite("q", `"type":"TextQuoteSelector","exact":"x","suffix":"`+rep("a", MaxContextBytes+1)+`","prefix":"`+rep("a", MaxContextBytes+2)+`"`, "")),
			overLimit("/citations/0/selector/suffix", LimitContextBytes, MaxContextBytes, MaxContextBytes+1)},
		{"order//sources count beats an oversized text inside it",
			dBody(bigText("v1")+","+dSources(16), dCites(1)), overLimit("/sources", LimitSources, MaxSources, 17)},
		{"order//citations count beats an oversized quote inside it",
			dBody(dSrc, longQuote+","+dCites(256)), overLimit("/citations", LimitCitations, MaxCitations, 257)},
		{"order/an oversized text before /citations beats the citations count",
			dBody(bigText("v1"), dCites(257)), overLimit("/sources/0/text", LimitTextBytes, MaxTextBytes, MaxTextBytes+1)},
	})
}

// Decode's request holds the decoded values, copied out of the body.
func TestDecodeRequestHoldsTheDecodedValues(t *testing.T) {
	t.Parallel()
	body := []byte(dBody(`{"text":"caf\u00e9 \ud83d\ude00\r\n","version":"v\"1","source_id":"s\/x"}`,
		`{"citation_id":"p","source_id":"s/x","version":"v\"1","selector":{"end":2,"start":1,"type":"TextPositionSelector"},"quote":"a"},`+
			`{"claimed_start":4.0,"citation_id":"q","source_id":"s/x","version":"v\"1","selector":{"type":"TextQuoteSelector","exact":"\ud83d\ude00","prefix":"","suffix":"\r\n"}},`+
			`{"citation_id":"r","source_id":"s/x","version":"v\"1","selector":{"type":"TextQuoteSelector","exact":"\u00e9"}}`))
	orig := bytes.Clone(body)
	req, err := Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	want := &Request{
		Sources: []Source{{SourceID: "s/x", Version: `v"1`, Text: "café 😀\r\n"}},
		Citations: []Citation{
			{CitationID: "p", SourceID: "s/x", Version: `v"1`, Selector: Selector{Type: PositionSelector, Start: 1, End: 2}, Quote: "a"},
			{CitationID: "q", SourceID: "s/x", Version: `v"1`, Selector: Selector{Type: QuoteSelector, Exact: "😀", Suffix: "\r\n"}, ClaimedStart: 4, HasClaimedStart: true},
			{CitationID: "r", SourceID: "s/x", Version: `v"1`, Selector: Selector{Type: QuoteSelector, Exact: "é"}},
		},
	}
	if !equalRequests(req, want) {
		t.Fatalf("got  %+v\nwant %+v", req, want)
	}
	t.Run("decode/the body is not modified", func(t *testing.T) {
		if !bytes.Equal(body, orig) {
			t.Fatal("Decode wrote into the body")
		}
	})
	t.Run("decode/the request does not share memory with the body", func(t *testing.T) {
		for i := range body {
			body[i] = 'X'
		}
		if !equalRequests(req, want) {
			t.Fatalf("the request changed with the body: %+v", req)
		}
	})
}

func equalRequests(a, b *Request) bool {
	if len(a.Sources) != len(b.Sources) || len(a.Citations) != len(b.Citations) {
		return false
	}
	for i := range a.Sources {
		if a.Sources[i] != b.Sources[i] {
			return false
		}
	}
	for i := range a.Citations {
		if a.Citations[i] != b.Citations[i] {
			return false
		}
	}
	return true
}

// The error object (spec §1): limit, max and actual only with limit_exceeded.
func TestErrorObjectJSON(t *testing.T) {
	t.Parallel()
	// The message is free text; MSG stands for it below.
	for _, c := range []struct {
		name string
		body string
		want string
	}{
		{"error/invalid_input has code, message and path only", `{"sources":[],"citations":[]}`,
			`{"error":{"code":"invalid_input","message":MSG,"path":"/sources"}}`},
		{"error/limit_exceeded adds limit, max and actual", dBody(`{"source_id":"s","version":"v1","text":"`+rep("a", 600000)+`"}`, dCites(1)),
			`{"error":{"code":"limit_exceeded","message":MSG,"path":"/sources/0/text","limit":"max_text_bytes","max":524288,"actual":600000}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Run([]byte(c.body))
			if err == nil {
				t.Fatalf("accepted: %s", res.AppendJSON(nil))
			}
			want := strings.Replace(c.want, "MSG", testkit.JSONString(AsError(err).Message), 1)
			if got := string(AppendEnvelope(nil, res, err)); got != want {
				t.Fatalf("got  %s\nwant %s", got, want)
			}
		})
	}
}

// TestWhereSpellsLineBreakingRunesAsEscapes: a path in a one-line message
// shows each rune that could break the line (every C0 and C1 control,
// DEL, U+2028 and U+2029) as \u and four upper-case hex digits, as %04X
// writes them, and every other rune as it is.
func TestWhereSpellsLineBreakingRunesAsEscapes(t *testing.T) {
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		want := "a" + string(r) + "b"
		if isLineBreaking(r) {
			want = "a" + fmt.Sprintf(`\u%04X`, r) + "b"
		}
		if got := where("/a" + string(r) + "b"); got != want {
			t.Fatalf("where of a path holding U+%04X = %q, want %q", r, got, want)
		}
	}
}
