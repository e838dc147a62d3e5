package annotation

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
)

// scanAll scans input and returns its items, and the scan's error.
func scanAll(t testing.TB, input string) ([]Item, error) {
	t.Helper()
	var items []Item
	s := NewScanner(strings.NewReader(input))
	s.Rewriting() // for Raw
	err := s.Scan(func(it Item) error {
		items = append(items, it)
		return nil
	})
	return items, err
}

// ids lists the items as "id@value:pointer", errors as "!value:pointer".
func ids(items []Item) string {
	var b []string
	for _, it := range items {
		if it.Err != nil {
			b = append(b, fmt.Sprintf("!%d:%s", it.Value, it.Err.Path))
		} else {
			b = append(b, fmt.Sprintf("%s@%d:%s", it.Annotation.ID, it.Annotation.Value, it.Annotation.Pointer))
		}
	}
	return strings.Join(b, " ")
}

const (
	annA = `{"id":"a","type":"Annotation","target":"http://example.org/1"}`
	annB = `{"id":"b","target":{"source":"http://example.org/1","selector":{"type":"TextQuoteSelector","exact":"x"}}}`
)

// Every shape the issue lists gives the same annotations in the same
// order; only where they are (value and pointer) differs.
func TestScanReadsEveryShape(t *testing.T) {
	for _, c := range []struct{ name, input, want string }{
		{"shape/one annotation", annA, "a@0:"},
		{"shape/a JSON array of annotations", "[" + annA + "," + annB + "]", "a@0:/0 b@0:/1"},
		{"shape/an AnnotationPage's items", `{"@context":"http://www.w3.org/ns/anno.jsonld","type":"AnnotationPage","items":[` + annA + "," + annB + `],"next":"http://example.org/p2"}`,
			"a@0:/items/0 b@0:/items/1"},
		{"shape/an AnnotationCollection's embedded first page", `{"type":"AnnotationCollection","total":2,"first":{"type":"AnnotationPage","items":[` + annA + "," + annB + `]}}`,
			"a@0:/first/items/0 b@0:/first/items/1"},
		{"shape/JSON Lines", annA + "\n" + annB + "\n", "a@0: b@1:"},
		{"shape/JSON Lines without a final newline, CRLF between", annA + "\r\n" + annB, "a@0: b@1:"},
		{"shape/a Hypothesis search response", `{"total":2,"rows":[` + annA + "," + annB + `],"replies":[]}`, "a@0:/rows/0 b@0:/rows/1"},
		{"shape/rows before total, members in any order", `{"rows":[` + annA + `],"total":1}`, "a@0:/rows/0"},
		{"shape/pages as JSON Lines", `{"type":"AnnotationPage","items":[` + annA + "]}\n" + `{"type":"AnnotationPage","items":[` + annB + "]}", "a@0:/items/0 b@1:/items/0"},
		{"shape/an empty search response", `{"total":0,"rows":[]}`, ""},
		{"shape/JSON-LD @id", `{"@id":"urn:x","target":"http://example.org/1"}`, "urn:x@0:"},
		{"shape/id beats @id, whatever their order", `{"@id":"urn:x","id":"y","target":"http://example.org/1"}`, "y@0:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			items, err := scanAll(t, c.input)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(items); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			for i, it := range items {
				if it.Index != i {
					t.Errorf("item %d has Index %d", i, it.Index)
				}
				if a := it.Annotation; a != nil && string(a.Raw) != c.input[a.Offset:a.Offset+int64(len(a.Raw))] {
					t.Errorf("item %d: Raw is not the input at Offset", i)
				}
			}
		})
	}
}

