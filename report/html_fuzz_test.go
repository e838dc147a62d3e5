package report

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// fuzzPage is a page of two items (a failure compared against its
// passage, then a pass) in a document, every string taken from the fuzzer.
func fuzzPage(title, id, outcome, text, src, doc string, at int) *Page {
	a := 0
	if len(doc) > 0 {
		a = (at%len(doc) + len(doc)) % len(doc)
	}
	return &Page{
		Title: title, Kind: "quotes", Outcomes: []Outcome{{"verbatim", TonePass}, {outcome, ToneFail}},
		Document: &Document{Name: title, Text: doc},
		Items: []Item{
			{ID: id, Head: title, Outcome: outcome, Text: text, Source: src, Range: &ByteRange{a, len(doc)},
				Why: text, Fix: src, Error: outcome,
				Passages: []Passage{{Label: outcome, Before: src, Text: src + text, After: text, Start: at, End: at + 1, Compare: true}}},
			{ID: id, Head: text, Outcome: "verbatim", Text: src, Range: &ByteRange{0, a},
				Passages: []Passage{{Label: "match", Text: src}}},
		},
	}
}

// htmlAllowed is every element the page may hold, with the attributes each
// may carry: nothing else, whatever the input.
var htmlAllowed = map[atom.Atom][]string{
	atom.Html: {"lang"}, atom.Head: nil, atom.Meta: {"charset", "name", "content", "http-equiv"},
	atom.Title: nil, atom.Style: nil, atom.Body: nil, atom.Header: nil, atom.H1: nil, atom.H2: nil,
	atom.Section: {"class", "aria-label", "id", "data-outcome", "data-pass", "tabindex"},
	atom.Ul:      {"class"}, atom.Li: {"class"}, atom.Span: {"class", "data-cp"}, atom.Bdi: {"class"},
	atom.B: nil, atom.P: {"class", "dir", "aria-label"}, atom.Kbd: nil, atom.Main: nil,
	atom.Div: {"class", "dir"}, atom.A: {"class", "href", "title"}, atom.Sup: nil,
	atom.Blockquote: {"class", "dir"}, atom.Mark: nil, atom.Del: {"title"}, atom.Ins: {"title"},
	atom.Script: nil,
}

// textOf is the text under n, leaving out the <sup> outcome symbols the
// document's marks carry, each bidi control's stand-in (an empty span of
// class cp) read as the code point its data-cp names.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if r, ok := standInOf(n); ok {
			b.WriteRune(r)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.DataAtom != atom.Sup {
				walk(c)
			}
		}
	}
	walk(n)
	return b.String()
}

// standInOf is the code point whose stand-in n is: an empty <span
// class="v cp" data-cp="U+XXXX">.
func standInOf(n *html.Node) (rune, bool) {
	if n.Type != html.ElementNode || n.DataAtom != atom.Span || n.FirstChild != nil || !hasClass(n, "cp") {
		return 0, false
	}
	v, _ := attr(n, "data-cp")
	r, err := strconv.ParseInt(strings.TrimPrefix(v, "U+"), 16, 32)
	if err != nil || !strings.HasPrefix(v, "U+") {
		return 0, false
	}
	return rune(r), true
}

