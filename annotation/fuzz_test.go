package annotation

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
	"github.com/go-json-experiment/json/jsontext"
)

// FuzzScan: on any input the scanner does not panic; each annotation's Raw
// is the input at its Offset; a rewrite that replaces nothing gives the
// input back byte for byte; and rewriting every target with a repair gives
// valid JSON that reads back as the same annotation with the new
// positions.
func FuzzScan(f *testing.F) {
	for _, s := range []string{annA, annB, "[" + annA + "," + annB + "]", `{"total":1,"rows":[` + annA + `]}`,
		`{"type":"AnnotationCollection","first":{"items":[` + annB + `]}}`, annA + "\n" + annB,
		hyp("h", rangeSel, posSel(1, 4), quoteSel("abc", "x", "y")), `{"target":{"selector":{"type":"TextQuoteSelector","exact":"q"}}}`,
		`[1,"x",null,{"target":3}]`, `{"rows":[{"target":[{"selector":[{"type":"TextPositionSelector","start":1e400,"end":2}]}]}]}`,
		"\uFEFF" + annA, `{"id":"a","id":"b","target":"s"}`, `{"target":{"selector":{"type":"TextPositionSelector","start":1,"start":28,"end":3}}}`,
		`{"target":"s","body":{"a":{"x":1,"x":2}}}`, `{"id":{"x":1,"x":2},"target":{"id":[{"y":1}],"source":{"id":{"z":1}}}}`, `{"rows":[` + annA + `],"rows":[]}`,
		`{"target":{"source":"s","selector":` + strings.Repeat(`{"type":"FragmentSelector","refinedBy":`, 40) + `{}` + strings.Repeat(`}`, 40) + `}}`,
		strings.Repeat("[", 9) + annA + strings.Repeat("]", 9), `{"id":"x\ud800","body":"\udc00","target":"s"}` + "\n" + annB,
		`{"target":{"source":"s","selector":{"type":"TextPositionSelector","start":9223372036854775807,"end":1e-400}}}`,
		`{"items":[` + annA + `],"items":[` + annB + `],"rows":[],"next":{"id":"p2"}}`, `{"total":9223372036854775807,"rows":[` + annA + `],"next":5}`,
		`{"type":"AnnotationCollection","total":50,"last":"p9","first":{"items":[` + annA + `],"next":""}}`, `0123truefalse"a""b"{}[]`,
		`{"target":{"source":{"id":5},"id":{"id":"u"}}}`} {
		f.Add([]byte(s))
	}
	if b, err := os.ReadFile("testdata/w3c-collection1.json"); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		var items []Item
		var out bytes.Buffer
		s := NewScanner(bytes.NewReader(input))
		s.Rewriting()
		err := s.Scan(func(it Item) error {
			items = append(items, it)
			if a := it.Annotation; a != nil {
				if !bytes.Equal(a.Raw, input[a.Offset:a.Offset+int64(len(a.Raw))]) {
					t.Fatalf("Raw of item %d is not the input at its offset", it.Index)
				}
				if !jsontext.Value(a.Raw).IsValid() { // duplicate names included
					t.Fatalf("item %d was read as an annotation but is not I-JSON: %s", it.Index, a.Raw)
				}
				return s.CopyThrough(&out, a)
			}
			if it.Err.Message == "" || !strings.HasPrefix(it.Err.Message, where(it.Err.Path)) {
				t.Fatalf("error item %d: message %q does not start with its place %q", it.Index, it.Err.Message, it.Err.Path)
			}
			if strings.Contains(it.Err.Message, "named twice") && jsontext.Value(bytes.TrimPrefix(input, byteOrderMark)).IsValid() {
				t.Fatalf("error item %d refuses a duplicate in input without one: %s", it.Index, it.Err.Message)
			}
			return nil
		})
		if err != nil {
			if ce, ok := err.(*citecheck.Error); !ok || ce.Code != citecheck.CodeInvalidInput || !strings.Contains(ce.Message, "not JSON at byte") {
				t.Fatalf("Scan returned %T %v, want invalid_input naming the byte", err, err)
			}
			return
		}
		if err := s.Finish(&out); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out.Bytes(), input) {
			t.Fatalf("a rewrite replacing nothing changed the input:\n in %q\nout %q", input, out.Bytes())
		}
		for _, it := range items {
			a := it.Annotation
			if a == nil {
				continue
			}
			var repairs []Repair
			for j, tg := range a.Targets {
				if tg.selectorEnd > 0 || len(tg.Selectors) > 0 {
					repairs = append(repairs, Repair{Target: j, Start: 7 + j, End: 9 + j})
				}
			}
			if _, err := a.RewriteChecked(repairs); err != nil {
				t.Fatal(err)
			}
			fixed := a.Rewrite(repairs)
			if !jsontext.Value(fixed).IsValid(jsontext.AllowDuplicateNames(true)) {
				t.Fatalf("rewrite is not valid JSON:\n%s\nfrom\n%s", fixed, a.Raw)
			}
			b, e := parse(fixed, a.Pointer)
			if e != nil {
				t.Fatalf("rewrite does not read back: %s\n%s", e.Message, fixed)
			}
			if len(b.Targets) != len(a.Targets) || b.ID != a.ID {
				t.Fatalf("rewrite changed the annotation's targets or id:\n%s\n%s", a.Raw, fixed)
			}
			for _, r := range repairs {
				found := false
				for _, sel := range b.Targets[r.Target].Selectors {
					if sel.Type == TextPosition {
						found = true
						if sel.Start != r.Start || sel.End != r.End {
							t.Fatalf("target %d reads %d-%d after a rewrite to %d-%d:\n%s", r.Target, sel.Start, sel.End, r.Start, r.End, fixed)
						}
					}
				}
				if !found {
					t.Fatalf("target %d has no position after a rewrite:\n%s", r.Target, fixed)
				}
			}
		}
	})
}

