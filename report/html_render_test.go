package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// TestHTMLScriptSource: the CSP source the page and its embedders allow is
// the hash of the page's one script.
func TestHTMLScriptSource(t *testing.T) {
	sum := sha256.Sum256([]byte(htmlJS))
	if want := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; HTMLScriptSource != want {
		t.Fatalf("HTMLScriptSource = %s, want %s (update the constant after editing html.js)", HTMLScriptSource, want)
	}
	page := string(AppendHTML(nil, &Page{Title: "t"}))
	if !strings.Contains(page, "script-src "+HTMLScriptSource+";") || !strings.Contains(page, "<script>"+htmlJS+"</script>") {
		t.Fatal("the page does not carry its script under its own hash")
	}
}

// htmlGolden are small pages, one per thing the page must show right;
// testdata/html/NAME.html holds each one's page (go test -update rewrites
// them).
var htmlGolden = []struct {
	name string
	page Page
}{
	{"verbatim", Page{Title: "citecheck quotes: draft.md", Kind: "quotes", Outcomes: quoteOutcomes,
		Document: &Document{Name: "draft.md", Text: "Dickens opens: \"It was the best of times\", and goes on."},
		Items: []Item{{ID: "q0", Head: "quotation 1, line 1, column 16", Outcome: "verbatim",
			Text: "It was the best of times", Source: "dickens", Range: rangeOf("Dickens opens: \"It was the best of times\", and goes on.", "It was the best of times"),
			Why: "found verbatim in dickens", Passages: []Passage{{Label: "match", Before: "", Text: "It was the best of times", After: ", it was the worst of times", Start: 0, End: 24}}}}}},
	{"near-curly-quotes", Page{Title: "citecheck quotes: brief.md", Kind: "quotes", Outcomes: quoteOutcomes,
		Items: []Item{{ID: "q0", Head: "quotation 1", Outcome: "near", Text: "the “reasonable person” standard", Source: "opinion",
			Why:      "the source has straight quotes where the quotation has curly ones",
			Passages: []Passage{{Label: "nearest reading", Before: "applying ", Text: "the \"reasonable person\" standard", After: " to the facts", Start: 120, End: 152, Compare: true}},
			Fix:      "quote it as: the \"reasonable person\" standard"}}}},
	{"white-space", Page{Title: "citecheck quotes: notes.txt", Kind: "quotes", Outcomes: quoteOutcomes,
		Items: []Item{{ID: "q0", Head: "quotation 1", Outcome: "near", Text: "ten  dollars\tper day", Source: "ledger",
			Why:      "white space differs",
			Passages: []Passage{{Label: "nearest reading", Before: "paid ", Text: "ten\u00a0dollars per day", After: ".", Start: 5, End: 24, Compare: true}},
			Fix:      "quote it as: ten\u00a0dollars per day"}}}},
	{"missing-word", Page{Title: "citecheck quotes: review.md", Kind: "quotes", Outcomes: quoteOutcomes,
		Items: []Item{{ID: "q0", Head: "quotation 1", Outcome: "near", Text: "the results were significant", Source: "paper",
			Why:      "a word is missing",
			Passages: []Passage{{Label: "nearest reading", Before: "we found that ", Text: "the results were not significant", After: " at p < 0.05", Start: 14, End: 46, Compare: true}}}}}},
	{"not-found", Page{Title: "citecheck quotes: answer.json", Kind: "quotes", Outcomes: append(slices.Clone(quoteOutcomes), ErrorOutcome),
		Items: []Item{
			{ID: "q0", Head: "quotation 1", Outcome: "not_found", Text: "nothing like this is in the source", Why: "not in any source"},
			{ID: "q1", Head: "quotation 2", Outcome: "not_checked", Text: "a PDF quotation", Source: "scan", Why: "the source has no text"},
			{ID: "q2", Head: "quotation 3", Outcome: "verbatim", Text: "found", Source: "s", Passages: []Passage{{Label: "match", Text: "found", Start: 3, End: 8}}},
			{ID: "a0", Head: "annotation 1", Outcome: "error", Text: "", Error: "the selector's start is past the end"},
		}}},
	{"rtl", Page{Title: "citecheck quotes: عربي.md", Kind: "quotes", Outcomes: quoteOutcomes,
		Document: &Document{Name: "عربي.md", Text: rtlDoc},
		Items: []Item{
			{ID: "q0", Head: "quotation 1", Outcome: "verbatim", Text: "مرحبا بالعالم", Source: "ar", Range: rangeOf(rtlDoc, "مرحبا بالعالم"),
				Passages: []Passage{{Label: "match", Before: "نص: ", Text: "مرحبا بالعالم", After: " والمزيد", Start: 4, End: 17}}},
			{ID: "q1", Head: "quotation 2", Outcome: "near", Text: "שָׁלוֹם עוֹלָם", Source: "he", Range: rangeOf(rtlDoc, "שָׁלוֹם עוֹלָם"),
				Passages: []Passage{{Label: "nearest reading", Before: "", Text: "שלום עולם", After: "!", Start: 0, End: 9, Compare: true}}},
		}}},
	{"cjk", Page{Title: "citecheck quotes: 東京.md", Kind: "quotes", Outcomes: quoteOutcomes,
		Document: &Document{Name: "東京.md", Text: "記事によると「東京都は日本の首都」である。"},
		Items: []Item{{ID: "q0", Head: "quotation 1", Outcome: "near", Text: "東京都は日本の首都", Source: "wiki", Range: rangeOf("記事によると「東京都は日本の首都」である。", "東京都は日本の首都"),
			Passages: []Passage{{Label: "nearest reading", Before: "", Text: "東京都は日本國の首都", After: "であり、人口は約千四百万人です。", Start: 0, End: 10, Compare: true}}}}}},
	{"combining", Page{Title: "citecheck quotes: menu.md", Kind: "quotes", Outcomes: quoteOutcomes,
		Items: []Item{{ID: "q0", Head: "quotation 1", Outcome: "near", Text: "Cafe\u0301 and pin\u0303ata", Source: "menu",
			Passages: []Passage{{Label: "nearest reading", Before: "the ", Text: "Cafe and pin\u0303ata", After: " stand", Start: 4, End: 19, Compare: true}}}}}},
	{"hostile", Page{Title: "<script>alert(1)</script>", Kind: "quotes", Outcomes: []Outcome{{"verbatim", TonePass}, {"\" onmouseover=\"x", ToneFail}},
		Document: &Document{Name: "javascript:alert(1)", Text: hostileDoc},
		Items: []Item{
			{ID: "\" onmouseover=\"x", Head: "<img src=x onerror=alert(1)>", Outcome: "\" onmouseover=\"x", Text: "<script>alert(1)</script>", Source: "javascript:alert(1)",
				Range: rangeOf(hostileDoc, "<script>alert(1)</script>"), Why: "</section><script>alert(2)</script>", Error: "' onfocus='alert(3)", Fix: "javascript:alert(1)",
				Passages: []Passage{{Label: "<b>label</b>", Before: "<style>*{}</style>", Text: "<script>alert(1)</script>", After: "<!--", Start: 0, End: 25, Compare: true}}},
			{ID: "javascript:alert(1)", Head: "&amp; &lt;", Outcome: "verbatim", Text: "<a href=\"javascript:alert(1)\">x</a>", Range: rangeOf(hostileDoc, "<a href=\"javascript:alert(1)\">x</a>")},
		}}},
	{"bidi-controls", Page{Title: "citecheck quotes: \u202Etxt.md", Kind: "quotes", Outcomes: []Outcome{{"verbatim", TonePass}, {"not\u202E_found", ToneFail}},
		Document: &Document{Name: "\u2067draft\u2069.md", Text: bidiDoc},
		Items: []Item{
			{ID: "\u202Eevil", Head: "quotation 1 \u202Eline 1", Outcome: "verbatim", Text: "first\u200F one", Source: "\u202Eevil",
				Range: rangeOf(bidiDoc, "“first\u200F one”"), Why: "found \u202Everbatim", Fix: "\u202Dnone",
				Passages: []Passage{{Label: "\u202Ematch", Before: "\u202A", Text: "first\u200F one", After: "\u202C then", Start: 1, End: 11}}},
			{ID: "q1", Head: "quotation 2", Outcome: "not\u202E_found", Text: "\u202Esecond\u061C one", Source: "s\u2066x\u2068", Error: "\u202B<error>",
				Range:    rangeOf(bidiDoc, "“\u202Esecond\u061C one”"),
				Passages: []Passage{{Label: "nearest reading", Before: "\u200E", Text: "second one", After: "\u202E.", Start: 20, End: 30, Compare: true}}},
			// The paragraph separators other than LF and CR end every isolate.
			{ID: "q2", Head: "quotation 3\u2029", Outcome: "verbatim", Text: "third\u2029one", Source: "s\u001cx\u0085",
				Passages: []Passage{{Label: "match", Before: "\u001d", Text: "third\u2029one", After: "\u001e.", Start: 40, End: 49}}},
		}}},
}

