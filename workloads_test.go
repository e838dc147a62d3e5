package citecheck

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// This file holds request builders shared by the tests and the benchmark
// workloads. Bodies are written by hand, not by encoding/json, so that every
// member's order, presence and literal is exactly what a test says (an absent
// prefix and an empty one are different inputs).

// reqSource is one source of a hand-built request.
type reqSource struct{ ID, Version, Text string }

// reqCitation is one citation of a hand-built request. A position citation
// has Position set (Start, End, Quote); a quote citation has Exact and, when
// non-nil, Prefix, Suffix and ClaimedStart.
type reqCitation struct {
	ID, SourceID, Version string

	Position   bool
	Start, End int
	Quote      string

	Exact          string
	Prefix, Suffix *string
	ClaimedStart   *int
}

// positionCite is a TextPositionSelector citation with its quote.
func positionCite(id, sid, ver string, start, end int, quote string) reqCitation {
	return reqCitation{ID: id, SourceID: sid, Version: ver, Position: true, Start: start, End: end, Quote: quote}
}

// anchorCite is a TextQuoteSelector citation with only exact; add context
// with withPrefix, withSuffix and claimed.
func anchorCite(id, sid, ver, exact string) reqCitation {
	return reqCitation{ID: id, SourceID: sid, Version: ver, Exact: exact}
}

func (c reqCitation) withPrefix(p string) reqCitation { c.Prefix = &p; return c }
func (c reqCitation) withSuffix(s string) reqCitation { c.Suffix = &s; return c }
func (c reqCitation) claimed(n int) reqCitation       { c.ClaimedStart = &n; return c }

