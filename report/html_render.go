package report

import (
	_ "embed"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The HTML renderer: AppendHTML writes a Page as one self-contained HTML5
// page (docs/report-html.md, spec §5.15). The page makes no network
// request: its one style sheet and its one script are inline, and its
// Content-Security-Policy forbids every other source, so a page opened from
// a file, a mail attachment or the tool page runs nothing but its own
// script. Every string of a Page is untrusted: it is written only as
// escaped text or as an escaped, quoted attribute value of an attribute
// the renderer names; it never becomes a tag, an attribute name, a URL, a
// style or a script. Item IDs, which become id and href="#…" values, are
// used only when they are made of [A-Za-z0-9_-] (see itemIDs).

//go:embed html.css
var htmlCSS string

//go:embed html.js
var htmlJS string

// HTMLScriptSource is the Content-Security-Policy source of the page's one
// inline script (html.js), for an embedder that shows the page under its
// own policy (the tool page). TestHTMLScriptSource holds it to the
// script's SHA-256.
const HTMLScriptSource = "'sha256-sh1qe2jacDE92lgnIhtT0yZw33w2SluvJ8RV0+kLn2w='"

// htmlCSP is the page's policy: nothing from anywhere (default-src
// 'none'), its inline style, its one script by hash, images only as data:
// URLs, no <base>, no form submission.
const htmlCSP = "default-src 'none'; style-src 'unsafe-inline'; script-src " + HTMLScriptSource +
	"; img-src data:; base-uri 'none'; form-action 'none'"

// AppendHTML appends the page p to dst: a complete HTML5 document that
// makes no request of any kind. The summary counts the items by outcome
// in p.Outcomes order (then any outcome an item has that p.Outcomes
// lacks); the document, when there is one, shows each item's range marked
// and linked to the item; each item is a <section class="item"> whose
// data-outcome is its Outcome, in p.Items order. Cost: linear in the
// page's text, plus for each passage with Compare the diff of the item's
// text against the passage's (see diffClusters: O(n·m) in their
// clusters, capped).
func AppendHTML(dst []byte, p *Page) []byte {
	w := htmlWriter{b: dst, tones: make(map[string]Tone, len(p.Outcomes))}
	for _, o := range p.Outcomes {
		if _, ok := w.tones[o.Name]; !ok && o.Tone < toneCount {
			w.tones[o.Name] = o.Tone
		}
	}
	ids := itemIDs(p.Items)
	failures := 0
	for i := range p.Items {
		if !w.pass(&p.Items[i]) {
			failures++
		}
	}
	w.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	w.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	w.raw("<meta http-equiv=\"Content-Security-Policy\" content=\"" + htmlCSP + "\">\n")
	w.raw("<meta name=\"color-scheme\" content=\"light\">\n<title>")
	w.plain(p.Title)
	w.raw("</title>\n<style>\n")
	w.raw(htmlCSS)
	w.raw("</style>\n</head>\n<body>\n<header>\n<h1><bdi>")
	w.text(p.Title)
	w.raw("</bdi></h1>\n")
	w.summary(p, failures)
	w.raw("<p class=\"keys\">Keys: <kbd>n</kbd> or <kbd>j</kbd> next failure, <kbd>p</kbd> or <kbd>k</kbd> previous.</p>\n")
	w.raw("</header>\n<main>\n")
	if p.Document != nil {
		w.document(p, ids)
	}
	w.raw("<div class=\"items\">\n")
	next := w.nextFailures(p.Items, ids)
	for i := range p.Items {
		w.item(&p.Items[i], ids[i], next[i])
	}
	w.raw("</div>\n</main>\n<script>")
	w.raw(htmlJS)
	w.raw("</script>\n</body>\n</html>\n")
	return w.b
}

// htmlWriter appends HTML to b.
type htmlWriter struct {
	b     []byte
	tones map[string]Tone // each outcome's, from Page.Outcomes (its first entry)
}

// tone is outcome's tone: its entry's in Page.Outcomes, ToneFail without
// one.
func (w *htmlWriter) tone(outcome string) Tone { return w.tones[outcome] }

// pass says it is a pass: its outcome's tone is TonePass.
func (w *htmlWriter) pass(it *Item) bool { return w.tone(it.Outcome) == TonePass }

func (w *htmlWriter) raw(s string) { w.b = append(w.b, s...) }

// Modes of escape: how a bidi formatting character (isBidiControl) is
// written. None is ever written where it would act on the page.
const (
	escBody  = iota // text of an element: an empty stand-in <span> (bidiStandIn)
	escPlain        // text nothing but a browser draws (<title>, a title attribute): "<U+XXXX>"
	escExact        // an attribute no one sees (data-outcome): the code point itself
)

// text appends s escaped as an element's text (escape, escBody).
func (w *htmlWriter) text(s string) { w.escape(s, escBody) }

// plain appends s escaped as the text of <title> or of a title attribute
// (escape, escPlain).
func (w *htmlWriter) plain(s string) { w.escape(s, escPlain) }

// exact appends s escaped as a quoted attribute value read by scripts, not
// shown (escape, escExact).
func (w *htmlWriter) exact(s string) { w.escape(s, escExact) }

// escape appends s escaped for text or a quoted attribute value: & < > " '
// as references, CR as &#13; (a literal one would be read as LF), NUL and
// invalid UTF-8 as U+FFFD (what a parser reads them as, or drops). A bidi
// formatting character is written as mode says: in an element's text as
// an empty <span> whose stand-in the style sheet draws (so the character
// is not in the DOM's text, where it would reorder the page), in a
// <title> or tooltip as the text "<U+XXXX>", in an unseen attribute as
// itself. What a parser reads back is exactly cleanText(s), each stand-in
// read as its data-cp.
func (w *htmlWriter) escape(s string, mode int) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '&':
				w.raw("&amp;")
			case '<':
				w.raw("&lt;")
			case '>':
				w.raw("&gt;")
			case '"':
				w.raw("&#34;")
			case '\'':
				w.raw("&#39;")
			case '\r':
				w.raw("&#13;")
			case 0:
				w.raw("\uFFFD")
			default:
				if mode != escExact && isBidiControl(rune(c)) { // FS, GS, RS
					w.bidiControl(rune(c), mode)
				} else {
					w.b = append(w.b, c)
				}
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			w.raw("\uFFFD")
		case mode != escExact && isBidiControl(r):
			w.bidiControl(r, mode)
		default:
			w.b = append(w.b, s[i:i+n]...)
		}
		i += n
	}
}

