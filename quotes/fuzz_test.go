package quotes

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
	"github.com/go-json-experiment/json/jsontext"
)

// extractSeeds are reports of every rule and its edges.
var extractSeeds = []string{
	"Il a dit : « La liberté est le droit de faire ce que les lois permettent. » [1]\n",
	"„Die Grenzen meiner Sprache bedeuten die Grenzen meiner Welt.“ [^w]",
	"「吾輩は猫である。名前はまだ無い。」[2]",
	"> It is a truth universally acknowledged\n> that a single man [3]\n\nafter",
	"\"unclosed and “closed at last, well past twenty”.[x](http://link)",
	"a \"b\r\nc\" [1]\r\n\r\n> q\r>\r> [2]",
	"«««»»» „“”「『』」 [[]] [^] [1][2]",
	"   > three\n    > four\n\t> tab",
	"\xff\"\xfe\" [\xfd]",
	"> Les hommes naissent et demeurent [2][1]\n>  > q [1] [2]\n>\t> r\n> \t>s\n>     > code [^a]\t[b]",
	"\n\n\r\r\n> \n>\n\r\n\"a\r\nb\" [c\nd]",
}

// FuzzExtract: the extractor agrees with the brute-force reference on
// every input, and its work stays within a constant times the input's
// length (spec §5.13: extraction is linear).
func FuzzExtract(f *testing.F) {
	for _, s := range extractSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var w workCounter
		got := extract(b, &w)
		if want := referenceExtract(b); !sameQuotations(got, want) {
			t.Fatalf("input %q\n got  %+v\n want %+v", b, got, want)
		}
		if bound := workPerByte*len(b) + 16; w.steps > bound {
			t.Fatalf("%d steps for %d bytes, over %d", w.steps, len(b), bound)
		}
	})
}

func sameQuotations(a, b []Quotation) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

// extremeNumbers are the integers at and past every bound a reader
// holds: ±(2^53−1) and one past, ±2^63, an exponent past binary64, -0,
// and integers written as fractions and exponents.
var extremeNumbers = []string{"9007199254740991", "9007199254740992", "-9007199254740992", "9223372036854775807",
	"9223372036854775808", "-9223372036854775808", "1e400", "-1e400", "1e-400", "-0", "1.0", "1e3", "0.5", "18446744073709551616"}

// readSeeds are inputs of each JSON shape, with extreme numbers in every
// integer member and sizes at and past the nesting bound.
func readSeeds() []string {
	seeds := []string{
		`{"type":"message","content":[{"type":"text","text":"x","citations":[{"type":"char_location","cited_text":"ab","document_index":0,"start_char_index":0,"end_char_index":2}]}]}`,
		`{"type":"message","content":[{"type":"text","citations":[{"type":"content_block_location","cited_text":"ab","document_index":1,"start_block_index":0,"end_block_index":1},{"type":"web_search_result_location","cited_text":"w","url":"u"}]}]}`,
		`{"type":"message","content":[{"type":"text","citations":null},{"type":"tool_use","citations":7}]}`,
		`{"answer":"x","citations":[{"source_id":1,"quote":"q"},{"source_id":"a","quote":"r"},{"quote":"s"}]}`,
		`{"citations":[{"source_id":1.5,"quote":"q"}]}`, `{"citations":[{"quote":"q"},]}`, `{"citations":[{"quote":"a\ud800b"}]}`,
		`{"messages":[{"role":"user","content":[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"abc"}},{"type":"document","source":{"type":"content","content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]}}]}]}`,
		`{"messages":[{"content":[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}}]}]}`,
		`{"type":"message","type":"message"}`, `{"citations":` + strings.Repeat("[", maxNesting-1) + strings.Repeat("]", maxNesting-1) + `}`,
		`{"citations":` + strings.Repeat("[", maxNesting) + strings.Repeat("]", maxNesting) + `}`,
		`["a"]`, `{`, "\uFEFF{\"citations\":[]}", "plain “text” here", "{\"citations\":[{\"quote\":\"\xff\"}]}",
	}
	for _, n := range extremeNumbers {
		for _, m := range []string{"document_index", "start_char_index", "end_char_index", "start_block_index", "end_page_number"} {
			seeds = append(seeds, `{"type":"message","content":[{"type":"text","citations":[{"type":"char_location","cited_text":"ab","document_index":0,"start_char_index":0,"end_char_index":2,"`+m+`":`+n+`}]}]}`)
		}
		seeds = append(seeds, `{"citations":[{"source_id":`+n+`,"quote":"q"}]}`)
	}
	return seeds
}