// The W3C model's own examples (the working group's collection of every
// example of the Recommendation): all 43 read, none refused, and the
// targets and selectors each example shows.
func TestScanW3CExamples(t *testing.T) {
	b, err := os.ReadFile("testdata/w3c-collection1.json")
	if err != nil {
		t.Fatal(err)
	}
	items, err := scanAll(t, string(b))
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 43 {
		t.Fatalf("%d items, want 43", len(items))
	}
	byID := map[string]*Annotation{}
	for i, it := range items {
		if it.Err != nil {
			t.Fatalf("item %d refused: %s", i, it.Err.Message)
		}
		if want := fmt.Sprintf("http://example.org/anno%d", i+1); it.Annotation.ID != want {
			t.Errorf("item %d is %q, want %q", i, it.Annotation.ID, want)
		}
		byID[strings.TrimPrefix(it.Annotation.ID, "http://example.org/")] = it.Annotation
	}
	types := func(a *Annotation) string {
		var s []string
		for _, t := range a.Targets {
			var ts []string
			for _, sel := range t.Selectors {
				ty := sel.Type
				for r := sel.RefinedBy; r != nil; r = r.RefinedBy {
					ty += ">" + r.Type
				}
				ts = append(ts, ty)
			}
			s = append(s, t.Source+"["+strings.Join(ts, ",")+"]")
		}
		return strings.Join(s, " ")
	}
	for _, c := range []struct{ id, want string }{
		{"anno1", "http://example.com/page1[]"},                              // a bare IRI target
		{"anno3", "http://example.org/website1[]"},                           // an external resource
		{"anno9", "http://example.org/image1[] http://example.org/image2[]"}, // two targets
		{"anno19", "http://example.com/dataset1[IRI]"},                       // a selector by reference
		{"anno23", "http://example.org/page1[TextQuoteSelector]"},
		{"anno24", "http://example.org/ebook1[TextPositionSelector]"},
		{"anno28", "http://example.org/page1.html[RangeSelector]"},
		{"anno29", "http://example.org/page1[FragmentSelector>TextQuoteSelector]"},
		{"anno38", "http://example.com/document1[FragmentSelector>TextPositionSelector]"},
		{"anno39", "http://example.com/page1[] http://example.org/page6[] http://example.net/page4[]"}, // a Composite
	} {
		if got := types(byID[c.id]); got != c.want {
			t.Errorf("%s: %s, want %s", c.id, got, c.want)
		}
	}
	q := byID["anno23"].Targets[0].Selectors[0]
	if q.Exact != "anotation" || q.Prefix != "this is an " || q.Suffix != " that has some" {
		t.Errorf("anno23's quote selector read as %+v", q)
	}
	if p := byID["anno24"].Targets[0].Selectors[0]; p.Start != 412 || p.End != 795 {
		t.Errorf("anno24's position selector read as %d-%d", p.Start, p.End)
	}
}

// A value that is not an annotation is an error item naming its place;
// the scan goes on to the next.
func TestScanRefusesNonAnnotationsAndGoesOn(t *testing.T) {
	pos := func(members string) string {
		return `{"id":"p","target":{"source":"s","selector":{"type":"TextPositionSelector",` + members + `}}}`
	}
	quote := func(members string) string {
		return `{"id":"q","target":{"source":"s","selector":[{"type":"RangeSelector"},{"type":"TextQuoteSelector"` + members + `}]}}`
	}
	for _, c := range []struct{ name, input, want, message string }{
		{"refuse/a number", `[1,` + annA + `]`, "!0:/0 a@0:/1", "not an annotation but a number"},
		{"refuse/an object without target", `[{"id":"x"},` + annA + `]`, "!0:/0 a@0:/1", `it has no "target"`},
		{"refuse/a string among JSON Lines", annA + "\n\"x\"\n" + annB, "a@0: !1: b@2:", "not an annotation but a string"},
		{"refuse/a collection whose first page is a reference", `{"type":"AnnotationCollection","first":"http://example.org/p1"}`, "!0:", "only referenced"},
		{"refuse/a target that is a number", `{"target":3}`, "!0:/target", "not a number"},
		{"refuse/a negative start", pos(`"start":-1,"end":2`), "!0:/target/selector/start", "-1 is negative"},
		{"refuse/a fractional end", pos(`"start":1,"end":2.5`), "!0:/target/selector/end", "2.5 is not an integer"},
		{"refuse/a start that is a string", pos(`"start":"1","end":2`), "!0:/target/selector/start", "must be a number"},
		{"refuse/a missing end", pos(`"start":1`), "!0:/target/selector", `needs "end"`},
		{"refuse/an empty exact", quote(`,"exact":""`), "!0:/target/selector/1/exact", "must not be empty"},
		{"refuse/a missing exact", quote(``), "!0:/target/selector/1", `needs "exact"`},
		{"refuse/a prefix that is not a string", quote(`,"exact":"x","prefix":null`), "!0:/target/selector/1/prefix", "must be a string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			items, err := scanAll(t, c.input)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(items); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			for _, it := range items {
				if it.Err != nil && (!strings.Contains(it.Err.Message, c.message) || !strings.HasPrefix(it.Err.Message, where(it.Err.Path))) {
					t.Errorf("message %q: want it to start with its place and say %q", it.Err.Message, c.message)
				}
			}
		})
	}
	// Integers may be written as any JSON number of integral value.
	items, _ := scanAll(t, pos(`"start":1.0,"end":2e1`))
	if s := items[0].Annotation.Targets[0].Selectors[0]; s.Start != 1 || s.End != 20 {
		t.Errorf("1.0 and 2e1 read as %d and %d", s.Start, s.End)
	}
}