// rangeOf is where s first stands in doc.
func rangeOf(doc, s string) *ByteRange {
	i := strings.Index(doc, s)
	if i < 0 {
		panic(s + " is not in " + doc)
	}
	return &ByteRange{i, i + len(s)}
}

const (
	rtlDoc     = "قال الكاتب: «مرحبا بالعالم» ثم כתב: \"שָׁלוֹם עוֹלָם\" (2)."
	bidiDoc    = "\u202E“first\u200F one” and “\u202Esecond\u061C one” \u202Dend\u202C.\n\u2066line\u2069 two"
	hostileDoc = "<script>alert(1)</script> and <a href=\"javascript:alert(1)\">x</a>"
)

// quoteOutcomes are quotes' outcomes and tones (quotes/html.go, which
// imports this package).
var quoteOutcomes = []Outcome{{"no_source", ToneNotChecked}, {"verbatim", TonePass}, {"moved", ToneNear},
	{"elsewhere", ToneNear}, {"near", ToneNear}, {"not_found", ToneFail}, {"not_checked", ToneNotChecked}}

// TestHTMLGolden compares each small page with testdata/html/NAME.html,
// and holds its structure and text to the page as the fuzz target does.
// The verbatim page is kept whole; the others without the style sheet,
// script and hash every page shares (testkit.WithoutPageOwnParts).
func TestHTMLGolden(t *testing.T) {
	for _, c := range htmlGolden {
		t.Run(c.name, func(t *testing.T) {
			got := AppendHTML(nil, &c.page)
			checkPageStructure(t, got, &c.page)
			if c.name != "verbatim" {
				got = testkit.WithoutPageOwnParts(got)
			}
			golden(t, filepath.Join("testdata", "html", c.name+".html"), got)
		})
	}
}

