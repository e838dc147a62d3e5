package annotation

import (
	"context"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
)

// A list of items named twice in one object (items, rows, an embedded
// first page) has the items of both checked, then the object's error
// item: nothing read is lost. An object with two different lists has the
// items of each checked, then an error item: which one is the page is
// not the reader's to guess.
func TestEveryListOfAPageIsCheckedThenItsErrorItem(t *testing.T) {
	for _, c := range []struct{ name, input, want, says string }{
		{"items twice", `{"items":[` + annA + `],"items":[` + annB + `]}`, "a@0:/items/0 b@0:/items/0 !0:/items", `"items" is named twice`},
		{"rows twice", `{"total":2,"rows":[` + annA + `],"rows":[` + annB + `]}`, "a@0:/rows/0 b@0:/rows/0 !0:/rows", `"rows" is named twice`},
		{"first twice", `{"type":"AnnotationCollection","first":{"items":[` + annA + `]},"first":{"items":[` + annB + `]}}`,
			"a@0:/first/items/0 b@0:/first/items/0 !0:/first", `"first" is named twice`},
		{"items and rows", `{"items":[` + annA + `],"rows":[` + annB + `]}`, "a@0:/items/0 b@0:/rows/0 !0:", `both "items" and "rows"`},
		{"one list", `{"items":[` + annA + `,` + annB + `]}`, "a@0:/items/0 b@0:/items/1", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			items, err := scanAll(t, c.input)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(items); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
			if last := items[len(items)-1]; c.says != "" && (last.Err == nil || !strings.Contains(last.Err.Message, c.says)) {
				t.Errorf("last item %+v, want an error saying %s", last.Err, c.says)
			}
		})
	}
}

// A page's next is an IRI: a string, or a JSON-LD node object whose id
// is one (the W3C model allows either); null is no next page. Anything
// else (a number, an empty string, an object with no id) is the page's
// error item, after its items. On an annotation, a member named next is
// not the scanner's to judge.
func TestNextIsAnIRIOrAnObjectWithAnID(t *testing.T) {
	for _, c := range []struct{ name, next, want, bad string }{
		{"string", `"p2"`, "p2", ""},
		{"node object", `{"id":"p2","type":"AnnotationPage"}`, "p2", ""},
		{"node object @id", `{"@id":"p2"}`, "p2", ""},
		{"null", `null`, "", ""},
		{"number", `5`, "", "not a number"},
		{"empty string", `""`, "", "not an empty string"},
		{"object without id", `{"id":5}`, "", `not an object with no "id"`},
		{"array", `["p2"]`, "", "not an array"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewScanner(strings.NewReader(`{"type":"AnnotationPage","items":[` + annA + `],"next":` + c.next + `}`))
			var items []Item
			if err := s.Scan(func(it Item) error { items = append(items, it); return nil }); err != nil {
				t.Fatal(err)
			}
			want := "a@0:/items/0"
			if c.bad != "" {
				want += " !0:/next"
			}
			if got := ids(items); got != want {
				t.Fatalf("got %q, want %q", got, want)
			}
			if c.bad != "" && !strings.HasSuffix(items[1].Err.Message, c.bad) {
				t.Errorf("error %q, want it to end %q", items[1].Err.Message, c.bad)
			}
			if p, ok := s.Part(); p.Next != c.want || ok != (c.want != "") {
				t.Errorf("Part %+v, %v; want next %q", p, ok, c.want)
			}
		})
	}
	items, err := scanAll(t, `{"id":"a","target":"http://example.org/1","next":5}`)
	if err != nil || ids(items) != "a@0:" {
		t.Errorf("an annotation with a next member: %q, %v", ids(items), err)
	}
}