// checkQuotations holds what every read that succeeds yields: texts and
// markers valid UTF-8, the shape's fields and no other's, and every
// number of a location within [0, 2^53−1].
func checkQuotations(t *testing.T, sh Shape, qs []Quotation) {
	t.Helper()
	for _, q := range qs {
		if !utf8.ValidString(q.Text) || !utf8.ValidString(q.Marker) {
			t.Fatalf("a quotation that is not UTF-8: %q [%q]", q.Text, q.Marker)
		}
		if sh == Anthropic && q.Location == nil || sh != Anthropic && q.Location != nil {
			t.Fatalf("%s quotation with location %v", sh, q.Location)
		}
		if l := q.Location; l != nil {
			for _, n := range []int{l.Block, l.Document, l.Start, l.End} {
				if n < 0 || n > citecheck.MaxSafeInteger {
					t.Fatalf("a location number %d out of range: %+v", n, l)
				}
			}
		}
	}
}

// FuzzDetect: shape detection never panics, answers a *citecheck.Error
// in plain words, and tells JSON apart exactly: an input detected as a
// JSON shape is valid JSON, one refused as not JSON is not.
func FuzzDetect(f *testing.F) {
	for _, s := range readSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sh, err := Detect(b)
		valid := jsontext.Value(trimBOM(b)).IsValid(jsontext.AllowDuplicateNames(false))
		if err != nil {
			mustBeInvalid(t, err)
			mustBePlain(t, err.Error(), b)
			if strings.Contains(err.Error(), "not JSON") && valid {
				t.Fatalf("%q refused as not JSON: %v", b, err)
			}
			return
		}
		if sh != Report && !valid {
			t.Fatalf("%q detected as %s but not JSON", b, sh)
		}
	})
}

// FuzzReadStructured: a structured answer is read or refused in plain
// words, never with a panic; what is read is UTF-8, and every integer
// source_id is a marker within ±(2^53−1).
func FuzzReadStructured(f *testing.F) {
	for _, s := range readSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		qs, err := Read(b, Structured)
		if err != nil {
			mustBeInvalid(t, err)
			mustBePlain(t, err.Error(), b)
			return
		}
		checkQuotations(t, Structured, qs)
		for _, q := range qs {
			if n, err := strconv.ParseInt(q.Marker, 10, 64); err == nil && (n > citecheck.MaxSafeInteger || n < -citecheck.MaxSafeInteger) {
				t.Fatalf("marker %s out of range", q.Marker)
			}
		}
	})
}

// FuzzReadAnthropic: an Anthropic response is read or refused in plain
// words; every location's numbers are within [0, 2^53−1], and checking
// what was read against a small document never panics.
func FuzzReadAnthropic(f *testing.F) {
	for _, s := range readSeeds() {
		f.Add([]byte(s))
	}
	srcs := []Source{{ID: "0", Text: "abc"}, {ID: "1", Text: "ab", Blocks: []int{0, 1, 2}}}
	f.Fuzz(func(t *testing.T, b []byte) {
		qs, err := Read(b, Anthropic)
		if err != nil {
			mustBeInvalid(t, err)
			mustBePlain(t, err.Error(), b)
			return
		}
		checkQuotations(t, Anthropic, qs)
		if len(qs) <= 64 {
			if _, err := CheckQuotations(context.Background(), qs, srcs, Options{Explain: true}); err != nil {
				mustBeInvalid(t, err)
			}
		}
	})
}

// FuzzReadRequest: a Messages request is read or refused in plain words;
// each document's blocks end at its text's end, and a document without
// text says how to give it.
func FuzzReadRequest(f *testing.F) {
	for _, s := range readSeeds() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		docs, err := ReadRequest(b)
		if err != nil {
			mustBeInvalid(t, err)
			mustBePlain(t, err.Error(), b)
			return
		}
		for _, d := range docs {
			if d.Blocks != nil && d.Blocks[len(d.Blocks)-1] != len([]rune(d.Text)) {
				t.Fatalf("blocks %v for a text of %d code points", d.Blocks, len([]rune(d.Text)))
			}
			if !utf8.ValidString(d.Text) || d.HasText == (d.NoText() != "") {
				t.Fatalf("document %+v", d)
			}
		}
	})
}