// TestHTMLItemIDs: an item's id is its ID when that is made of
// [A-Za-z0-9_-] and not taken; otherwise item-N, never a duplicate.
func TestHTMLItemIDs(t *testing.T) {
	items := []Item{{ID: "q0"}, {ID: "q0"}, {ID: "a b"}, {ID: ""}, {ID: "item-1"}, {ID: "\" x=\""}, {ID: "ok_-9"}}
	want := []string{"q0", "item-2", "item-3", "item-4", "item-1", "item-5", "ok_-9"}
	if got := itemIDs(items); !slices.Equal(got, want) {
		t.Fatalf("itemIDs = %q, want %q", got, want)
	}
}

// TestHTMLSummaryCounts: the summary lists p.Outcomes in order with 0 for
// an outcome no item has, then an outcome only items have; total and
// failures.
func TestHTMLSummaryCounts(t *testing.T) {
	p := &Page{Outcomes: []Outcome{{"verbatim", TonePass}, {"near", ToneNear}, {"not_found", ToneFail}}, Items: []Item{
		{Outcome: "near"}, {Outcome: "verbatim"}, {Outcome: "odd"}, {Outcome: "near"}}}
	page := string(AppendHTML(nil, p))
	// A passing outcome no item has is still shown as a pass.
	if none := string(AppendHTML(nil, &Page{Outcomes: []Outcome{{"verbatim", TonePass}}})); !strings.Contains(none, `<li class="pass"><span class="label">✓ <bdi>verbatim</bdi></span> <b>0</b>`) {
		t.Error("verbatim with no item is not shown as a pass")
	}
	for _, want := range []string{
		"✓ <bdi>verbatim</bdi></span> <b>1</b>", "≈ <bdi>near</bdi></span> <b>2</b>", "✗ <bdi>not found</bdi></span> <b>0</b>",
		"✗ <bdi>odd</bdi></span> <b>1</b>", "total <b>4</b>, failures <b>3</b>"} {
		if !strings.Contains(page, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	if a, b := strings.Index(page, "verbatim</bdi></span> <b>"), strings.Index(page, "not found</bdi></span> <b>"); a > b {
		t.Error("summary out of p.Outcomes order")
	}
}

// TestHTMLDocumentBlocks: a long document is cut into blocks at line
// breaks outside its marks, each block (but the last) ending with its line
// break once it holds docBlock bytes; the blocks read as the document and
// every mark is whole, a mark over lines included.
func TestHTMLDocumentBlocks(t *testing.T) {
	var doc strings.Builder
	p := &Page{Title: "blocks", Outcomes: quoteOutcomes}
	for i := range 300 {
		fmt.Fprintf(&doc, "Line %d says “", i)
		a := doc.Len()
		doc.WriteString("a quotation\nover two lines")
		p.Items = append(p.Items, Item{ID: fmt.Sprintf("q%d", i), Outcome: "verbatim", Range: &ByteRange{a, doc.Len()}})
		doc.WriteString("”, then more.\n")
	}
	p.Document = &Document{Name: "d", Text: doc.String()}
	page := AppendHTML(nil, p)
	checkPageStructure(t, page, p)
	root, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	d := findAll(root, byClass(atom.Div, "doc"))[0]
	var blocks []string
	for c := d.FirstChild; c != nil; c = c.NextSibling {
		if c.DataAtom != atom.Div {
			t.Fatalf("the document holds a <%s> outside its blocks", c.Data)
		}
		blocks = append(blocks, textOf(c))
	}
	if len(blocks) < 5 {
		t.Fatalf("%d blocks for %d bytes", len(blocks), doc.Len())
	}
	for i, b := range blocks[:len(blocks)-1] {
		if !strings.HasSuffix(b, "more.\n") || len(b) < docBlock {
			t.Errorf("block %d (%d bytes) does not end at a line break outside a mark past %d bytes: …%q", i, len(b), docBlock, b[max(0, len(b)-20):])
		}
	}
	marks := findAll(d, byClass(atom.A, "mark"))
	if len(marks) != len(p.Items) {
		t.Fatalf("%d marks, want %d", len(marks), len(p.Items))
	}
	for i, m := range marks {
		r := p.Items[i].Range
		if got := textOf(m); got != doc.String()[r.Start:r.End] {
			t.Errorf("mark %d = %q", i, got)
		}
	}
}

// A passage's place over passageMax code points (a citation's span over a
// whole source) is shown as its two ends and how much is left out, never
// compared: a page's size does not grow with the span, nor do the items
// NewPassage makes.
func TestHTMLPassageOverMaxIsCut(t *testing.T) {
	src := strings.Repeat("word ", 100_000) // 500,000 code points
	x := citecheck.NewText(src)
	page := func(end int) string {
		return string(AppendHTML(nil, &Page{Outcomes: quoteOutcomes, Items: []Item{{ID: "r0c0", Outcome: "quote_mismatch", Text: "x",
			Passages: []Passage{NewPassage("cited span", x, 0, end, true)}}}}))
	}
	if p := NewPassage("cited span", x, 0, len(src), true); utf8.RuneCountInString(p.Text+p.Rest) != passageMax ||
		p.Omitted != len(src)-passageMax || p.Compare {
		t.Errorf("NewPassage keeps %d code points of the place, %d left out, compare %v: want its two ends only, never compared",
			utf8.RuneCountInString(p.Text+p.Rest), p.Omitted, p.Compare)
	}
	whole, cut := page(passageMax), page(len(src))
	if strings.Contains(whole, `class="omitted"`) || !strings.Contains(whole, `class="diff"`) {
		t.Error("a passage of passageMax code points is not shown whole and compared")
	}
	if want := " … " + strconv.Itoa(len(src)-passageMax) + " code points … "; !strings.Contains(cut, want) || strings.Contains(cut, `class="diff"`) {
		t.Errorf("a passage of the whole source is not cut to its ends (%q) without a difference", want)
	}
	if len(cut) > len(whole)+200 {
		t.Errorf("the cut page is %d bytes, the page of a %d-code-point passage %d", len(cut), passageMax, len(whole))
	}
}