// encodeRequest writes {"sources":[…],"citations":[…]} compactly.
func encodeRequest(sources []reqSource, cits []reqCitation) []byte {
	b := []byte(`{"sources":[`)
	for i, s := range sources {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"source_id":`...)
		b = quoteJSON(b, s.ID)
		b = append(b, `,"version":`...)
		b = quoteJSON(b, s.Version)
		b = append(b, `,"text":`...)
		b = quoteJSON(b, s.Text)
		b = append(b, '}')
	}
	b = append(b, `],"citations":[`...)
	for i, c := range cits {
		if i > 0 {
			b = append(b, ',')
		}
		b = c.appendJSON(b)
	}
	return append(b, "]}"...)
}

func (c reqCitation) appendJSON(b []byte) []byte {
	b = append(b, `{"citation_id":`...)
	b = quoteJSON(b, c.ID)
	b = append(b, `,"source_id":`...)
	b = quoteJSON(b, c.SourceID)
	b = append(b, `,"version":`...)
	b = quoteJSON(b, c.Version)
	if c.Position {
		b = append(b, `,"selector":{"type":"TextPositionSelector","start":`...)
		b = appendInt(b, c.Start)
		b = append(b, `,"end":`...)
		b = appendInt(b, c.End)
		b = append(b, `},"quote":`...)
		b = quoteJSON(b, c.Quote)
		return append(b, '}')
	}
	b = append(b, `,"selector":{"type":"TextQuoteSelector","exact":`...)
	b = quoteJSON(b, c.Exact)
	if c.Prefix != nil {
		b = append(b, `,"prefix":`...)
		b = quoteJSON(b, *c.Prefix)
	}
	if c.Suffix != nil {
		b = append(b, `,"suffix":`...)
		b = quoteJSON(b, *c.Suffix)
	}
	b = append(b, '}')
	if c.ClaimedStart != nil {
		b = append(b, `,"claimed_start":`...)
		b = appendInt(b, *c.ClaimedStart)
	}
	return append(b, '}')
}

// quoteJSON appends s as a JSON string; s must be valid UTF-8.
func quoteJSON(b []byte, s string) []byte {
	out, err := jsontext.AppendQuote(b, s)
	if err != nil {
		panic("test body with invalid UTF-8: " + err.Error())
	}
	return out
}

func appendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }

// countOverlapping counts every occurrence of pattern in text, overlapping
// ones included: the reference for OE, OP and OF when building workloads.
func countOverlapping(text, pattern string) int {
	n := 0
	for i := 0; ; {
		j := strings.Index(text[i:], pattern)
		if j < 0 {
			return n
		}
		n++
		i += j + 1
	}
}

// ---------------------------------------------------------------- prose

// wlWords is a small vocabulary; word picks from it with a Zipf-like skew
// so that short common words repeat as in real prose (which makes short
// anchors ambiguous and long ones unique, as in real answers).
var wlWords = strings.Fields(`the of and to a in is it you that he was for on are
with as I his they be at one have this from or had by hot word but what some we
can out other were all there when up use your how said an each she which do their
time if will way about many then them write would like so these her long make
thing see him two has look more day could go come did number sound no most people
my over know water than call first who may down side been now find any new work
part take get place made live where after back little only round man year came
show every good me give our under name very through just form sentence great think
say help low line differ turn cause much mean before move right boy old too same
tell does set three want air well also play small end put home read hand port
large spell add even land here must big high such follow act why ask men change
went light kind off need house picture try us again animal point mother world near
build self earth father head stand own page should country found answer school grow
study still learn plant cover food sun four between state keep eye never last let
thought city tree cross farm hard start might story saw far sea draw left late run
evidence archive ledger treaty harbour census manuscript council verdict witness`)

var wlNames = []string{"Ada", "Turing", "Noether", "Hopper", "Lovelace", "Euler", "Gauss",
	"Riemann", "Shannon", "Knuth", "Dijkstra", "Hamming", "Liskov", "Babbage", "Curie"}

type proseGen struct {
	rng   *rand.Rand
	ascii bool // no curly quotes or apostrophes: one byte per code point
}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed*0x9E3779B97F4A7C15+1)) }

func (p *proseGen) word() string {
	i := int(math.Pow(p.rng.Float64(), 2.2) * float64(len(wlWords)))
	return wlWords[min(i, len(wlWords)-1)]
}

func (p *proseGen) sentence() string {
	n := 6 + p.rng.IntN(21)
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		var w string
		switch x := p.rng.Float64(); {
		case x < 0.03:
			w = wlNames[p.rng.IntN(len(wlNames))]
		case x < 0.05:
			w = strconv.Itoa(2 + p.rng.IntN(2023))
		case x < 0.07 && !p.ascii:
			w = p.word() + "\u2019s" // curly apostrophe
		default:
			w = p.word()
		}
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
		if i < n-1 && p.rng.Float64() < 0.08 {
			b.WriteByte(',')
		}
	}
	s := b.String()
	switch x := p.rng.Float64(); {
	case x < 0.05 && !p.ascii:
		return "\u201c" + s + ",\u201d " + wlNames[p.rng.IntN(len(wlNames))] + " said."
	case x < 0.08:
		return s + " (" + p.word() + " " + p.word() + ")."
	}
	return s + string(".......?!"[p.rng.IntN(9)])
}

// text returns prose of exactly nbytes UTF-8 bytes, in paragraphs.
func (p *proseGen) text(nbytes int) string {
	var b strings.Builder
	for b.Len() < nbytes+64 {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		for k := range 3 + p.rng.IntN(6) {
			if k > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(p.sentence())
		}
	}
	t := b.String()[:nbytes]
	for !utf8.ValidString(t) { // a multi-byte char was cut: drop it, pad with '.'
		t = t[:len(t)-1]
	}
	return t + strings.Repeat(".", nbytes-len(t))
}

// ---------------------------------------------------------------- citations

// pickAnchor returns a quote citation on text that passes: exact is elen code
// points long, prefix and suffix are cut from the text around it, and
// prefix+exact+suffix occurs exactly once. With uniqueExact, exact alone must
// occur once too. starts, when non-nil, are the code point indexes to try.
func pickAnchor(rng *rand.Rand, id, sid, ver string, r []rune, text string,
	elen, plen, slen [2]int, uniqueExact bool, claimedProb float64) reqCitation {
	for range 100000 {
		p := rng.IntN(len(r))
		l := elen[0] + rng.IntN(elen[1]-elen[0]+1)
		if p+l > len(r) {
			continue
		}
		lp := min(plen[0]+rng.IntN(plen[1]-plen[0]+1), p)
		ls := min(slen[0]+rng.IntN(slen[1]-slen[0]+1), len(r)-p-l)
		e, pre, suf := string(r[p:p+l]), string(r[p-lp:p]), string(r[p+l:p+l+ls])
		if countOverlapping(text, pre+e+suf) != 1 || (uniqueExact && countOverlapping(text, e) != 1) {
			continue
		}
		c := anchorCite(id, sid, ver, e)
		if pre != "" {
			c = c.withPrefix(pre)
		}
		if suf != "" {
			c = c.withSuffix(suf)
		}
		if rng.Float64() < claimedProb {
			c = c.claimed(p)
		}
		return c
	}
	panic("benchWorkload: no unique anchor found")
}

// pickSpan returns a position citation on text that passes: a span of qlen
// code points and the quote it reads.
func pickSpan(rng *rand.Rand, id, sid, ver string, r []rune, qlen [2]int) reqCitation {
	l := qlen[0] + rng.IntN(qlen[1]-qlen[0]+1)
	p := rng.IntN(len(r) - l + 1)
	return positionCite(id, sid, ver, p, p+l, string(r[p:p+l]))
}

// ---------------------------------------------------------------- workloads

// benchWorkload is one deterministic benchmark request; every citation in it
// passes, so the whole batch is checked.
type benchWorkload struct {
	name      string
	body      []byte
	citations int
}

// benchWorkloads builds the workloads once per test binary (max_limits alone
// is a 1 MiB body).
var benchWorkloads = sync.OnceValue(func() []benchWorkload {
	var ws []benchWorkload
	for _, w := range []struct {
		name  string
		build func() ([]reqSource, []reqCitation)
	}{
		{"rag_typical", ragTypical},
		{"many_small", manySmall},
		{"max_limits", maxLimits},
		{"adversarial_periodic", adversarialPeriodic},
		{"adversarial_overlap", adversarialOverlap},
		{"unicode_heavy", unicodeHeavy},
	} {
		s, c := w.build()
		ws = append(ws, benchWorkload{name: w.name, body: encodeRequest(s, c), citations: len(c)})
	}
	return ws
})

// ragTypical: 4 × ~20 KB English-like prose with curly quotes (report has two
// versions), 24 citations: 12 position, 12 quote with prefix and suffix (a
// third of them with claimed_start).
func ragTypical() ([]reqSource, []reqCitation) {
	rng := newRand(1001)
	p := &proseGen{rng: rng}
	srcs := []reqSource{
		{"handbook", "2024-03-01", p.text(19000 + rng.IntN(2001))},
		{"faq", "v7", p.text(19000 + rng.IntN(2001))},
		{"report", "v1", p.text(19000 + rng.IntN(2001))},
	}
	// v2 is v1 with a paragraph rewritten and one appended, as revisions are.
	paras := strings.Split(srcs[2].Text, "\n\n")
	paras[len(paras)/2] = p.sentence() + " " + p.sentence() + " " + p.sentence()
	srcs = append(srcs, reqSource{"report", "v2", strings.Join(paras, "\n\n") + "\n\n" + p.sentence()})
	var cits []reqCitation
	for i := range 24 {
		s := srcs[i%4]
		r := []rune(s.Text)
		id := "c" + strconv.Itoa(i+1)
		if i%2 == 0 {
			cits = append(cits, pickSpan(rng, id, s.ID, s.Version, r, [2]int{30, 300}))
		} else {
			cits = append(cits, pickAnchor(rng, id, s.ID, s.Version, r, s.Text,
				[2]int{40, 200}, [2]int{16, 32}, [2]int{16, 32}, false, 0.33))
		}
	}
	return srcs, cits
}

// manySmall: 16 × 2 KB sources, 256 citations (the max_citations limit):
// per-citation overhead.
func manySmall() ([]reqSource, []reqCitation) {
	rng := newRand(1006)
	p := &proseGen{rng: rng}
	var srcs []reqSource
	for j := range 16 {
		srcs = append(srcs, reqSource{"s" + strconv.Itoa(j), "v1", p.text(2048)})
	}
	var cits []reqCitation
	for i := range MaxCitations {
		s := srcs[rng.IntN(len(srcs))]
		r := []rune(s.Text)
		id := "m" + strconv.Itoa(i)
		if i%2 == 0 {
			cits = append(cits, pickSpan(rng, id, s.ID, s.Version, r, [2]int{20, 160}))
		} else {
			cits = append(cits, pickAnchor(rng, id, s.ID, s.Version, r, s.Text,
				[2]int{20, 120}, [2]int{0, 16}, [2]int{0, 16}, false, 0.3))
		}
	}
	return srcs, cits
}

// maxLimitsText is the size of max_limits' one source: max_text_bytes of
// ASCII, so 32 quote citations scan exactly max_scan_units.
const maxLimitsText = MaxTextBytes

// maxLimits: a body just under max_input_bytes. One 512 KiB ASCII prose
// source; 32 quote citations (exact 50–300 chars occurring once, prefix and
// suffix 8–16 chars) scanning 32 × 524,288 = 16,777,216 units, the whole
// budget; the rest of the body is position citations with long quotes
// (which cost no scan units), so decoding works on a full 1 MiB.
func maxLimits() ([]reqSource, []reqCitation) {
	rng := newRand(1002)
	p := &proseGen{rng: rng, ascii: true}
	text := p.text(maxLimitsText)
	r := []rune(text)
	srcs := []reqSource{{"corpus", "v1", text}}
	var cits []reqCitation
	for i := range 32 {
		cits = append(cits, pickAnchor(rng, "q"+strconv.Itoa(i), "corpus", "v1", r, text,
			[2]int{50, 300}, [2]int{8, 16}, [2]int{8, 16}, true, 0.25))
	}
	// Fill with position citations up to ~2 KiB under the limit.
	const room = MaxInputBytes - 2048
	size := len(encodeRequest(srcs, cits))
	for i := 0; ; i++ {
		id := "f" + strconv.Itoa(i)
		overhead := len(positionCite(id, "corpus", "v1", 0, 0, "").appendJSON(nil)) + 16 // + digits of start/end, comma
		l := min(MaxQuoteBytes, room-size-overhead)
		if l < 1 {
			break
		}
		start := rng.IntN(len(text) - l + 1)
		c := positionCite(id, "corpus", "v1", start, start+l, text[start:start+l])
		size += len(c.appendJSON(nil)) + 1
		cits = append(cits, c)
	}
	return srcs, cits
}

// wlPeriodicText is "a"×262,140 + "b" + "a"×262,139 (524,280 code points):
// a pattern of a's and one b nearly matches at every position.
func wlPeriodicText() (string, int) {
	const half = 262140
	return strings.Repeat("a", half) + "b" + strings.Repeat("a", half-1), half
}

// adversarialPeriodic: 32 quote citations alternating exact "a"×7999+"b"
// (a left-to-right naive matcher's worst case) and "b"+"a"×7999 (a
// right-to-left one's), each occurring once; every other pair adds context
// and the right claimed_start. 32 × 524,280 units: the whole budget.
func adversarialPeriodic() ([]reqSource, []reqCitation) {
	text, b := wlPeriodicText()
	const l = 8000
	aab, baa := strings.Repeat("a", l-1)+"b", "b"+strings.Repeat("a", l-1)
	var cits []reqCitation
	for i := range 32 {
		id := "p" + strconv.Itoa(i)
		switch i % 4 {
		case 0:
			cits = append(cits, anchorCite(id, "periodic", "v1", aab))
		case 1:
			cits = append(cits, anchorCite(id, "periodic", "v1", baa))
		case 2:
			cits = append(cits, anchorCite(id, "periodic", "v1", aab).withSuffix(strings.Repeat("a", 16)).claimed(b-(l-1)))
		case 3:
			cits = append(cits, anchorCite(id, "periodic", "v1", baa).withPrefix(strings.Repeat("a", 16)).claimed(b))
		}
	}
	return []reqSource{{"periodic", "v1", text}}, cits
}

// adversarialOverlap: the same text, 32 quote citations with exact "a"×8000,
// which occurs ~508,000 times overlapping (OE); suffix "b" or prefix "b"
// keeps exactly one. Counting every occurrence is the expensive part.
func adversarialOverlap() ([]reqSource, []reqCitation) {
	text, b := wlPeriodicText()
	exact := strings.Repeat("a", 8000)
	var cits []reqCitation
	for i := range 32 {
		id := "o" + strconv.Itoa(i)
		if i%2 == 0 {
			cits = append(cits, anchorCite(id, "periodic", "v1", exact).withSuffix("b"))
		} else {
			cits = append(cits, anchorCite(id, "periodic", "v1", exact).withPrefix("b").claimed(b+1))
		}
	}
	return []reqSource{{"periodic", "v1", text}}, cits
}

// unicodeHeavy: one ~200 KB source of CJK, kana, emoji (astral, with skin
// tones, ZWJ sequences, flags), Latin with combining marks, Hebrew with
// niqqud, Devanagari and astral math letters; 32 position citations (a
// quarter starting on an astral char, a combining mark or a ZWJ, so they cut
// through grapheme clusters) and 32 quote citations.
func unicodeHeavy() ([]reqSource, []reqCitation) {
	rng := newRand(1005)
	text := unicodeText(rng, 200*1024)
	r := []rune(text)
	var cits []reqCitation
	for i := range 64 {
		id := "u" + strconv.Itoa(i)
		if i%2 == 1 {
			cits = append(cits, pickAnchor(rng, id, "unicode", "v1", r, text,
				[2]int{5, 150}, [2]int{0, 20}, [2]int{0, 20}, false, 0.4))
			continue
		}
		c := pickSpan(rng, id, "unicode", "v1", r, [2]int{5, 300})
		if i%8 == 0 {
			for p := rng.IntN(len(r) - 400); p < len(r)-300; p++ {
				if ch := r[p]; ch > 0xFFFF || (ch >= 0x300 && ch < 0x370) || ch == 0x200D {
					l := 1 + rng.IntN(200)
					c = positionCite(id, "unicode", "v1", p, p+l, string(r[p:p+l]))
					break
				}
			}
		}
		cits = append(cits, c)
	}
	return []reqSource{{"unicode", "v1", text}}, cits
}

func runeRange(lo, hi rune) []string {
	var s []string
	for c := lo; c < hi; c++ {
		s = append(s, string(c))
	}
	return s
}

func unicodeText(rng *rand.Rand, nbytes int) string {
	cjk := runeRange(0x4E00, 0x9FA6)
	kana := append(runeRange(0x3041, 0x3097), runeRange(0x30A1, 0x30FB)...)
	emoji := append(append(runeRange(0x1F300, 0x1F5FF), runeRange(0x1F600, 0x1F650)...), runeRange(0x1F90C, 0x1F9FF)...)
	people := []string{"\U0001F44B", "\U0001F44D", "\U0001F64F", "\U0001F466", "\U0001F467", "\U0001F468", "\U0001F469", "\U0001F9D1"}
	tones := runeRange(0x1F3FB, 0x1F400)
	zwjAndFlags := []string{
		"\U0001F469\u200D\U0001F4BB", "\U0001F468\u200D\U0001F469\u200D\U0001F467",
		"\U0001F3F3\uFE0F\u200D\U0001F308", "\U0001F9D1\U0001F3FD\u200D\U0001F52C",
		"\U0001F1EF\U0001F1F5", "\U0001F1EE\U0001F1F1", "\U0001F1E9\U0001F1EA",
	}
	marks := runeRange(0x300, 0x370)
	hebrew, niqqud := runeRange(0x5D0, 0x5EB), runeRange(0x5B0, 0x5BD)
	deva := runeRange(0x915, 0x939)
	devaSigns := []string{"\u093E", "\u093F", "\u0940", "\u0941", "\u0947", "\u094B", "\u094D", "\u0902"}
	math := runeRange(0x1D400, 0x1D6A4)
	punct := []string{"\u3001", "\u3002", "\uFF0C", " ", " ", "\u3000", "\n", "\u300C", "\u300D"}
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	some := func(s []string, lo, hi int) string {
		var b strings.Builder
		for range lo + rng.IntN(hi-lo+1) {
			b.WriteString(pick(s))
		}
		return b.String()
	}
	var b strings.Builder
	for b.Len() < nbytes {
		switch x := rng.Float64(); {
		case x < 0.35:
			b.WriteString(some(cjk, 2, 8))
		case x < 0.45:
			b.WriteString(some(kana, 2, 6))
		case x < 0.52:
			b.WriteString(pick(emoji))
		case x < 0.55:
			b.WriteString(pick(people) + pick(tones)) // emoji + skin tone: 2 code points
		case x < 0.58:
			b.WriteString(pick(zwjAndFlags))
		case x < 0.70: // Latin with combining marks, NFD style
			for range 2 + rng.IntN(6) {
				b.WriteByte("aeiounscrtl"[rng.IntN(11)])
				for range rng.IntN(3) {
					b.WriteString(pick(marks))
				}
			}
		case x < 0.78:
			for range 2 + rng.IntN(5) {
				b.WriteString(pick(hebrew))
				if rng.Float64() < 0.6 {
					b.WriteString(pick(niqqud))
				}
			}
		case x < 0.86:
			for range 2 + rng.IntN(4) {
				b.WriteString(pick(deva))
				if rng.Float64() < 0.7 {
					b.WriteString(pick(devaSigns))
				}
			}
		case x < 0.90:
			b.WriteString(some(math, 1, 4))
		default:
			b.WriteString(pick(punct))
		}
		if rng.IntN(2) == 0 {
			b.WriteString(pick(punct[:6]))
		}
	}
	t := b.String()
	for len(t) > nbytes {
		_, size := utf8.DecodeLastRuneInString(t)
		t = t[:len(t)-size]
	}
	return t
}
