package quotes

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// citationWith is an Anthropic response with one char_location citation
// whose members after its type are members.
func citationWith(members string) string {
	return `{"type":"message","content":[{"type":"text","text":"x","citations":[{"type":"char_location","cited_text":"ab",` + members + `}]}]}`
}

// Every integer of an Anthropic response is read by the engine's rule
// (spec §1, §5.13): its exact value, an integer from 0 to 2^53−1; any
// other is refused as invalid_input naming its JSON Pointer, before a
// check could compute with it. The first row is the input that crashed
// the command and the service.
func TestAnthropicIntegersAreBoundedAsTheEnginesAre(t *testing.T) {
	t.Parallel()
	const at = "/content/0/citations/0/"
	for _, c := range []struct {
		name, members string
		start         int    // the start read, when accepted
		err           string // else what the message says
	}{
		{"2^63−1 is refused", `"document_index":0,"start_char_index":9223372036854775807,"end_char_index":2`, 0, at + "start_char_index is 9223372036854775807, which is outside ±(2^53−1)"},
		{"2^53 is refused", `"document_index":0,"start_char_index":9007199254740992,"end_char_index":2`, 0, at + "start_char_index is 9007199254740992, which is outside"},
		{"2^53−1 is read", `"document_index":0,"start_char_index":9007199254740991,"end_char_index":9007199254740991`, 9007199254740991, ""},
		{"−2^63 is refused", `"document_index":0,"start_char_index":0,"end_char_index":-9223372036854775808`, 0, at + "end_char_index is -9223372036854775808, which is outside"},
		{"1e400 is refused", `"document_index":1e400,"start_char_index":0,"end_char_index":2`, 0, at + "document_index is 1e400, which is outside"},
		{"a huge exponent is refused", `"document_index":0,"start_char_index":1e99999999999999999999,"end_char_index":2`, 0, "outside"},
		{"a negative is refused", `"document_index":0,"start_char_index":-1,"end_char_index":2`, 0, at + "start_char_index is -1, which is negative"},
		{"a fraction is refused", `"document_index":0,"start_char_index":1.5,"end_char_index":2`, 0, at + "start_char_index is 1.5, which is not an integer"},
		{"1e-400 is refused", `"document_index":0,"start_char_index":1e-400,"end_char_index":2`, 0, "is not an integer"},
		{"a string is refused", `"document_index":0,"start_char_index":"1","end_char_index":2`, 0, at + "start_char_index is a string, not an integer"},
		{"1e3 is 1000", `"document_index":0,"start_char_index":1e3,"end_char_index":1002`, 1000, ""},
		{"1.0 is 1", `"document_index":0,"start_char_index":1.0,"end_char_index":3`, 1, ""},
		{"-0 is 0", `"document_index":0,"start_char_index":-0,"end_char_index":2`, 0, ""},
		{"null is absent", `"document_index":0,"start_char_index":null,"end_char_index":2`, 0, `has no "start_char_index"`},
		{"a number of another location type is bounded too", `"document_index":0,"start_char_index":0,"end_char_index":2,"start_page_number":1e300`, 0, at + "start_page_number is 1e300"},
		{"end_block_index", `"document_index":0,"start_char_index":0,"end_char_index":2,"end_block_index":-3`, 0, at + "end_block_index is -3, which is negative"},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := []byte(citationWith(c.members))
			qs, err := Read(in, Anthropic)
			if c.err == "" {
				if err != nil || len(qs) != 1 || qs[0].Location.Start != c.start {
					t.Fatalf("%+v, %v; want start %d", qs, err, c.start)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("error %v, want %q", err, c.err)
			}
			mustBeInvalid(t, err)
			// Through the whole check, as the command and check_quotes run it.
			_, err = Check(context.Background(), in, []Source{{ID: "0", Text: "abc"}}, Options{Explain: true})
			mustBeInvalid(t, err)
		})
	}
}

// A structured answer's integer source_id is read by the engine's rule:
// its decimal value is the marker, within ±(2^53−1).
func TestStructuredSourceIDIsReadByTheEnginesIntegerRule(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ id, marker, err string }{
		{"7", "7", ""},
		{"1.0", "1", ""},
		{"1e1", "10", ""},
		{"-0", "0", ""},
		{"-5", "-5", ""},
		{"9007199254740991", "9007199254740991", ""},
		{"9007199254740992", "", "/citations/0/source_id is 9007199254740992, which is outside ±(2^53−1)"},
		{"-9223372036854775809", "", "which is outside"},
		{"1e400", "", "which is outside"},
		{"1.5", "", "/citations/0/source_id is 1.5, which is not an integer"},
		{"true", "", "/citations/0/source_id is a boolean, not a string or an integer"},
	} {
		qs, err := Read([]byte(`{"citations":[{"source_id":`+c.id+`,"quote":"q"}]}`), Structured)
		switch {
		case c.err == "" && (err != nil || len(qs) != 1 || qs[0].Marker != c.marker || !qs[0].Marked):
			t.Errorf("%s: %+v, %v; want marker %q", c.id, qs, err, c.marker)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.id, err, c.err)
		}
	}
}

