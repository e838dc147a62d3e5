package report

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
	"github.com/go-json-experiment/json"
)

// passageWords writes a passage as the tables below expect it:
// "label [start,end)" and " compared" when the page diffs it.
func passageWords(ps []Passage) []string {
	var out []string
	for _, p := range ps {
		s := fmt.Sprintf("%s [%d,%d)", p.Label, p.Start, p.End)
		if p.Compare {
			s += " compared"
		}
		out = append(out, s)
	}
	return out
}

func runItems(t *testing.T, body string, explain bool, line int) []Item {
	t.Helper()
	req, e := citecheck.Decode([]byte(body))
	if e != nil {
		t.Fatal(e)
	}
	if explain {
		ex := citecheck.Explain(req)
		return AppendRunItems(nil, req, ex.All, ex, line)
	}
	return AppendRunItems(nil, req, citecheck.CheckAll(req), nil, line)
}

// Each outcome shows the places of the source its text report points at:
// a valid citation its cited span; a failing one the cited span (compared
// with what it claims), where the claim stands instead, and the nearest
// reading the hint or the explanation finds.
func TestRunItemPassagesFollowTheOutcome(t *testing.T) {
	bananas := []testkit.Source{testkit.NewSource("doc", "v1", "bananas")}
	cases := []struct {
		name     string
		body     string
		explain  bool
		outcome  string
		passages []string
		fix      bool
	}{
		{"valid position: its span", body(doc(alphabet), pos("c", 4, 7, "efg")), false, "valid", []string{"cited span [4,7)"}, false},
		{"valid quote with claimed start: there", body(doc(alphabet), anchor("c", "xyz").WithPrefix("w").WithClaimedStart(23)), false, "valid", []string{"cited span [23,26)"}, false},
		{"valid quote: where its anchor stands", body(doc(alphabet), anchor("c", "mno").WithSuffix("p")), false, "valid", []string{"cited span [12,15)"}, false},
		{"unknown_source: no source to show", body(doc(alphabet), testkit.QuoteCitation("c", "book", "v1", "a")), false, "unknown_source", nil, false},
		{"version_mismatch: no source to show", body(doc(alphabet), testkit.QuoteCitation("c", "doc", "v9", "a")), false, "version_mismatch", nil, false},
		{"span_reversed: the span, and where the quote is", body(doc(alphabet), pos("c", 9, 6, "efg")), false, "span_reversed", []string{"cited span [6,9)", "found elsewhere [4,7)"}, false},
		{"span_out_of_range: what there is, and where the quote is", body(doc(alphabet), pos("c", 20, 30, "x")), false, "span_out_of_range", []string{"cited span [20,26) compared", "found elsewhere [23,24)"}, false},
		{"quote_mismatch: the span compared, the nearest reading", body(doc(alphabet), pos("c", 10, 13, "efh")), false, "quote_mismatch", []string{"cited span [10,13) compared", "nearest reading [4,7) compared"}, false},
		{"quote_mismatch, the nearest reading the span itself: once", body(doc(alphabet), pos("c", 4, 7, "efh")), false, "quote_mismatch", []string{"cited span [4,7) compared"}, false},
		{"quote_mismatch explained: the fix", body([]testkit.Source{testkit.NewSource("doc", "v1", launch)}, pos("c", 31, 43, "rocket reach")), true, "quote_mismatch", []string{"cited span [31,43) compared", "found elsewhere [29,41)"}, true},
		{"exact_not_found: the longest leading part, carried on", body(doc(alphabet), anchor("c", "xyz!")), false, "exact_not_found", []string{"nearest reading [23,26) compared"}, false},
		{"exact_not_found: nothing when not even its first character", body(doc(alphabet), anchor("c", "ZEBRA")), false, "exact_not_found", nil, false},
		{"exact_not_found explained: the normalized reading", body(doc(curly), anchor("c", "It's late-too late.")), true, "exact_not_found", []string{"nearest reading [43,62) compared"}, false},
		{"exact_not_found explained: the normalized reading cut to exact", body(doc(curly), anchor("c", "It's late").WithPrefix("left. ")), true, "exact_not_found", []string{"nearest reading [43,52) compared"}, false},
		{"exact_not_found explained: the elided reading", body(doc(pdf), anchor("c", "we were told … by the architect")), true, "exact_not_found", []string{"nearest reading [50,80) compared"}, false},
		{"prefix_mismatch: the exact where it stands", body(doc(alphabet), anchor("c", "xyz").WithPrefix("v")), false, "prefix_mismatch", []string{"match [23,26)"}, false},
		{"suffix_mismatch: the exact where it stands", body(doc(alphabet), anchor("c", "mn").WithSuffix("pq")), false, "suffix_mismatch", []string{"match [12,14)"}, false},
		{"ambiguous_anchor: every match", body(bananas, anchor("c", "ana")), false, "ambiguous_anchor", []string{"match [1,4)", "match [3,6)"}, false},
		{"ambiguous_anchor explained: the fix", body(bananas, anchor("c", "ana").WithClaimedStart(3)), true, "ambiguous_anchor", []string{"match [1,4)", "match [3,6)"}, true},
		{"position_mismatch: the match, and the claimed span compared", body(doc(alphabet), anchor("c", "xyz").WithClaimedStart(22)), true, "position_mismatch", []string{"match [23,26)", "cited span [22,25) compared"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			items := runItems(t, c.body, c.explain, 0)
			if len(items) != 1 {
				t.Fatalf("%d items, want 1", len(items))
			}
			it := items[0]
			if it.Outcome != c.outcome {
				t.Errorf("outcome %q, want %q", it.Outcome, c.outcome)
			}
			if got := passageWords(it.Passages); !slices.Equal(got, c.passages) {
				t.Errorf("passages\n%q\nwant\n%q", got, c.passages)
			}
			if (it.Fix != "") != c.fix {
				t.Errorf("fix %q, want one: %v", it.Fix, c.fix)
			}
			if it.ID != "r0c0" || it.Head != `citation 0 "c"` || it.Source == "" || it.Why == "" {
				t.Errorf("id %q head %q source %q why %q", it.ID, it.Head, it.Source, it.Why)
			}
			for _, p := range it.Passages {
				if n := len([]rune(p.Before)); n > ExcerptContext {
					t.Errorf("%s: %d code points before it, more than %d", p.Label, n, ExcerptContext)
				}
			}
		})
	}
}

