package annotation

import (
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
)

// Duplicate member names are refused with the JSON Pointer of the
// duplicate, at any depth, in members the checks use or skip; the run
// goes on with the next item.
func TestDuplicateNamesAreRefusedWithTheirPointer(t *testing.T) {
	for _, c := range []struct{ name, input, path string }{
		{"duplicate/start in a position selector", `{"target":{"source":"s","selector":[{"type":"TextPositionSelector","start":1,"start":28,"end":30}]}}`, "/target/selector/0/start"},
		{"duplicate/id of the annotation", `{"id":"a","id":"b","target":"s"}`, "/id"},
		{"duplicate/target", `{"target":"s","target":"t"}`, "/target"},
		{"duplicate/inside an unused body", `{"target":"s","body":[{"value":"x","value":"y"}]}`, "/body/0/value"},
		{"duplicate/in a refinement", `{"target":{"source":"s","selector":{"type":"FragmentSelector","refinedBy":{"type":"TextQuoteSelector","exact":"a","exact":"b"}}}}`, "/target/selector/refinedBy/exact"},
		{"duplicate/in a source resource", `{"target":{"source":{"id":"s","id":"t"}}}`, "/target/source/id"},
		{"duplicate/rows of a response", `{"rows":[],"rows":[]}`, "/rows"},
		{"duplicate/in an id that is an object", `{"id":{"x":1,"x":2},"target":"s"}`, "/id/x"},
		{"duplicate/in a target's id that is an object", `{"target":{"id":{"x":1,"x":2}}}`, "/target/id/x"},
		{"duplicate/in a source resource's id", `{"target":{"source":{"id":[{"x":1,"x":2}]}}}`, "/target/source/id/0/x"},
	} {
		t.Run(c.name, func(t *testing.T) {
			items, err := scanAll(t, c.input+"\n"+annA)
			if err != nil {
				t.Fatal(err)
			}
			if len(items) != 2 || items[0].Err == nil || items[1].Annotation == nil {
				t.Fatalf("items %s: want the duplicate refused, then the next annotation", ids(items))
			}
			if e := items[0].Err; e.Path != c.path || !strings.Contains(e.Message, "named twice") {
				t.Errorf("refused at %q: %s; want %q", e.Path, e.Message, c.path)
			}
		})
	}
}

// A UTF-8 byte order mark at the start of an export is passed over, its
// offsets count it, and a rewrite keeps it.
func TestByteOrderMarkIsAcceptedAndKept(t *testing.T) {
	input := "\uFEFF" + `{"rows":[` + hyp("a", posSel(5, 8), quoteSel("pier", "", "")) + `]}`
	var out strings.Builder
	s := NewScanner(strings.NewReader(input))
	s.Rewriting()
	var got []*Annotation
	err := s.Scan(func(it Item) error {
		if it.Err != nil {
			t.Fatalf("refused: %s", it.Err.Message)
		}
		got = append(got, it.Annotation)
		return nil
	})
	if err != nil || len(got) != 1 {
		t.Fatalf("%v, %d annotations", err, len(got))
	}
	a := got[0]
	if string(a.Raw) != input[a.Offset:a.Offset+int64(len(a.Raw))] {
		t.Errorf("offset %d does not count the mark", a.Offset)
	}
	c, _ := NewChecker([]Source{{IRI: iri, Text: "old pier"}}, citecheck.DefaultLimits())
	r := c.Check(got)[0]
	repairs, _ := r.Repairs()
	fixed, err := a.RewriteChecked(repairs)
	if err != nil || len(repairs) != 1 {
		t.Fatalf("repairs %v: %v", repairs, err)
	}
	if err := s.Replace(&out, a, fixed); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(&out); err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(input, posSel(5, 8), posSel(4, 8), 1); out.String() != want {
		t.Errorf("rewrite\n%q\nwant\n%q", out.String(), want)
	}
}

// nested is an annotation whose quote selector is refined depth levels
// deep.
func nested(depth int) string {
	return `{"id":"n","target":{"source":"` + iri + `","selector":[` + quoteSel("pier", "", "") + `,{"type":"TextQuoteSelector","exact":"pier","refinedBy":` +
		strings.Repeat(`{"type":"TextPositionSelector","start":0,"end":1,"refinedBy":`, depth) + `{"type":"XPathSelector","value":"/p"}` + strings.Repeat("}", depth) + `}]}}`
}