// The readers' messages are plain words (spec §5.13): what is wrong, at
// which byte, in which value (JSON Pointer); never a parser's wording, a
// Go type or a library's name.
func TestReaderMessagesArePlainWords(t *testing.T) {
	t.Parallel()
	const anth = `{"type":"message","content":[{"type":"text","citations":[`
	for _, c := range []struct {
		name, input string
		read        func([]byte) error
		want        string
	}{
		{"a trailing comma in an array", `{"citations":[{"source_id":"a","quote":"q"},]}`, detects,
			"a trailing comma: the array's last item is followed by ',' and then ']' at byte 43 (in /citations)"},
		{"a trailing comma in an object", `{"citations":[{"quote":"q",}]}`, detects,
			"a trailing comma: the object's last member is followed by ',' and then '}' at byte 26 (in /citations/0)"},
		{"truncated", `{"citations":[{"quote":"q"`, detects, "the input ends before the object opened at byte 14 is closed at byte 26 (in /citations/0)"},
		{"truncated in a string", `{"citations":[{"quote":"q`, detects, `the input ends before the string that starts at byte 23 is closed by '"' at byte 25`},
		{"an unquoted name", `{citations:[]}`, detects, "a member name must be a string in double quotes, not 'c' at byte 1"},
		{"a single-quoted name", `{'citations':[]}`, detects, `a member name must be a string in double quotes, not "'" at byte 1`},
		{"a missing comma", `{"citations":[{"quote":"q"} {"quote":"r"}]}`, detects, "a ',' is missing between two items of an array at byte 28 (in /citations)"},
		{"a missing colon", `{"citations" []}`, detects, `a ':' must follow the member name "citations", not '[' at byte 13 (in /citations)`},
		{"a member twice", `{"citations":[{"quote":"q","quote":"r"}]}`, detects, `the member "quote" appears twice in one object at byte 27 (in /citations/0/quote)`},
		{"a lone high surrogate", `{"citations":[{"quote":"a\ud800b"}]}`, detects, `a string holds \uD800, the first half of a surrogate pair without the second: it is no character at byte 25 (in /citations/0/quote)`},
		{"a lone low surrogate", `{"citations":[{"quote":"\udc00"}]}`, detects, `\uDC00, the second half of a surrogate pair`},
		{"invalid UTF-8 in a string", "{\"citations\":[{\"quote\":\"a\xffb\"}]}", detects, "a string holds the byte 0xFF, which is not UTF-8 at byte 25 (in /citations/0/quote)"},
		{"a control character", "{\"citations\":[{\"quote\":\"a\nb\"}]}", detects, `a string holds the control character U+000A; inside a string it must be written as an escape such as \n`},
		{"a bad escape", `{"citations":[{"quote":"\q"}]}`, detects, `a string holds \q, not an escape JSON has`},
		{"a leading zero", `{"citations":[{"source_id":01,"quote":"q"}]}`, detects, "a number not written as JSON writes numbers"},
		{"a bare word", `{"citations":[{"quote":tru}]}`, detects, "a value that is not JSON (only true, false and null are written without quotes) at byte 23 (in /citations/0/quote)"},
		{"text after the value", `{"citations":[]} x`, detects, "more follows the end of the JSON value: 'x' at byte 17"},
		{"a byte order mark counts in the offset", "\uFEFF{\"citations\":[1,]}", detects, "at byte 18 (in /citations)"},
		{"a byte order mark inside is not white space", "{\uFEFF\"citations\":[]}", detects, "not U+FEFF at byte 1"},
		{"nesting too deep", `{"citations":` + strings.Repeat("[", 10001), detects, "objects and arrays nested deeper than 10000"},
		{"a trailing comma after white space", `{"citations":[1 , ]}`, detects,
			"a trailing comma: the array's last item is followed by ',' and then ']' at byte 16 (in /citations)"},
		{"a closer of the other kind", `{"citations":[1}`, detects, "'}' follows an item; only ',' or ']' can at byte 15 (in /citations)"},
		{"a missing comma between members", `{"citations":[],"a":1 "b":2}`, detects, "a ',' is missing between two members of an object at byte 22"},
		{"a literal run into a digit", `{"citations":[],"a":true1}`, detects, "a value that is not JSON (only true, false and null are written without quotes) at byte 20 (in /a)"},
		{"a number run into a dot", `{"citations":[],"a":1.5.5}`, detects, "a number not written as JSON writes numbers (digits, with no leading zero, no '+' and no bare '.') at byte 20 (in /a)"},
		{"a short \\u escape", `{"citations":[{"quote":"\u12"}]}`, detects, `a \u escape must have four hexadecimal digits at byte 24 (in /citations/0/quote)`},
		{"a backslash before a byte that is not UTF-8", "{\"citations\":[{\"quote\":\"\\\xff\"}]}", detects,
			"a string holds a backslash followed by the byte 0xFF, which is not UTF-8, not an escape JSON has"},
		{"a member name that is not UTF-8", "{\"\xff\":1}", detects, "a string holds the byte 0xFF, which is not UTF-8 at byte 2"},
		{"a member name with a lone surrogate", `{"\ud800":1}`, detects, `a string holds \uD800, the first half of a surrogate pair without the second: it is no character at byte 2`},
		{"truncated after a member name", `{"citations"`, detects, "the input ends before the object opened at byte 0 is closed at byte 12"},
		{"a member without a value", `{"citations":}`, detects, "'}' cannot start a value (a value is a string in double quotes, a number, true, false, null, an object or an array) at byte 13 (in /citations)"},
		{"a second value", `{"citations":[]}{}`, detects, "more follows the end of the JSON value: '{' at byte 16"},
		{"nothing but a byte order mark", "\uFEFF ", structured, "the input ends before a value at byte 4"},
		{"a structured quote of the wrong kind", `{"citations":[{"quote":["q"]}]}`, structured, "the structured answer: /citations/0/quote is an array, not a string"},
		{"a citation that is not an object", `{"citations":["q"]}`, structured, `/citations/0 is a string, not a citation {"source_id", "quote"}`},
		{"content that is not an array", `{"type":"message","content":{}}`, anthropic, "/content is an object, not an array of content blocks"},
		{"a block type that is not a string", `{"type":"message","content":[{"type":7}]}`, anthropic, "/content/0/type is a number, not a string"},
		{"citations that are not an array", `{"type":"message","content":[{"type":"text","citations":"x"}]}`, anthropic, "/content/0/citations is a string, not an array of citations"},
		{"a citation that is not an object", anth + `3]}]}`, anthropic, "/content/0/citations/0 is a number, not a citation"},
		{"cited_text that is not a string", anth + `{"type":"page_location","cited_text":1}]}]}`, anthropic, "/content/0/citations/0/cited_text is a number, not a string"},
		{"a request trailing comma", `{"messages":[{"content":[{"type":"document"},]}]}`, request, "a trailing comma: the array's last item is followed by ',' and then ']' at byte 44 (in /messages/0/content)"},
		{"a request's message not an object", `{"messages":[1]}`, request, "/messages/0 is a number, not a message (an object)"},
		{"a request's document source not an object", `{"messages":[{"content":[{"type":"document","source":"x"}]}]}`, request, "/messages/0/content/0/source is a string, not an object"},
		{"a content source's block without text", `{"messages":[{"content":[{"type":"document","source":{"type":"content","content":[{"type":"text"}]}}]}]}`, request,
			`/messages/0/content/0/source/content/0 is a text block without a "text" string`},
		{"a request that is not JSON", `{"messages":[}`, request, "'}' cannot start a value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.read([]byte(c.input))
			if err == nil {
				t.Fatalf("accepted")
			}
			mustBeInvalid(t, err)
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("message %q\nwant it to say %q", err, c.want)
			}
			mustBePlain(t, err.Error())
		})
	}
}