// The items come in the order of the answer's citations, each with the
// outcome its JSON line says: "valid" or its reason.
func TestRunItemsAreTheAnswersCitationsInOrder(t *testing.T) {
	cases := slices.Clone(explainCases)
	for _, c := range goldenCases {
		cases = append(cases, struct{ name, body string }{c.name, c.body})
	}
	for _, c := range cases {
		if strings.HasPrefix(c.name, "error") {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			req, e := citecheck.Decode([]byte(c.body))
			if e != nil {
				t.Fatal(e)
			}
			ex := citecheck.Explain(req)
			var answer struct {
				All struct {
					Citations []struct {
						Reason *string `json:"reason"`
					} `json:"citations"`
				} `json:"all"`
			}
			if err := json.Unmarshal(citecheck.AppendExplainEnvelope(nil, ex, nil), &answer); err != nil {
				t.Fatal(err)
			}
			items := AppendRunItems(nil, req, ex.All, ex, 3)
			if len(items) != len(answer.All.Citations) {
				t.Fatalf("%d items for %d citations", len(items), len(answer.All.Citations))
			}
			for k, it := range items {
				want := "valid"
				if r := answer.All.Citations[k].Reason; r != nil {
					want = *r
				}
				if it.Outcome != want || it.ID != fmt.Sprintf("r3c%d", k) || !strings.HasPrefix(it.Head, fmt.Sprintf("request 3, citation %d ", k)) {
					t.Errorf("item %d: %s %q %q, want outcome %q", k, it.ID, it.Head, it.Outcome, want)
				}
			}
		})
	}
}

// A refused request is one item: "error", its message.
func TestRunErrorItemSaysTheError(t *testing.T) {
	_, e := citecheck.Decode([]byte(`{"sources":[],"citations":[]}`))
	for _, c := range []struct {
		line     int
		id, head string
	}{{0, "r0", "the request"}, {7, "r7", "request 7"}} {
		it := RunErrorItem(citecheck.AsError(e), c.line)
		if it.ID != c.id || it.Head != c.head || it.Outcome != "error" || it.Error != citecheck.AsError(e).Message {
			t.Errorf("%+v", it)
		}
	}
}

