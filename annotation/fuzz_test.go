package annotation

import (
	"bytes"
	"os"
	"strings"
	"testing"

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
		`[1,"x",null,{"target":3}]`, `{"rows":[{"target":[{"selector":[{"type":"TextPositionSelector","start":1e400,"end":2}]}]}]}`} {
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
				return s.CopyThrough(&out, a)
			}
			if it.Err.Message == "" || !strings.HasPrefix(it.Err.Message, where(it.Err.Path)) {
				t.Fatalf("error item %d: message %q does not start with its place %q", it.Index, it.Err.Message, it.Err.Path)
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