func detects(b []byte) error    { _, err := Detect(b); return err }
func structured(b []byte) error { _, err := Read(b, Structured); return err }
func anthropic(b []byte) error  { _, err := Read(b, Anthropic); return err }
func request(b []byte) error    { _, err := ReadRequest(b); return err }

// mustBePlain fails a message that names a library, a Go type or a
// parser's state, or that is not one line.
//
// A word the input itself holds may be its echo (a member named "[]"), so
// with the input given, only the words it does not hold count.
func mustBePlain(t *testing.T, msg string, input ...[]byte) {
	t.Helper()
	for _, bad := range []string{"jsontext", "json:", "Go ", "struct {", "struct{", "[]", "expecting", "unmarshal", "\n"} {
		if strings.Contains(msg, bad) && (bad == "\n" || len(input) == 0 || !bytes.Contains(input[0], []byte(bad))) {
			t.Errorf("message %q holds %q", msg, bad)
		}
	}
}

// A document the request carries without text (a PDF, a URL, a file)
// keeps its number and says what it is and how to give its text.
func TestATextlessDocumentSaysHowToGiveItsText(t *testing.T) {
	t.Parallel()
	req := `{"messages":[{"role":"user","content":[
		{"type":"document","source":{"type":"text","media_type":"text/plain","data":"abc"}},
		{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}},
		{"type":"document","source":{"type":"url","url":"https://example.invalid/a.pdf"}},
		{"type":"document","source":{"type":"file","file_id":"f"}}]}]}`
	docs, err := ReadRequest([]byte(req))
	if err != nil {
		t.Fatal(err)
	}
	if docs[0].NoText() != "" {
		t.Errorf("a text document: %q", docs[0].NoText())
	}
	for i, carries := range []string{"", "a PDF as base64 data", "a URL", "a file of the Files API"} {
		if i == 0 {
			continue
		}
		d := docs[i]
		if d.HasText || d.Carries != carries {
			t.Errorf("document %d: %+v, want it to carry %q", i, d, carries)
		}
		why := d.NoText()
		for _, want := range []string{"document " + d.ID + " is " + carries, "reads no text", "--source " + d.ID + "=FILE", `{"id": "` + d.ID + `"`} {
			if !strings.Contains(why, want) {
				t.Errorf("document %d: %q does not say %q", i, why, want)
			}
		}
	}
}