// Input that is not JSON ends the scan with an invalid_input naming its
// byte; what came before was handed on.
func TestScanStopsAtASyntaxError(t *testing.T) {
	input := annA + "\n" + `{"id":"broken",` + "\n" + annB
	items, err := scanAll(t, input)
	var ce *citecheck.Error
	if !errors.As(err, &ce) || ce.Code != citecheck.CodeInvalidInput {
		t.Fatalf("error %v, want invalid_input", err)
	}
	if ids(items) != "a@0:" {
		t.Errorf("items before the error: %q", ids(items))
	}
	if want := fmt.Sprintf("input is not JSON at byte %d (line 3, value 1)", len(annA)+1+len(`{"id":"broken",`)+1); !strings.HasPrefix(ce.Message, want) {
		t.Errorf("message %q, want it to start %q", ce.Message, want)
	}
	// fn's own error stops the scan and comes back unchanged.
	stop := errors.New("stop")
	err = NewScanner(strings.NewReader(annA + annB)).Scan(func(Item) error { return stop })
	if err != stop {
		t.Errorf("fn's error came back as %v", err)
	}
}

// rows generates a Hypothesis search response of n annotations without
// holding it in memory.
func rows(n int) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		pw.Write([]byte(`{"total":` + fmt.Sprint(n) + `,"rows":[`))
		for i := range n {
			if i > 0 {
				pw.Write([]byte(","))
			}
			fmt.Fprintf(pw, `{"id":"a%d","text":%q,"target":[{"source":"s","selector":[{"type":"TextPositionSelector","start":%d,"end":%d},{"type":"TextQuoteSelector","exact":"x","prefix":"%s"}]}]}`,
				i, strings.Repeat("note ", 40), i, i+1, strings.Repeat("p", 30))
		}
		pw.Write([]byte(`]}`))
		pw.Close()
	}()
	return pr
}

// Memory stays bounded on a large export: the bytes kept between items
// never exceed a few annotations and the decoder's read-ahead, however
// many rows stream past.
func TestScanMemoryIsBoundedOnALargeExport(t *testing.T) {
	s := NewScanner(rows(20000))
	kept, n := 0, 0
	err := s.Scan(func(it Item) error {
		kept = max(kept, len(s.tee.buf))
		n++
		return nil
	})
	if err != nil || n != 20000 {
		t.Fatalf("%d items, %v", n, err)
	}
	if kept > 256<<10 {
		t.Errorf("the scanner kept %d bytes at once over a %d-row export", kept, n)
	}
}

// A rewrite that replaces nothing gives the input back byte for byte,
// whatever its shape; one that replaces an annotation changes only it.
func TestRewriteKeepsEveryOtherByte(t *testing.T) {
	b, _ := os.ReadFile("testdata/w3c-collection1.json")
	for _, input := range []string{string(b), annA + "\r\n  " + annB + "\n", `{"total":2,"rows":[ ` + annA + " , " + annB + ` ] }`} {
		var out bytes.Buffer
		s := NewScanner(strings.NewReader(input))
		s.Rewriting()
		err := s.Scan(func(it Item) error {
			if a := it.Annotation; a != nil && a.ID == "b" {
				return s.Replace(&out, a, []byte(`{"id":"B"}`))
			}
			return nil
		})
		if err == nil {
			err = s.Finish(&out)
		}
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Replace(input, annB, `{"id":"B"}`, 1); out.String() != want {
			t.Errorf("rewrite of %.40q…:\n got %q\nwant %q", input, out.String(), want)
		}
	}
}