// FuzzReadReport: a report is read whole, its offsets, lines and columns
// inside the input, and its texts UTF-8 wherever the input is.
func FuzzReadReport(f *testing.F) {
	for _, s := range extractSeeds {
		f.Add([]byte(s))
		f.Add([]byte("\uFEFF" + s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		qs, err := Read(b, Report)
		if err != nil {
			t.Fatalf("a report refused: %v", err)
		}
		for _, q := range qs {
			if q.Offset < 0 || q.Offset >= len(b) || q.End <= q.Offset || q.End > len(b) || q.Line < 1 || q.Column < 1 || q.Line > len(b)+1 {
				t.Fatalf("%+v outside %d bytes", q, len(b))
			}
			if utf8.Valid(b) && !utf8.ValidString(q.Text) {
				t.Fatalf("%q from UTF-8", q.Text)
			}
		}
	})
}

func trimBOM(b []byte) []byte {
	if len(b) >= 3 && string(b[:3]) == "\uFEFF" {
		return b[3:]
	}
	return b
}

func mustBeInvalid(t *testing.T, err error) {
	t.Helper()
	var ce *citecheck.Error
	if !errors.As(err, &ce) || ce.Code != citecheck.CodeInvalidInput || ce.Message == "" {
		t.Fatalf("error %v (%T), want invalid_input", err, err)
	}
}

func errorsAs(err error, target any) bool { return errors.As(err, target) }

// FuzzCheck: on any report, against real sources, each outcome agrees
// with a plain substring search: verbatim is in the source it names (the
// marked one, or the first without a marker), elsewhere is not in the
// marked source but in the one named, and near and not_found are in none
// it could have been in. Every failing result has a message within
// MessageMax, and its line is JSON.
func FuzzCheck(f *testing.F) {
	for _, s := range extractSeeds {
		f.Add([]byte(s))
	}
	f.Add([]byte("«Все счастливые семьи» [ru] «все счастливые» [ru] „fand er sich“ [fr] «x» [9] «Les hommes naissent … en droits» [fr]"))
	srcs := library()
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := Check(context.Background(), b, srcs, Options{Explain: true})
		if err != nil {
			mustBeInvalid(t, err)
			return
		}
		ids := map[string]int{}
		for i, s := range srcs {
			ids[s.ID] = i
		}
		for k, r := range a.Results {
			// The message: one for every failing result, within its
			// bound, its line still JSON.
			if m := a.Message(k); (m == "") != (r.Outcome == Verbatim) || utf8.RuneCountInString(m) > MessageMax || !utf8.ValidString(m) {
				t.Fatalf("%s: message %q", r.Outcome, m)
			}
			if line := a.AppendJSON(nil, k); !jsontext.Value(line).IsValid() {
				t.Fatalf("line is not JSON: %s", line)
			}
			in := func(i int) bool { return r.Text != "" && strings.Contains(srcs[i].Text, r.Text) }
			anyIn := -1
			for i := range srcs {
				if in(i) {
					anyIn = i
					break
				}
			}
			marked, known := ids[r.Marker]
			switch {
			case r.Location != nil:
				t.Fatalf("a report with a location")
			case r.Marked && !known:
				if r.Outcome != NoSource {
					t.Fatalf("%s for unknown marker %q", r.Outcome, r.Marker)
				}
			case r.Outcome == Verbatim && r.Marked:
				if r.Source != marked || !in(marked) {
					t.Fatalf("verbatim %q not in its source", r.Text)
				}
			case r.Outcome == Verbatim:
				if r.Source != anyIn {
					t.Fatalf("verbatim %q in %d, first source with it %d", r.Text, r.Source, anyIn)
				}
			case r.Outcome == Elsewhere:
				if in(marked) || r.Source != anyIn || anyIn < 0 {
					t.Fatalf("elsewhere %q: in marked %v, named %d, first %d", r.Text, in(marked), r.Source, anyIn)
				}
			case r.Outcome == Near || r.Outcome == NotFound:
				if anyIn >= 0 {
					t.Fatalf("%s %q, but source %d has it", r.Outcome, r.Text, anyIn)
				}
			case r.Outcome == NotChecked:
				if r.Text != "" && r.Limit == nil {
					t.Fatalf("not_checked %q without a limit", r.Text)
				}
			default:
				t.Fatalf("outcome %s for a report", r.Outcome)
			}
		}
	})
}