// A report that starts with a byte order mark reads as without it: the
// first line's blockquote is one, and columns are those an editor shows;
// Offset counts the input's bytes, the mark included.
func TestAReportsByteOrderMarkIsNotText(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, report string
		text         string
		line, column int
		offset       int
	}{
		{"a blockquote on the first line", "\uFEFF> Call me Ishmael. Some years ago [1]", "Call me Ishmael. Some years ago", 1, 1, 3},
		{"a quotation on the first line", "\uFEFF«Les hommes naissent libres» [fr]", "Les hommes naissent libres", 1, 1, 3},
		// Its "citations" even has a marker: [{…}] after one ':'.
		{"two marks: the second is text, and JSON after it is a report", "\uFEFF\uFEFF{\"citations\":[{\"quote\":\"q\",\"source_id\":\"a\"}]}",
			"citations", 1, 3, 7},
	} {
		t.Run(c.name, func(t *testing.T) {
			sh, err := Detect([]byte(c.report))
			if err != nil || sh != Report {
				t.Fatalf("%v, %v", sh, err)
			}
			qs, err := Read([]byte(c.report), Report)
			if err != nil || len(qs) != 1 {
				t.Fatalf("%+v, %v", qs, err)
			}
			q := qs[0]
			if q.Text != c.text || q.Line != c.line || q.Column != c.column || q.Offset != c.offset {
				t.Errorf("%q at %d:%d@%d; want %q at %d:%d@%d", q.Text, q.Line, q.Column, q.Offset, c.text, c.line, c.column, c.offset)
			}
		})
	}
}

// The JSON shapes nest at most maxNesting (10,000) objects and arrays
// deep, the outer object included (spec §5.13): one level more is
// refused at the byte that opens it.
func TestJSONNestsAtMost10000Deep(t *testing.T) {
	t.Parallel()
	nested := func(depth int) []byte { // the object and depth−1 arrays
		return []byte(`{"citations":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + `}`)
	}
	if sh, err := Detect(nested(maxNesting)); err != nil || sh != Structured {
		t.Errorf("%d deep: %v, %v", maxNesting, sh, err)
	}
	_, err := Detect(nested(maxNesting + 1))
	want := "objects and arrays nested deeper than 10000 levels at byte " + strconv.Itoa(len(`{"citations":`)+maxNesting-1)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("%d deep: %v, want %q", maxNesting+1, err, want)
	}
}

// Every fault jsontext finds is described in our words at a byte of the
// input: over every input of up to 5 bytes (4 with -short) of an
// alphabet that makes each kind of fault, the offset is within the
// input and the description is one of the specific ones, never the
// fallback kept for a fault the description does not know.
func TestEveryJSONFaultIsDescribedAtItsByte(t *testing.T) {
	t.Parallel()
	alphabet := []byte(`{}[]",:1-e\u t` + "\xff")
	n := 5
	if testing.Short() {
		n = 4
	}
	var sweep func(b []byte)
	sweep = func(b []byte) {
		if e := checkJSON(b, 0, nil); e != nil {
			if e.at < 0 || e.at > len(b) || strings.HasSuffix(e.what, "is not JSON") || strings.Contains(e.what, "a string that is not JSON") {
				t.Fatalf("%q: %s", b, e)
			}
		} else if !jsontext.Value(b).IsValid() {
			t.Fatalf("%q accepted", b)
		}
		if len(b) < n {
			for _, c := range alphabet {
				sweep(append(b, c))
			}
		}
	}
	sweep(nil)
}