// An error item names the id of the object it refuses, wherever the id
// stands in it, so that a user can find the annotation in the store.
func TestErrorItemCarriesItsID(t *testing.T) {
	for _, c := range []struct{ name, input, want string }{
		{"id before a bad target", `{"id":"good-id","target":9}`, "good-id"},
		{"id after a bad target", `{"target":9,"id":"good-id"}`, "good-id"},
		{"@id after a bad selector", `{"target":{"source":"s","selector":{"type":"TextQuoteSelector","exact":""}},"@id":"good-id"}`, "good-id"},
		{"id wins over @id", `{"@id":"other","target":[[]],"id":"good-id"}`, "good-id"},
		{"id after a duplicate", `{"target":"s","target":"s","id":"good-id"}`, "good-id"},
		{"no target", `{"id":"good-id"}`, "good-id"},
		{"numeric id", `{"id":7,"target":9}`, "7"},
		{"no id", `{"target":9}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			items, err := scanAll(t, c.input)
			if err != nil || len(items) != 1 || items[0].Err == nil {
				t.Fatalf("items %+v, %v: want one error item", items, err)
			}
			if items[0].ID != c.want {
				t.Errorf("id %q, want %q", items[0].ID, c.want)
			}
			line := string(AppendJSONLine(nil, items[0], nil))
			want := `"id":null,`
			if c.want != "" {
				want = `"id":"` + c.want + `",`
			}
			if !strings.Contains(line, want) {
				t.Errorf("line %s does not carry %s", line, want)
			}
			if text := string(AppendErrorText(nil, items[0])); c.want != "" && !strings.Contains(text, strconv.Quote(c.want)) {
				t.Errorf("text %q does not name %q", text, c.want)
			}
		})
	}
}

// A selector's start and end are read by the engine's integer rule
// (citecheck.Integer), by their exact decimal value: a literal that is
// not an integer is refused even when its nearest binary64 is one, and an
// integer beyond ±(2^53−1) gets the engine's words.
func TestSelectorIntegersAreReadByTheEnginesRule(t *testing.T) {
	pos := func(start string) string {
		return `{"id":"p","target":{"source":"s","selector":{"type":"TextPositionSelector","start":` + start + `,"end":9}}}`
	}
	for _, c := range []struct{ start, want string }{
		{"1e-400", "1e-400 is not an integer"},
		{"4.0000000000000001", "4.0000000000000001 is not an integer"},
		{"1.5", "1.5 is not an integer"},
		{"9007199254740992", "9007199254740992 is outside ±(2^53−1)"},
		{"9223372036854775808", "9223372036854775808 is outside ±(2^53−1)"},
		{"1e400", "1e400 is outside ±(2^53−1)"},
		{"-0.5e1", "-0.5e1 is negative"},
		{"4", ""},
		{"40e-1", ""},
		{"9007199254740991", ""},
	} {
		t.Run(c.start, func(t *testing.T) {
			items, err := scanAll(t, pos(c.start))
			if err != nil {
				t.Fatal(err)
			}
			it := items[0]
			if c.want == "" {
				if it.Err != nil {
					t.Fatalf("refused: %v", it.Err.Message)
				}
				return
			}
			if it.Err == nil || it.Err.Path != "/target/selector/start" || !strings.HasSuffix(it.Err.Message, ": "+c.want) {
				t.Errorf("got %+v, want an error item at /target/selector/start saying %q", it.Err, c.want)
			}
		})
	}
}

// A page or response that names one of its own members twice is an error
// item, after every item it holds: a duplicate before the items loses
// none of them.
func TestPageWithAMemberNamedTwiceReportsItsItems(t *testing.T) {
	for _, c := range []struct{ name, input, want string }{
		{"twice/before the rows", `{"total":1,"total":2,"rows":[` + annA + `]}`, "a@0:/rows/0 !0:/total"},
		{"twice/after the rows", `{"total":1,"rows":[` + annA + `],"total":2}`, "a@0:/rows/0 !0:/total"},
		{"twice/before a page's items", `{"type":"AnnotationPage","type":"x","items":[` + annA + `,` + annB + `]}`, "a@0:/items/0 b@0:/items/1 !0:/type"},
		{"twice/the rows themselves", `{"rows":[` + annA + `],"rows":[` + annB + `]}`, "a@0:/rows/0 b@0:/rows/0 !0:/rows"},
	} {
		t.Run(c.name, func(t *testing.T) {
			items, err := scanAll(t, c.input)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(items); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// An object with both items and its own target is read as a page (its
// items are reported) and is itself an error item saying its target was
// not checked; a page's next is what Next reports.
func TestPageWithItsOwnTargetSaysItsTargetIsNotChecked(t *testing.T) {
	items, err := scanAll(t, `{"id":"both","type":"AnnotationPage","items":[`+annA+`],"target":"http://example.org/1","next":"p2"}`)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(items); got != "a@0:/items/0 !0:" {
		t.Fatalf("got %q", got)
	}
	if e := items[1]; e.ID != "both" || !strings.Contains(e.Err.Message, `its "target" is not checked`) {
		t.Errorf("error item %+v (id %q)", e.Err, e.ID)
	}
	s := NewScanner(strings.NewReader(`{"type":"AnnotationCollection","first":{"items":[` + annA + `],"next":"p2"}}` + "\n" + `{"items":[],"next":"p3"}`))
	if err := s.Scan(func(Item) error { return nil }); err != nil || s.Next() != "p2" {
		t.Errorf("Next %q, %v; want p2, the first page's", s.Next(), err)
	}
}