// FuzzRepair: over any text and any combination of selectors (one or
// several position selectors, a quote, refinements, a second target, the
// selectors in either order), every repair Check gives re-checks as
// anchored once written: the rewrite is read back and checked again, and
// its target anchors. A repair is only ever given for a target with one
// quote.
func FuzzRepair(f *testing.F) {
	text := "🌿 notes 🌊 at dawn the tide turns; at noon the tide turns again. The old pier 🐟 stands."
	f.Add(text, "old pier", "", "", []byte{80, 88, 0, 8}, uint8(0))
	f.Add(text, "the tide turns", "", "", []byte{44, 58, 108, 122}, uint8(1))
	f.Add(text, "the tide turns", "on ", "", []byte{38, 52}, uint8(6))
	f.Add("abcabc", "bc", "a", "", []byte{}, uint8(9))
	f.Add("x: the tide. x: the tide. the tide.", "the tide", "x: ", "", []byte{26, 34, 13, 21}, uint8(2))
	f.Fuzz(func(t *testing.T, text, exact, prefix, suffix string, positions []byte, shape uint8) {
		if !utf8.ValidString(text) || !utf8.ValidString(exact) || !utf8.ValidString(prefix) || !utf8.ValidString(suffix) || exact == "" || len(positions) > 16 {
			return
		}
		q := func(s string) string { b, _ := jsontext.AppendQuote(nil, s); return string(b) }
		quote := `{"type":"TextQuoteSelector","exact":` + q(exact) + `,"prefix":` + q(prefix) + `,"suffix":` + q(suffix)
		if shape&4 != 0 {
			quote += `,"refinedBy":{"type":"TextPositionSelector","start":0,"end":1}`
		}
		quote += "}"
		var sels []string
		for i := 0; i+1 < len(positions); i += 2 {
			p := fmt.Sprintf(`{"type":"TextPositionSelector","start":%d,"end":%d`, positions[i], positions[i+1])
			if shape&8 != 0 {
				p += `,"refinedBy":` + quote
			}
			sels = append(sels, p+"}")
		}
		if shape&1 != 0 {
			sels = append([]string{quote}, sels...)
		} else {
			sels = append(sels, quote)
		}
		selector := "[" + strings.Join(sels, ",") + "]"
		if len(sels) == 1 && shape&16 != 0 {
			selector = sels[0]
		}
		target := `{"source":"` + iri + `","selector":` + selector + `}`
		if shape&2 != 0 {
			target = `[` + target + `,{"source":"` + iri + `","selector":` + quote + `}]`
		}
		input := `{"id":"f","target":` + target + `}`
		a, e := parse([]byte(input), "")
		if e != nil {
			return // an exact of "\u0000"-like text the rules refuse, say
		}
		c, _ := NewChecker([]Source{{IRI: iri, Text: text}}, citecheck.DefaultLimits())
		c.Locate = shape&32 != 0
		r := c.Check([]*Annotation{a})[0]
		repairs, _ := r.Repairs()
		if repairs == nil {
			return
		}
		fixed, err := a.RewriteChecked(repairs)
		if err != nil {
			t.Fatal(err)
		}
		b, e := parse(fixed, "")
		if e != nil {
			t.Fatalf("the rewrite does not read back: %s\n%s", e.Message, fixed)
		}
		c.Locate = false
		again := c.Check([]*Annotation{b})[0]
		for _, rp := range repairs {
			if o := again.Targets[rp.Target].Outcome; o != Anchored {
				t.Fatalf("target %d repaired to %d-%d re-checks %s:\n%s\nfrom\n%s", rp.Target, rp.Start, rp.End, o, fixed, input)
			}
		}
	})
}

// FuzzSkippedStrings: whatever the input and wherever its reads are cut,
// skipping unused strings without holding them (stringSkip) hands on the
// same items, offsets and messages, and ends with the same error, as
// reading every string whole.
func FuzzSkippedStrings(f *testing.F) {
	for _, s := range []string{annA, `{"body":"a\ud83c\udf0ab","target":"s"}`, `{"body":"\ud83cx","target":"s"}`, `{"body":"\u12","target":"s"}`,
		"{\"body\":\"\xed\xa0\x80\",\"target\":\"s\"}", "{\"body\":\"a\x01\",\"target\":\"s\"}", `{"body":"abc`, `{"x":["a","b\n",{"c":"d"}],"target":"s"}`,
		"\uFEFF" + `{"id":"x","target":9,"note":"` + strings.Repeat(`\u00e9`, 40) + `"}`,
		`{"body":"a\ud800b","target":"s"}` + "\n" + annA, `{"body":"\udc00\ud800\ud83c\udf0a","x":"\\ud800","target":"s"}`, `{"\ud800":"` + strings.Repeat("y", 70000) + `\udbff"}`,
		`{"x":12345678901234567890.0e-12345,"target":"s"}`, `{"x":-0123,"target":"s"}`, `{"x":[1.2.3]}`, `{"x":1e+0099x}`, `{"x":-` + strings.Repeat("9", 70000) + `}`, `{"x":0` + strings.Repeat("0", 70000) + `}`, `{"x":1` + strings.Repeat("2", 70000)} {
		f.Add([]byte(s), uint8(0))
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, input []byte, chunk uint8) {
		if got, want := scanTranscript(input, int(chunk), false), scanTranscript(input, int(chunk), true); got != want {
			t.Fatalf("read %d bytes at a time, skipping:\n%s\nholding:\n%s", chunk, got, want)
		}
	})
}