// Output and memory are linear in the input for any nesting: a refinedBy
// chain ten times as deep costs at most ten times (with slack) the report
// bytes and the allocation, per input byte, of a shallow one, whether it
// is read (6 and 60 deep) or refused as deeper than MaxRefinedBy (900 and
// 9,000 deep).
func TestNestingCostIsLinearInTheInput(t *testing.T) {
	cost := func(depth int) (input, output int, alloc uint64) {
		in := nested(depth)
		c, _ := NewChecker([]Source{{IRI: iri, Text: "the old pier"}}, citecheck.DefaultLimits())
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		items, err := scanAll(t, in)
		if err != nil || len(items) != 1 || (items[0].Err != nil) != (depth >= MaxRefinedBy) {
			t.Fatalf("depth %d: %v %+v", depth, err, items)
		}
		var out []byte
		if it := items[0]; it.Err != nil {
			out = AppendError(nil, it)
		} else {
			out = c.Check([]*Annotation{it.Annotation})[0].AppendJSON(nil, 0)
		}
		runtime.ReadMemStats(&ms1)
		return len(in), len(out), ms1.TotalAlloc - ms0.TotalAlloc
	}
	for _, d := range [][2]int{{6, 60}, {900, 9000}} {
		in0, out0, alloc0 := cost(d[0])
		in1, out1, alloc1 := cost(d[1])
		t.Logf("depth %d: %d bytes in, %d out, %d allocated; depth %d: %d in, %d out, %d allocated", d[0], in0, out0, alloc0, d[1], in1, out1, alloc1)
		if out1 > in1 {
			t.Errorf("depth %d: %d bytes of report for %d of input", d[1], out1, in1)
		}
		if perByte0, perByte1 := float64(alloc0)/float64(in0), float64(alloc1)/float64(in1); perByte1 > 2*perByte0+64 {
			t.Errorf("allocation per input byte %.1f at depth %d, %.1f at %d: not linear", perByte1, d[1], perByte0, d[0])
		}
	}
}

// A refinedBy chain is read MaxRefinedBy levels deep; one selector more
// makes the annotation an error item naming the selector past the bound,
// and the scan goes on to the next annotation, however deep the chain.
func TestRefinedByChainsAreReadToMaxRefinedBy(t *testing.T) {
	for _, c := range []struct {
		depth   int // nested's: the chain below the quote selector is depth+1 long
		refused bool
	}{{MaxRefinedBy - 1, false}, {MaxRefinedBy, true}, {3200, true}, {9990, true}} {
		items, err := scanAll(t, nested(c.depth)+"\n"+annA)
		if err != nil || len(items) != 2 || items[1].Annotation == nil {
			t.Fatalf("depth %d: %v, %s", c.depth, err, ids(items))
		}
		it := items[0]
		if !c.refused {
			if it.Err != nil {
				t.Errorf("depth %d: refused: %s", c.depth, it.Err.Message)
			}
			continue
		}
		want := "/target/selector/1" + strings.Repeat("/refinedBy", MaxRefinedBy+1)
		if it.Err == nil || it.Err.Path != want || !strings.HasSuffix(it.Err.Message, ": refinedBy chains are read 64 levels deep at most") || it.ID != "n" {
			t.Errorf("depth %d: got %+v, want an error item at %s", c.depth, it.Err, want)
		}
	}
}

// The report still lists the first refinements, and says how many more
// there are.
func TestDeepRefinementsAreCountedNotListed(t *testing.T) {
	r := check(t, "the old pier", nested(50), false)[0]
	var listed []string
	for _, s := range r.Targets[0].Unchecked {
		listed = append(listed, s.Pointer)
	}
	if len(listed) != MaxRefinementsKept {
		t.Fatalf("listed %d refinements: %v", len(listed), listed)
	}
	last := r.Targets[0].Unchecked[MaxRefinementsKept-1]
	if want := fmt.Sprintf("%d more", 51-MaxRefinementsKept); !strings.Contains(last.Why, want) {
		t.Errorf("the last listed says %q, want it to count %s", last.Why, want)
	}
}