// bidiControl writes bidi control r as mode shows it (see escape).
func (w *htmlWriter) bidiControl(r rune, mode int) {
	if mode == escBody {
		w.bidiStandIn(r)
	} else {
		w.raw("&lt;" + uPlus(r) + "&gt;")
	}
}

// isBidiControl reports whether r is a bidi formatting character: ALM,
// LRM, RLM, LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI. Untrusted text
// holding one could reorder the page's words around it (an RLO reverses
// the rest of its paragraph), so none is written as itself where it is
// shown; nor are the paragraph separators other than LF and CR (PS, FS,
// GS, RS, NEL: bidi class B), which end every isolate around them.
func isBidiControl(r rune) bool {
	return r == 0x061C || r == 0x200E || r == 0x200F || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 ||
		r == 0x2029 || r >= 0x1C && r <= 0x1E || r == 0x85
}

// bidiStandIn writes the stand-in of the bidi control r: an empty,
// isolated span the style sheet draws as <U+XXXX> (class cp, as the
// diff's invisible code points), with no text of its own.
func (w *htmlWriter) bidiStandIn(r rune) {
	w.raw("<span class=\"v cp\" data-cp=\"" + uPlus(r) + "\"></span>")
}

// cleanText is s as a page shows it: NUL and each byte of invalid UTF-8
// as U+FFFD, as text writes them.
func cleanText(s string) string {
	if utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 {
		return s
	}
	b := make([]byte, 0, len(s)+8)
	for _, r := range s {
		if r == 0 {
			r = utf8.RuneError
		}
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}

// The class (html.css) and symbol of each Tone.
var (
	toneClass  = [toneCount]string{"fail", "near", "unchecked", "pass"}
	toneSymbol = [toneCount]string{"✗", "≈", "–", "✓"}
)

// label writes an outcome's label: its symbol and its name with spaces
// for underscores ("✗ not found"), as text.
func (w *htmlWriter) label(outcome string, t Tone) {
	w.raw("<span class=\"label\">")
	w.raw(toneSymbol[t])
	w.raw(" <bdi>")
	w.text(strings.ReplaceAll(outcome, "_", " "))
	w.raw("</bdi></span>")
}

// summary writes the counts by outcome, the total and the failures: the
// outcomes of p.Outcomes in order, then any an item has that p.Outcomes
// lacks (a failure).
func (w *htmlWriter) summary(p *Page, failures int) {
	counts := map[string]int{}
	var order []string
	add := func(name string) {
		if _, ok := counts[name]; !ok {
			counts[name] = 0
			order = append(order, name)
		}
	}
	for _, o := range p.Outcomes {
		add(o.Name)
	}
	for i := range p.Items {
		add(p.Items[i].Outcome)
		counts[p.Items[i].Outcome]++
	}
	w.raw("<section class=\"summary\" aria-label=\"summary\">\n<ul class=\"counts\">\n")
	for _, o := range order {
		t := w.tone(o)
		w.raw("<li class=\"" + toneClass[t] + "\">")
		w.label(o, t)
		w.raw(" <b>" + strconv.Itoa(counts[o]) + "</b></li>\n")
	}
	w.raw("</ul>\n<p class=\"totals\">total <b>" + strconv.Itoa(len(p.Items)) + "</b>, failures <b>" + strconv.Itoa(failures) + "</b></p>\n</section>\n")
}

// document writes the document with each item's range marked and linked
// to the item. Ranges are moved out of code points and combining
// sequences to the whole clusters they touch; one that is out of the text
// or overlaps an earlier one is not marked (its item is still listed).
func (w *htmlWriter) document(p *Page, ids []string) {
	d := p.Document
	type span struct{ a, b, k int }
	var spans []span
	for k := range p.Items {
		r := p.Items[k].Range
		if r == nil || r.Start < 0 || r.End < r.Start || r.End > len(d.Text) {
			continue
		}
		spans = append(spans, span{clusterStart(d.Text, r.Start), clusterEnd(d.Text, r.End), k})
	}
	slices.SortStableFunc(spans, func(x, y span) int { return x.a - y.a })
	w.raw("<section class=\"document\" aria-label=\"document\">\n<h2>Document <bdi>")
	w.text(d.Name)
	w.raw("</bdi></h2>\n<div class=\"doc\" dir=\"auto\"><div>")
	at, block := 0, 0
	for _, s := range spans {
		if s.a < at {
			continue
		}
		it := &p.Items[s.k]
		t := w.tone(it.Outcome)
		block = w.docText(d.Text[at:s.a], block)
		w.raw("<a class=\"mark " + toneClass[t] + "\" href=\"#" + ids[s.k] + "\" title=\"")
		w.plain(toneSymbol[t] + " " + strings.ReplaceAll(it.Outcome, "_", " "))
		w.raw("\">")
		w.text(d.Text[s.a:s.b])
		w.raw("<sup>" + toneSymbol[t] + "</sup></a>")
		block += s.b - s.a
		at = s.b
	}
	w.docText(d.Text[at:], block)
	w.raw("</div></div>\n</section>\n")
}

// docBlock is the size in bytes from which the document's text is cut
// into a new block at its next line break outside a mark.
const docBlock = 2048

// docText writes s, text of the document outside the marks, to the
// document's block whose text so far is block bytes long, and returns the
// length of the block it ends in. A block is closed after a line break
// once it holds docBlock bytes: each block is a <div> the browser lays out
// on its own, and skips until it is scrolled to (html.css), so the time
// to open the page is linear in the document rather than growing with the
// square of its marks (one inline formatting context holding them all;
// docs/report-html.md, Cost). A block ends with its line break, which
// draws no line of its own, so the text reads as one.
func (w *htmlWriter) docText(s string, block int) int {
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 || block+i+1 < docBlock {
			if i >= 0 {
				// Not yet a block: keep on to the next line break.
				w.text(s[:i+1])
				block += i + 1
				s = s[i+1:]
				continue
			}
			w.text(s)
			return block + len(s)
		}
		w.text(s[:i+1])
		w.raw("</div><div>")
		s, block = s[i+1:], 0
	}
}

