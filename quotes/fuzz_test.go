package quotes

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

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

// FuzzRead: shape detection and the JSON readers never panic, answer
// either quotations or a *citecheck.Error, and tell JSON apart exactly:
// an input detected as a JSON shape is valid JSON.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		`{"type":"message","content":[{"type":"text","text":"x","citations":[{"type":"char_location","cited_text":"ab","document_index":0,"start_char_index":0,"end_char_index":2}]}]}`,
		`{"type":"message","content":[{"type":"text","citations":[{"type":"content_block_location","cited_text":"ab","document_index":1,"start_block_index":0,"end_block_index":1},{"type":"web_search_result_location","cited_text":"w","url":"u"}]}]}`,
		`{"answer":"x","citations":[{"source_id":1,"quote":"q"},{"source_id":"a","quote":"r"},{"quote":"s"}]}`,
		`{"citations":[{"source_id":1.5,"quote":"q"}]}`,
		`{"messages":[{"role":"user","content":[{"type":"document","source":{"type":"text","media_type":"text/plain","data":"abc"}},{"type":"document","source":{"type":"content","content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]}}]}]}`,
		`{"type":"message","type":"message"}`,
		`["a"]`, `{`, "\uFEFF{\"citations\":[]}", "plain “text” here",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sh, err := Detect(b)
		if err != nil {
			mustBeInvalid(t, err)
		} else {
			if sh != Report && !jsontext.Value(trimBOM(b)).IsValid() {
				t.Fatalf("%q detected as %s but not JSON", b, sh)
			}
			qs, err := Read(b, sh)
			if err != nil {
				mustBeInvalid(t, err)
			}
			for _, q := range qs {
				if sh == Anthropic && q.Location == nil || sh != Anthropic && q.Location != nil {
					t.Fatalf("%s quotation with location %v", sh, q.Location)
				}
			}
		}
		docs, err := ReadRequest(b)
		if err != nil {
			mustBeInvalid(t, err)
		}
		for _, d := range docs {
			if d.Blocks != nil && d.Blocks[len(d.Blocks)-1] != len([]rune(d.Text)) {
				t.Fatalf("blocks %v for a text of %d code points", d.Blocks, len([]rune(d.Text)))
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
// it could have been in.
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
		for _, r := range a.Results {
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