// A member the checks do not use is skipped without being held: an
// annotation with a 40 MiB body (or any other unused string) allocates
// almost nothing per input byte, the string's insides streaming past the
// decoder (stringSkip; the reader of 00de1f6 grew the decoder's buffer to
// hold it, 3 bytes a byte, and 67e4a81's held it several times over); a
// rewrite of it little beyond the bytes it must copy out (its Raw, the
// rewrite) and the re-read of the target alone. Allocation bounds the
// peak heap from above.
func TestUnusedMembersAreSkippedWithoutBeingHeld(t *testing.T) {
	body := strings.Repeat("x", 40<<20)
	tail := `"target":{"source":"` + iri + `","selector":` + quoteSel("pier", "", "") + `}}`
	c, _ := NewChecker([]Source{{IRI: iri, Text: "the old pier"}}, citecheck.DefaultLimits())
	c.Locate = true
	for _, k := range []struct {
		name    string
		in      string
		rewrite bool
		limit   float64
	}{
		{"a body", `{"id":"big","body":{"type":"TextualBody","value":"` + body + `"},` + tail, false, 0.01},
		{"an unknown member", `{"id":"big","x-note":"` + body + `",` + tail, false, 0.01},
		// A number is one token to the decoder as a string is: 00de1f6
		// held it whole, 3 bytes a byte.
		{"an unknown number", `{"id":"big","x-count":1` + strings.Repeat("7", 40<<20) + `.5e+1` + strings.Repeat("0", 1<<20) + `,` + tail, false, 0.01},
		// Holds the annotation to copy it out (3, with its growth) and the
		// rewrite (1); 67e4a81 took 11.
		{"a body, rewriting", `{"id":"big","body":{"type":"TextualBody","value":"` + body + `"},` + tail, true, 7},
	} {
		in := k.in
		var ms0, ms1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms0)
		n := 0
		s := NewScanner(strings.NewReader(in))
		if k.rewrite {
			s.Rewriting()
		}
		err := s.Scan(func(it Item) error {
			if it.Annotation == nil {
				t.Fatalf("refused: %v", it.Err)
			}
			n++
			if !k.rewrite {
				return nil
			}
			repairs, _ := c.Check([]*Annotation{it.Annotation})[0].Repairs()
			fixed, err := it.Annotation.RewriteChecked(repairs)
			if err != nil || len(repairs) != 1 {
				t.Fatalf("repairs %v: %v", repairs, err)
			}
			return s.Replace(io.Discard, it.Annotation, fixed)
		})
		if err == nil && k.rewrite {
			err = s.Finish(io.Discard)
		}
		runtime.ReadMemStats(&ms1)
		if err != nil || n != 1 {
			t.Fatalf("%s: %v, %d items", k.name, err, n)
		}
		ratio := float64(ms1.TotalAlloc-ms0.TotalAlloc) / float64(len(in))
		t.Logf("%s: allocated %.3f bytes per input byte", k.name, ratio)
		if ratio > k.limit {
			t.Errorf("%s: allocated %.3f bytes per input byte for an unused string, want at most %g", k.name, ratio, k.limit)
		}
	}
}

// BenchmarkNestedRefinements scans, checks and reports one annotation
// whose refinedBy chain is depth deep: B/op and ns/op grow with the input
// (linear: B/input-byte stays flat as depth grows tenfold).
func BenchmarkNestedRefinements(b *testing.B) {
	for _, depth := range []int{6, 60} {
		b.Run(fmt.Sprintf("depth=%d", depth), func(b *testing.B) {
			in := nested(depth)
			c, _ := NewChecker([]Source{{IRI: iri, Text: "the old pier"}}, citecheck.DefaultLimits())
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			for b.Loop() {
				var anns []*Annotation
				NewScanner(strings.NewReader(in)).Scan(func(it Item) error { anns = append(anns, it.Annotation); return nil })
				c.Check(anns)[0].AppendJSON(nil, 0)
			}
			runtime.ReadMemStats(&ms1)
			b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(b.N)/float64(len(in)), "B/input-byte")
		})
	}
}