// plainText is s as <title> and a title attribute show it: cleanText(s)
// with each bidi control spelled <U+XXXX>.
func plainText(s string) string {
	var b strings.Builder
	for _, r := range cleanText(s) {
		if isBidiControl(r) {
			b.WriteString("<" + uPlus(r) + ">")
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

func hasClass(n *html.Node, c string) bool {
	v, _ := attr(n, "class")
	return slices.Contains(strings.Fields(v), c)
}

// findAll is every element under n that keep accepts, in document order.
func findAll(n *html.Node, keep func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && keep(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func byClass(tag atom.Atom, class string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.DataAtom == tag && hasClass(n, class) }
}

// checkPageStructure parses page and holds it to p: only the renderer's
// elements and attributes, one script (its own), the items in order with
// their ids and outcomes, and every text of p read back exactly.
func checkPageStructure(t *testing.T, page []byte, p *Page) {
	t.Helper()
	root, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	ids := itemIDs(p.Items)
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	for _, n := range findAll(root, func(*html.Node) bool { return true }) {
		allowed, ok := htmlAllowed[n.DataAtom]
		if !ok || n.Namespace != "" {
			fail("element <%s> (%q)", n.Data, n.Namespace)
			continue
		}
		for _, a := range n.Attr {
			if !slices.Contains(allowed, a.Key) || a.Namespace != "" {
				fail("<%s %s=%q>", n.Data, a.Key, a.Val)
			}
			switch a.Key {
			case "href":
				if !strings.HasPrefix(a.Val, "#") || !slices.Contains(ids, a.Val[1:]) {
					fail("href %q", a.Val)
				}
			case "id":
				if !slices.Contains(ids, a.Val) {
					fail("id %q", a.Val)
				}
			}
		}
	}
	if s := findAll(root, func(n *html.Node) bool { return n.DataAtom == atom.Script }); len(s) != 1 || textOf(s[0]) != htmlJS {
		fail("%d scripts, or not ours", len(s))
	}
	// No bidi control is in the page's text or in an attribute it shows:
	// none can reorder what the page says (data-outcome, read by scripts,
	// holds the outcome exactly).
	for _, n := range findAll(root, func(*html.Node) bool { return true }) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode && n.DataAtom != atom.Script && n.DataAtom != atom.Style && strings.IndexFunc(c.Data, isBidiControl) >= 0 {
				fail("a bidi control in the text of <%s>: %q", n.Data, c.Data)
			}
		}
		for _, a := range n.Attr {
			if a.Key != "data-outcome" && strings.IndexFunc(a.Val, isBidiControl) >= 0 {
				fail("a bidi control in <%s %s=%q>", n.Data, a.Key, a.Val)
			}
		}
	}
	if s := findAll(root, func(n *html.Node) bool { return n.DataAtom == atom.Title }); len(s) != 1 || textOf(s[0]) != plainText(p.Title) {
		fail("title")
	}
	if s := findAll(root, func(n *html.Node) bool { return n.DataAtom == atom.H1 }); len(s) != 1 || textOf(s[0]) != cleanText(p.Title) {
		fail("h1")
	}
	if p.Document != nil {
		if s := findAll(root, byClass(atom.Div, "doc")); len(s) != 1 || textOf(s[0]) != cleanText(p.Document.Text) {
			fail("document text")
		}
	}
	items := findAll(root, byClass(atom.Section, "item"))
	if len(items) != len(p.Items) {
		fail("%d items, want %d", len(items), len(p.Items))
		t.Fatal(strings.Join(errs, "\n"))
	}
	for k, n := range items {
		it := &p.Items[k]
		if o, _ := attr(n, "data-outcome"); o != cleanText(it.Outcome) {
			fail("item %d: data-outcome %q", k, o)
		}
		if id, _ := attr(n, "id"); id != ids[k] || !validID(id) {
			fail("item %d: id %q", k, id)
		}
		want := map[string]string{"quote": it.Text, "head": it.Head}
		for class, s := range want {
			got := findAll(n, func(n *html.Node) bool { return hasClass(n, class) })
			if len(got) != 1 || textOf(got[0]) != cleanText(s) {
				fail("item %d: %s", k, class)
			}
		}
		ps := findAll(n, byClass(atom.Div, "passage"))
		if len(ps) != len(it.Passages) {
			fail("item %d: %d passages", k, len(ps))
			continue
		}
		for j, pn := range ps {
			pp := &it.Passages[j]
			// A place over passageMax code points is shown by its two ends.
			head, omitted, tail := cutMiddle(pp.Text, passageMax)
			shown := cleanText(head)
			if omitted > 0 {
				shown += " … " + strconv.Itoa(omitted) + " code points … " + cleanText(tail)
			}
			if e := findAll(pn, byClass(atom.P, "excerpt")); len(e) != 1 || textOf(e[0]) != cleanText(pp.Before)+shown+cleanText(pp.After) {
				fail("item %d passage %d: excerpt", k, j)
			}
			d := findAll(pn, byClass(atom.P, "diff"))
			if !pp.Compare || omitted > 0 {
				if len(d) != 0 {
					fail("item %d passage %d: a diff", k, j)
				}
				continue
			}
			if len(d) != 1 {
				fail("item %d passage %d: no diff", k, j)
				continue
			}
			a, b := diffSides(d[0])
			if a != cleanText(it.Text) || b != cleanText(pp.Text) {
				fail("item %d passage %d: diff sides %q %q", k, j, a, b)
			}
		}
	}
	if len(errs) > 0 {
		t.Fatalf("page:\n%s\n%s", strings.Join(errs, "\n"), page)
	}
}

// diffSides reads a diff back: the text it shows outside <ins> (the
// quotation) and outside <del> (the source).
func diffSides(n *html.Node) (a, b string) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		s := textOf(c)
		switch c.DataAtom {
		case atom.Del:
			a += s
		case atom.Ins:
			b += s
		default:
			a, b = a+s, b+s
		}
	}
	return a, b
}

// FuzzAppendHTML: whatever the strings of a page, the parsed page holds
// only the renderer's elements and attributes, and every string reads
// back as it was (NUL and invalid UTF-8 as U+FFFD).
func FuzzAppendHTML(f *testing.F) {
	f.Add("t", "q0", "near", "“worst”  of", "\"worst\"\u00a0of", "He said “worst”  of.", 8)
	f.Add("<script>alert(1)</script>", "\" onmouseover=\"x", "javascript:alert(1)", "</title><b>", "'><img src=x>", "<!-- --><![CDATA[", 3)
	f.Add("\x00\r\n\xff", "a b", "x_y", "e\u0301\u200d", "مرحبا بالعالم", "שָׁלוֹם 東京", -5)
	f.Add("\u202Et", "\u202Eevil", "\u2067x", "a\u202Eb\u200F", "\u061C\u202A\u202D", "\u2066“x”\u2069 \u202E“y”", 2)
	f.Fuzz(func(t *testing.T, title, id, outcome, text, src, doc string, at int) {
		p := fuzzPage(title, id, outcome, text, src, doc, at)
		checkPageStructure(t, AppendHTML(nil, p), p)
	})
}