// item writes one item's section; next is the id of the next failure
// (wrapping), "" for a pass.
func (w *htmlWriter) item(it *Item, id, next string) {
	t := w.tone(it.Outcome)
	w.raw("<section class=\"item " + toneClass[t] + "\" id=\"" + id + "\" data-outcome=\"")
	w.exact(it.Outcome)
	w.raw("\" data-pass=\"" + strconv.FormatBool(t == TonePass) + "\" tabindex=\"0\">\n<h2>")
	w.label(it.Outcome, t)
	w.raw(" <bdi class=\"head\">")
	w.text(it.Head)
	w.raw("</bdi></h2>\n<blockquote class=\"quote\" dir=\"auto\">")
	w.text(it.Text)
	w.raw("</blockquote>\n")
	if it.Source != "" {
		w.raw("<p class=\"source\">source <bdi>")
		w.text(it.Source)
		w.raw("</bdi></p>\n")
	}
	if it.Why != "" {
		w.raw("<p class=\"why\" dir=\"auto\">")
		w.text(it.Why)
		w.raw("</p>\n")
	}
	if it.Error != "" {
		w.raw("<p class=\"error\">error: <bdi>")
		w.text(it.Error)
		w.raw("</bdi></p>\n")
	}
	for i := range it.Passages {
		w.passage(it, &it.Passages[i])
	}
	if it.Fix != "" {
		w.raw("<p class=\"fix\">fix: <bdi>")
		w.text(it.Fix)
		w.raw("</bdi></p>\n")
	}
	if next != "" {
		w.raw("<p class=\"nav\"><a class=\"next\" href=\"#" + next + "\">next failure</a></p>\n")
	}
	w.raw("</section>\n")
}

