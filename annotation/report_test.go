package annotation

import (
	"strconv"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
)

// TestPartialFindingSaysWhatWasNotSearched: a partial finding cut by the
// diagnosis's work budget says so and names the kinds not searched; its
// leading part is given only when it was searched (length above zero).
func TestPartialFindingSaysWhatWasNotSearched(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    citecheck.Finding
		want string
	}{
		{"leading part found", citecheck.Finding{Kind: citecheck.FindingPartial, Start: 3, End: 9, Length: 6},
			"partial: its first 6 code points stand at 3-9"},
		{"nothing searched", citecheck.Finding{Kind: citecheck.FindingPartial, NotSearched: []citecheck.FindingKind{citecheck.FindingNormalized, citecheck.FindingPartial}},
			"partial: the diagnosis's work budget ran out; not searched: normalized, partial"},
		{"leading part searched, the rest cut", citecheck.Finding{Kind: citecheck.FindingPartial, Start: 0, End: 4, Length: 4, NotSearched: []citecheck.FindingKind{citecheck.FindingNormalized}},
			"partial: its first 4 code points stand at 0-4; the diagnosis's work budget ran out; not searched: normalized"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := findingWords(&tc.f); got != tc.want {
				t.Errorf("findingWords = %q, want %q", got, tc.want)
			}
		})
	}
}

// The text report writes what the input brings (ids, IRIs, selector
// types, member names in pointers and messages) with every character that
// is not printable escaped: an id holding an escape sequence or a line
// feed neither reaches the terminal nor forges a line.
func TestTextReportEscapesWhatTheInputBrings(t *testing.T) {
	const evil = `\u001b[2J\nmoved     forged\u202e\u0007`
	sel := `{"type":"TextQuoteSelector","exact":"pier"}`
	for _, c := range []struct{ name, input, want string }{
		{"escape/an id", `{"id":"` + evil + `","target":{"source":"` + iri + `","selector":{"type":"TextQuoteSelector","exact":"gone"}}}`,
			`orphaned  "\x1b[2J\nmoved     forged\u202e\a"  (item 0, value 0)`},
		{"escape/a source IRI", `{"id":"x","target":{"source":"urn:` + evil + `","selector":` + sel + `}}`,
			`on urn:\x1b[2J\nmoved     forged\u202e\a`},
		{"escape/a selector type", `{"id":"x","target":{"source":"` + iri + `","selector":{"type":"` + evil + `"}}}`,
			`\x1b[2J\nmoved     forged\u202e\a /target/selector: not checked`},
		{"escape/an error item's id and member name", `{"id":"` + evil + `","` + evil + `":1,"` + evil + `":2,"target":"s"}`,
			`error     "\x1b[2J\nmoved     forged\u202e\a": /\x1b[2J\nmoved     forged\u202e\a: the member "\x1b[2J\nmoved     forged\u202e\a" is named twice`},
	} {
		t.Run(c.name, func(t *testing.T) {
			items, err := scanAll(t, c.input)
			if err != nil || len(items) != 1 {
				t.Fatalf("%v %v", err, items)
			}
			var out []byte
			if it := items[0]; it.Err != nil {
				out = AppendErrorText(nil, it)
			} else {
				ch, _ := NewChecker([]Source{{IRI: iri, Text: "the old pier"}}, citecheck.DefaultLimits())
				out = ch.Check([]*Annotation{it.Annotation})[0].AppendText(nil, 0)
			}
			text := string(out)
			if !strings.Contains(text, c.want) {
				t.Errorf("got\n%s\nwant it to hold %q", text, c.want)
			}
			for i, r := range strings.TrimSuffix(text, "\n") {
				if r != '\n' && !strconv.IsPrint(r) && r != ' ' {
					t.Errorf("byte %d: %U written raw", i, r)
				}
			}
			if strings.Contains(text, "\nmoved     forged") {
				t.Errorf("a forged line:\n%s", text)
			}
		})
	}
}

// Every id in the text report is quoted alike, an error item's and an
// outcome's: an id with spaces or ": " in it reads as one.
func TestTextReportQuotesEveryID(t *testing.T) {
	sel := `{"type":"TextQuoteSelector","exact":"gone"}`
	for _, c := range []struct{ name, input, want string }{
		{"outcome", `{"id":"a b: c","target":{"source":"` + iri + `","selector":` + sel + `}}`, `orphaned  "a b: c"  (item 0, value 0)`},
		{"error item", `{"id":"a b: c","target":5}`, `error     "a b: c": /target: `},
		{"no id", `{"target":{"source":"` + iri + `","selector":` + sel + `}}`, `orphaned  (no id)  (item 0, value 0)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if text := textReport(t, c.input); !strings.Contains(text, c.want) {
				t.Errorf("text report:\n%s\nwant it to hold %q", text, c.want)
			}
		})
	}
}

// textReport is the text report of the one item input holds, checked
// against iri's text.
func textReport(t *testing.T, input string) string {
	t.Helper()
	items, err := scanAll(t, input)
	if err != nil || len(items) != 1 {
		t.Fatalf("%v %v", err, items)
	}
	if it := items[0]; it.Err != nil {
		return string(AppendErrorText(nil, it))
	}
	ch, _ := NewChecker([]Source{{IRI: iri, Text: "the old pier"}}, citecheck.DefaultLimits())
	return string(ch.Check([]*Annotation{items[0].Annotation})[0].AppendText(nil, 0))
}