// The summary counts "valid", then every reason in the contract's order,
// then "error"; only valid is a pass.
func TestRunOutcomesAreValidTheReasonsAndError(t *testing.T) {
	got := RunOutcomes()
	want := []Outcome{{"valid", TonePass}}
	for _, r := range citecheck.Reasons() {
		want = append(want, Outcome{r.String(), ToneFail})
	}
	want = append(want, Outcome{"error", ToneNotChecked})
	if !slices.Equal(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
}

// A fix is said as what it changes.
func TestFixWordsSayWhatChanges(t *testing.T) {
	q := citecheck.Citation{Selector: citecheck.Selector{Type: citecheck.QuoteSelector, Exact: "ana"}}
	p := citecheck.Citation{Selector: citecheck.Selector{Type: citecheck.PositionSelector, Start: 31, End: 43}, Quote: "x"}
	with := func(c citecheck.Citation, f func(*citecheck.Citation)) *citecheck.Citation { f(&c); return &c }
	for _, c := range []struct {
		cit, fix *citecheck.Citation
		want     string
	}{
		{&p, with(p, func(c *citecheck.Citation) { c.Selector.Start, c.Selector.End = 29, 41 }), "set start 29 and end 41 (they are 31 and 43): the fixed citation holds"},
		{&q, with(q, func(c *citecheck.Citation) { c.ClaimedStart, c.HasClaimedStart = 3, true }), "add claimed_start 3: the fixed citation holds"},
		{with(q, func(c *citecheck.Citation) { c.ClaimedStart, c.HasClaimedStart = 5, true }), with(q, func(c *citecheck.Citation) { c.ClaimedStart, c.HasClaimedStart = 3, true }), "set claimed_start to 3 (it is 5): the fixed citation holds"},
		{&q, with(q, func(c *citecheck.Citation) { c.Selector.Prefix = "b" }), `add prefix "b": the fixed citation holds`},
		{with(q, func(c *citecheck.Citation) { c.Selector.Suffix = "s" }), with(q, func(c *citecheck.Citation) { c.Selector.Suffix = "s!" }), `set suffix to "s!" (it is "s"): the fixed citation holds`},
		{&q, &q, ""},
	} {
		if got := FixWords(c.cit, c.fix); got != c.want {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}

// The HTML of a small run: every outcome and reason of a request, with
// its explanation (testdata/html/run-every-reason.html).
func TestRunHTMLGolden(t *testing.T) {
	i := slices.IndexFunc(goldenCases, func(c struct {
		name string
		body string
		all  bool
	}) bool {
		return c.name == "all-every-reason"
	})
	req, e := citecheck.Decode([]byte(goldenCases[i].body))
	if e != nil {
		t.Fatal(e)
	}
	ex := citecheck.Explain(req)
	p := &Page{Title: "citecheck run: every-reason.json", Kind: "run", Items: AppendRunItems(nil, req, ex.All, ex, 0), Outcomes: RunOutcomes()}
	golden(t, filepath.Join("testdata", "html", "run-every-reason.html"), testkit.WithoutPageOwnParts(AppendHTML(nil, p)))
}

// BenchmarkRunItems: the items of a request of 1,000 quote citations over
// 16 sources of 512 KiB, the page, each citation valid without a
// claimed start (its anchor is looked for: the costly case) or, one in
// four, failing and explained.
func BenchmarkRunItems(b *testing.B) {
	c := testkit.NewCorpus(38)
	var sources []testkit.Source
	var cits []testkit.Citation
	for s := range 16 {
		text := c.Prose(512 << 10)
		id := fmt.Sprintf("s%d", s)
		sources = append(sources, testkit.NewSource(id, "v1", text))
		for k := range 1000/16 + 1 {
			at := (k*7919 + s*104729) % (len(text) - 200)
			for !utf8.RuneStart(text[at]) {
				at++
			}
			exact := strings.ToValidUTF8(text[at:at+60], "")
			if k%4 == 3 {
				exact = strings.Replace(exact, " ", "  ", 1)
			}
			cits = append(cits, testkit.QuoteCitation(fmt.Sprintf("c%d-%d", s, k), id, "v1", exact))
		}
	}
	lim := citecheck.Limits{InputBytes: citecheck.NoLimit, Sources: 16, Citations: citecheck.NoLimit, TextBytes: citecheck.NoLimit,
		QuoteBytes: citecheck.NoLimit, ContextBytes: citecheck.NoLimit, LabelBytes: citecheck.NoLimit, ScanUnits: citecheck.NoLimit}
	req, e := citecheck.DecodeWith([]byte(body(sources, cits...)), lim)
	if e != nil {
		b.Fatal(e)
	}
	ex := citecheck.Explain(req)
	b.ReportAllocs()
	for b.Loop() {
		if items := AppendRunItems(nil, req, ex.All, ex, 0); len(items) != len(cits) || ex.All.Failed == 0 {
			b.Fatal(len(items))
		}
	}
}