// passage writes a place of a source: its label and code point span, the
// text with its context dimmed, and for Compare the diff of the item's
// text against it.
func (w *htmlWriter) passage(it *Item, ps *Passage) {
	w.raw("<div class=\"passage\">\n<p class=\"where\"><bdi class=\"plabel\">")
	w.text(ps.Label)
	w.raw("</bdi> <span class=\"span\">code points " + strconv.Itoa(ps.Start) + "–" + strconv.Itoa(ps.End) + "</span></p>\n")
	w.raw("<p class=\"excerpt\" dir=\"auto\"><span class=\"ctx\">")
	w.text(ps.Before)
	w.raw("</span><mark>")
	head, omitted, tail := ps.Text, ps.Omitted, ps.Rest
	if omitted == 0 { // a passage not cut by NewPassage is cut here
		head, omitted, tail = cutMiddle(ps.Text, passageMax)
	}
	w.text(head)
	if omitted > 0 {
		w.raw("</mark><span class=\"omitted\"> … " + strconv.Itoa(omitted) + " code points … </span><mark>")
		w.text(tail)
	}
	w.raw("</mark><span class=\"ctx\">")
	w.text(ps.After)
	w.raw("</span></p>\n")
	if ps.Compare && omitted == 0 {
		w.diff(cleanText(it.Text), cleanText(ps.Text))
	}
	w.raw("</div>\n")
}

// passageMax is the most code points of a passage's place the page
// shows: a longer one (a citation's span over a whole source) is shown
// as its first and last passageMax/2, saying how many are left out
// between, and is not compared, so that a passage costs the page O(1)
// whatever the span. NewPassage cuts it so (and its context), so that
// the items a page gathers never hold a whole span; the renderer cuts a
// passage built otherwise the same way.
const passageMax = 4 * ExcerptContext

// cutMiddle is s whole (omitted 0) when it has at most max code points;
// else its first and last max/2 code points, each moved out to whole
// clusters, and how many code points are left out between.
func cutMiddle(s string, max int) (head string, omitted int, tail string) {
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s, 0, ""
	}
	a, b := 0, len(s)
	for k := 0; k < max/2; k++ {
		_, size := utf8.DecodeRuneInString(s[a:])
		a += size
	}
	for k := 0; k < max/2; k++ {
		_, size := utf8.DecodeLastRuneInString(s[:b])
		b -= size
	}
	a, b = clusterEnd(s, a), clusterStart(s, b)
	if a >= b {
		return s, 0, ""
	}
	return s[:a], utf8.RuneCountInString(s[a:b]), s[b:]
}