// A collection or search response whose total is more than the items it
// holds is one page of the whole: Part says so, with both counts. A total
// that is not a whole number from 0 to 2^53−1 is the page's error item.
func TestATotalAboveTheItemsReadIsOnePage(t *testing.T) {
	for _, c := range []struct{ name, input, words, bad string }{
		{"search response", `{"total":50,"rows":[` + annA + `]}`, "this is one page of a collection: 50 annotations in all, 1 here; the others were not checked", ""},
		{"collection with last", `{"type":"AnnotationCollection","total":50,"last":"p9","first":{"items":[` + annA + `]}}`,
			"this is one page of a collection: 50 annotations in all, 1 here; the others were not checked", ""},
		{"total and next", `{"type":"AnnotationCollection","total":3,"first":{"items":[` + annA + `],"next":"p2"}}`,
			`this is one page of a collection: 3 annotations in all, 1 here; its next page is at "p2", whose annotations were not checked`, ""},
		{"all here", `{"total":2,"rows":[` + annA + `,` + annB + `]}`, "", ""},
		{"fewer declared", `{"total":1,"rows":[` + annA + `,` + annB + `]}`, "", ""},
		{"null", `{"total":null,"rows":[` + annA + `]}`, "", ""},
		{"huge", `{"total":9223372036854775807,"rows":[` + annA + `]}`, "", "9223372036854775807 is outside ±(2^53−1)"},
		{"fraction", `{"total":1.5,"rows":[` + annA + `]}`, "", "1.5 is not an integer"},
		{"string", `{"total":"50","rows":[` + annA + `]}`, "", "not a number but a string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewScanner(strings.NewReader(c.input))
			var items []Item
			if err := s.Scan(func(it Item) error { items = append(items, it); return nil }); err != nil {
				t.Fatal(err)
			}
			p, ok := s.Part()
			if ok != (c.words != "") || ok && p.Words() != c.words {
				t.Errorf("Part %+v, %v: %q; want %q", p, ok, p.Words(), c.words)
			}
			last := items[len(items)-1]
			if c.bad == "" && last.Err != nil || c.bad != "" && (last.Err == nil || last.Err.Path != "/total" || !strings.HasSuffix(last.Err.Message, c.bad)) {
				t.Errorf("last item %+v, want an error at /total ending %q", last.Err, c.bad)
			}
		})
	}
}

// Only a target that names no source (no "source", or "source":"", and no
// id) takes the text given for such targets; a source object with no
// string id, or a target or source id that is not a string, is an error
// item at that member, never checked against that text.
func TestOnlyATargetNamingNoSourceTakesTheTextForThem(t *testing.T) {
	sel := `"selector":{"type":"TextQuoteSelector","exact":"pier"}`
	for _, c := range []struct{ name, target, path string }{
		{"no source", `{` + sel + `}`, ""},
		{"empty source", `{"source":"",` + sel + `}`, ""},
		{"null id", `{"id":null,` + sel + `}`, ""},
		{"source object, number id", `{"source":{"id":5},` + sel + `}`, "/target/source/id"},
		{"source object, no id", `{"source":{},` + sel + `}`, "/target/source"},
		{"source object, empty id", `{"source":{"id":""},` + sel + `}`, "/target/source"},
		{"target id, an object", `{"id":{"id":"u"},` + sel + `}`, "/target/id"},
		{"source, a number", `{"source":5,` + sel + `}`, "/target/source"},
	} {
		t.Run(c.name, func(t *testing.T) {
			c2, err := NewChecker([]Source{{IRI: "", Text: "the old pier"}}, citecheck.DefaultLimits())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			err = c2.Stream(context.Background(), NewScanner(strings.NewReader(`{"id":"a","target":`+c.target+`}`)), func(it Item, r *Report) error {
				switch {
				case r == nil:
					got = append(got, "error at "+it.Err.Path+" (id "+it.ID+")")
				default:
					got = append(got, r.Outcome.String())
				}
				return nil
			})
			want := "anchored"
			if c.path != "" {
				want = "error at " + c.path + " (id a)"
			}
			if err != nil || len(got) != 1 || got[0] != want {
				t.Errorf("got %q, %v; want %q", got, err, want)
			}
		})
	}
}

// A top-level number or literal is followed by white space: a value that
// starts where one ends (0123, truefalse, 1"a") stops the run as input
// that is not JSON, after the items before it, since where the number
// ends is a guess. Objects, arrays and strings end plainly, and the value
// after one may touch it ({}{}, concatenated JSON).
func TestTopLevelNumberOrLiteralIsFollowedByWhiteSpace(t *testing.T) {
	for _, c := range []struct{ name, input, want string }{
		{"numbers", `0123`, "!0:"},
		{"literals", `truefalse`, "!0:"},
		{"a string after a number", `1"a"`, "!0:"},
		{"an object after a literal", `null` + annA, "!0:"},
		{"space", "0 1\t" + annA + "\r\n" + annB, "!0: !1: a@2: b@3:"},
		{"no space after strings", `"a""b"`, "!0: !1:"},
		{"no space after objects", annA + annB, "a@0: b@1:"},
		{"no space after an object, then a line", annA + "\n" + annA + annB, "a@0: a@1: b@2:"},
		{"no space inside an array", `[` + annA + `,` + annB + `]`, "a@0:/0 b@0:/1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			items, err := scanAll(t, c.input)
			if got := ids(items); got != c.want {
				t.Errorf("items %q, want %q", got, c.want)
			}
			apart := !strings.Contains(c.name, "space") // the cases that must be refused
			if apart && (err == nil || !strings.Contains(err.Error(), "with no white space or line break between them")) || !apart && err != nil {
				t.Errorf("error %v", err)
			}
		})
	}
}