// diff writes the difference of quoted against source, cluster by
// cluster: <del> what only the quotation has, <ins> what only the source
// has, each with visible stand-ins for white space and invisible code
// points and its code points in its title.
func (w *htmlWriter) diff(quoted, source string) {
	w.raw("<p class=\"diff\" dir=\"auto\" aria-label=\"quotation against source\">")
	for _, op := range diffClusters(quoted, source) {
		switch op.kind {
		case diffEqual:
			w.text(op.text)
		case diffDelete:
			w.changed("del", op.text)
		case diffInsert:
			w.changed("ins", op.text)
		}
	}
	w.raw("</p>\n")
}

// changed writes s as a <del> or <ins>: the text itself (so that the DOM
// holds it exactly), each white space or invisible code point preceded
// by a stand-in drawn by the style sheet (class sp, nb, tab, nl, cp); a
// bidi control is its stand-in alone (bidiStandIn).
func (w *htmlWriter) changed(tag, s string) {
	w.raw("<" + tag + " title=\"")
	w.raw(codePoints(s, 12))
	w.raw("\">")
	for i, r := range s {
		if isBidiControl(r) {
			w.bidiStandIn(r)
			continue
		}
		if cls := standIn(r, i == 0); cls != "" {
			w.raw("<span class=\"v " + cls + "\"")
			if cls == "cp" {
				w.raw(" data-cp=\"" + uPlus(r) + "\"")
			}
			w.raw(">")
			w.text(s[i : i+utf8.RuneLen(r)])
			w.raw("</span>")
			continue
		}
		w.text(s[i : i+utf8.RuneLen(r)])
	}
	w.raw("</" + tag + ">")
}

// standIn is the class of r's stand-in, "" for a visible code point. A
// mark, variation selector or ZWJ is drawn as it is, on its base, unless
// it has none (first: it starts the run, which starts a cluster).
func standIn(r rune, first bool) string {
	if !first && joinsCluster('a', r, false) {
		return ""
	}
	switch {
	case r == ' ':
		return "sp"
	case r == 0xA0 || r == 0x202F || r == 0x2007:
		return "nb"
	case r == '\t':
		return "tab"
	case r == '\n' || r == '\r' || r == 0x2028 || r == 0x2029:
		return "nl"
	}
	if _, _, esc := glyph(r); esc || isZeroWidth(r) && r != 0x200D || r >= 0x2000 && r <= 0x200A || r == 0x3000 || r == 0x1680 {
		return "cp"
	}
	return ""
}

// codePoints spells the first max code points of s as "U+0022 U+0020".
func codePoints(s string, max int) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == max {
			b.WriteString(" …")
			break
		}
		if n > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(uPlus(r))
		n++
	}
	return b.String()
}

// uPlus spells r as U+XXXX.
func uPlus(r rune) string {
	s := strings.ToUpper(strconv.FormatInt(int64(r), 16))
	if len(s) < 4 {
		s = strings.Repeat("0", 4-len(s)) + s
	}
	return "U+" + s
}

// validID reports whether id may be an element id and fragment as it is:
// 1 to 64 of [A-Za-z0-9_-].
func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// itemIDs is each item's element id: its ID when valid and not taken by
// an earlier item, otherwise "item-N" (N its index, or the first number
// from there that no item holds).
func itemIDs(items []Item) []string {
	ids := make([]string, len(items))
	taken := make(map[string]bool, len(items))
	for i := range items {
		if id := items[i].ID; validID(id) && !taken[id] {
			ids[i], taken[id] = id, true
		}
	}
	n := 0
	for i := range ids {
		if ids[i] != "" {
			continue
		}
		n = max(n, i)
		for taken["item-"+strconv.Itoa(n)] {
			n++
		}
		ids[i] = "item-" + strconv.Itoa(n)
		taken[ids[i]] = true
	}
	return ids
}

// nextFailures is, for each failing item, the id of the next failing one
// (wrapping to the first), and "" for a pass.
func (w *htmlWriter) nextFailures(items []Item, ids []string) []string {
	next := make([]string, len(items))
	first, last := -1, -1
	for i := range items {
		if w.pass(&items[i]) {
			continue
		}
		if first < 0 {
			first = i
		}
		if last >= 0 {
			next[last] = ids[i]
		}
		last = i
	}
	if last >= 0 {
		next[last] = ids[first]
	}
	return next
}
