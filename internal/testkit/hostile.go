package testkit

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// The contract's limits, as the hostile requests fill them (the engine's
// DefaultLimits; testkit imports nothing of citecheck).
const (
	hostileBodyBytes   = 1 << 20
	hostileSources     = 16
	hostileCitations   = 256
	hostileTextBytes   = 512 << 10
	hostileQuoteBytes  = 16 << 10
	hostileContextByte = 1024
	hostileScanUnits   = 16 << 20
)

// HostileFamilies names the families of request that are dear to explain
// (diagnose) beside checking them: texts where indexes and skips do not
// help, claims that almost occur. HostileRequest builds them.
var HostileFamilies = []string{
	"alphabet2", "alphabet3", "alphabet4", "periodic", "binary",
	"context", "nearmiss", "elided", "folds16",
}

// HostileShape says how big a hostile request is. The zero value is the
// largest the contract admits: a 1 MiB body.
type HostileShape struct {
	// BodyBytes bounds the body (default and at most 1 MiB).
	BodyBytes int
	// TextBytes is the bytes of source text, over all sources (default:
	// about half the body, at most 512 KiB a source).
	TextBytes int
	// Block is the length of the block that occurs twice (default 2,000
	// bytes).
	Block int
	// Citations is at most how many citations (default and at most 256).
	Citations int
}

func (s HostileShape) norm() HostileShape {
	if s.BodyBytes <= 0 || s.BodyBytes > hostileBodyBytes {
		s.BodyBytes = hostileBodyBytes
	}
	if s.TextBytes <= 0 {
		s.TextBytes = min(hostileTextBytes, s.BodyBytes/2)
	}
	s.TextBytes = max(64, min(s.TextBytes, s.BodyBytes/2, hostileSources*hostileTextBytes))
	if s.Block <= 0 {
		s.Block = 2000
	}
	s.Block = max(8, min(s.Block, s.TextBytes/4, hostileQuoteBytes-8))
	if s.Citations <= 0 || s.Citations > hostileCitations {
		s.Citations = hostileCitations
	}
	return s
}

// HostileRequest is a request of family (one of HostileFamilies) within
// the contract's limits, the same for the same seed and shape. Every
// citation fails: each family is built so that saying why costs the most.
//
//   - alphabetN (N = 2, 3, 4): random text over N letters in which a block
//     occurs twice; 30 quote citations inside the block (ambiguous, most
//     with a claimed_start, whose unique context lies past the block's
//     ends), the rest position citations whose quote is the block plus
//     one foreign letter (at its end, or inside it).
//   - periodic: a short word repeated, with a few changed bytes; quotes
//     of the period with one byte changed.
//   - binary: random bytes over printable ASCII and two-byte code points,
//     a block twice, quotes of the block plus a foreign code point.
//   - context: a paragraph repeated with one change every few copies;
//     ambiguous anchors with claimed_start, whose shortest unique context
//     is hundreds of bytes long.
//   - nearmiss: prose; position quotes copied from it with one byte
//     changed, late.
//   - elided: a two-letter text; quotes of many short passages joined by
//     "...", the last passage absent.
//   - folds16: 16 sources of prose with curly quotes; quotes retyped in
//     ASCII (found under a fold) and fabricated ones, across all sources.
func HostileRequest(family string, seed uint64, shape HostileShape) Request {
	s := shape.norm()
	h := &hostile{c: NewCorpus(seed), s: s}
	h.c.ASCII = true
	switch family {
	case "alphabet2", "alphabet3", "alphabet4":
		h.alphabet("abcd"[:family[len(family)-1]-'0'])
	case "periodic":
		h.periodic()
	case "binary":
		h.binary()
	case "context":
		h.context()
	case "nearmiss":
		h.nearmiss()
	case "elided":
		h.elided()
	case "folds16":
		h.folds16()
	default:
		panic("testkit: no hostile family " + strconv.Quote(family))
	}
	return h.req
}

type hostile struct {
	c    *Corpus
	s    HostileShape
	req  Request
	size int // the body's bytes so far
	scan int // the UTF-16 units the quote citations scan (max_scan_units)
	// units is each source's length in UTF-16 code units.
	units map[string]int
}

func (h *hostile) source(text string) Source {
	src := NewSource("s"+strconv.Itoa(len(h.req.Sources)), "v1", text)
	h.req.Sources = append(h.req.Sources, src)
	if h.units == nil {
		h.units = map[string]int{}
	}
	h.units[src.SourceID] = utf16Len(text)
	h.size = len(h.req.Body())
	return src
}

// add appends c if the body stays within its bound, and reports whether
// it did.
func (h *hostile) add(c Citation) bool {
	c.CitationID = "c" + strconv.Itoa(len(h.req.Citations))
	n := len(c.AppendJSON(nil)) + 1
	units := 0
	if c.Selector.Type == QuoteSelector {
		units = h.units[c.SourceID]
	}
	if len(h.req.Citations) >= h.s.Citations || h.size+n > h.s.BodyBytes-64 || h.scan+units > hostileScanUnits {
		return false
	}
	h.size += n
	h.scan += units
	h.req.Citations = append(h.req.Citations, c)
	return true
}

// quoteRoom reports whether one more quote citation of src stays within
// max_scan_units.
func (h *hostile) quoteRoom(src Source) bool {
	return h.scan+h.units[src.SourceID] <= hostileScanUnits
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}

// room is the bytes of quote a citation can still have, at most max.
func (h *hostile) room(max int) int {
	return min(max, h.s.BodyBytes-64-h.size-200)
}

func (h *hostile) letters(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[h.c.Rand.IntN(len(alphabet))]
	}
	return string(b)
}

// twice returns text with the block at a copied over a second place b,
// and a, b and the block's length (cut to a code point boundary).
func (h *hostile) twice(text string, block int) (string, int, int, int) {
	half := len(text) / 2
	a := h.c.Rand.IntN(half - block)
	b := half + h.c.Rand.IntN(half-block)
	for !utf8.RuneStart(text[a]) {
		a++
	}
	for !utf8.RuneStart(text[b]) {
		b++
	}
	for !utf8.ValidString(text[a : a+block]) {
		block--
	}
	rest := text[b+block:]
	for rest != "" && !utf8.RuneStart(rest[0]) { // the copy cut a code point after it
		rest = rest[1:]
	}
	return text[:b] + text[a:a+block] + rest, a, b, block
}

func (h *hostile) alphabet(letters string) {
	text := h.letters(letters, h.s.TextBytes)
	text, a, b, block := h.twice(text, h.s.Block)
	src := h.source(text)
	h.blockCitations(src, text, a, b, block, "z")
}

// blockCitations adds, for a text in which text[a:a+block] occurs again at
// b: 30 ambiguous quote citations inside the block, then position
// citations of the block with foreign added (at its end for most, inside
// it for every fourth) as long as the body has room.
func (h *hostile) blockCitations(src Source, text string, a, b, block int, foreign string) {
	r := h.c.Rand
	blk := text[a : a+block]
	cpA := utf8.RuneCountInString(text[:a])
	n := utf8.RuneCountInString(text)
	for i := range 30 {
		l := 4 + r.IntN(max(1, min(200, block/2)))
		s := r.IntN(max(1, block-l))
		for s > 0 && !utf8.RuneStart(blk[s]) {
			s--
		}
		e := min(s+l, len(blk))
		for e < len(blk) && !utf8.RuneStart(blk[e]) {
			e++
		}
		c := QuoteCitation("", src.SourceID, src.Version, blk[s:e])
		if i%3 != 0 {
			c = c.WithClaimedStart(cpA + utf8.RuneCountInString(blk[:s]))
		}
		if !h.add(c) {
			return
		}
	}
	for i := 0; ; i++ {
		if h.room(len(blk)+len(foreign)) < len(blk)+len(foreign) {
			return
		}
		q := blk + foreign
		if i%4 == 3 {
			k := r.IntN(len(blk))
			for k < len(blk) && !utf8.RuneStart(blk[k]) {
				k++
			}
			q = blk[:k] + foreign + blk[k:]
		}
		start := r.IntN(max(1, n-len(q)))
		if !h.add(PositionCitation("", src.SourceID, src.Version, start, start+utf8.RuneCountInString(q), q)) {
			return
		}
	}
}

func (h *hostile) periodic() {
	r := h.c.Rand
	period := h.letters("abc", 3+r.IntN(6))
	n := h.s.TextBytes
	b := []byte(strings.Repeat(period, n/len(period)+1)[:n])
	for range 4 {
		b[r.IntN(n)] = 'x'
	}
	text := string(b)
	src := h.source(text)
	for i := 0; ; i++ {
		l := h.room(min(4096, n/2))
		if l < 32 {
			return
		}
		l = len(period) * max(1, l/len(period)/2+r.IntN(max(1, l/len(period)/2)))
		off := r.IntN(len(period))
		q := []byte(strings.Repeat(period, l/len(period)+2)[off : off+l])
		var c Citation
		kind := i % 3
		if kind != 0 && !h.quoteRoom(src) {
			kind = 0
		}
		switch kind {
		case 0: // a near miss: one byte changed late
			q[len(q)-1-r.IntN(min(len(q), 16))] = 'y'
			c = PositionCitation("", src.SourceID, src.Version, 0, len(q), string(q))
		case 1: // ambiguous a hundred thousand times, with a claimed_start
			c = QuoteCitation("", src.SourceID, src.Version, string(q[:min(len(q), 64)])).WithClaimedStart(r.IntN(n / 2))
		default: // a changed byte in the middle
			q[len(q)/2] = 'y'
			c = QuoteCitation("", src.SourceID, src.Version, string(q))
		}
		if !h.add(c) {
			return
		}
	}
}

func (h *hostile) binary() {
	r := h.c.Rand
	var b strings.Builder
	for b.Len() < h.s.TextBytes-2 {
		if r.IntN(8) == 0 {
			b.WriteRune(rune(0x80 + r.IntN(0x780)))
		} else {
			b.WriteByte(byte(0x20 + r.IntN(0x5f)))
		}
	}
	text, a, c, block := h.twice(b.String(), h.s.Block)
	src := h.source(text)
	h.blockCitations(src, text, a, c, block, "€")
}

func (h *hostile) context() {
	r := h.c.Rand
	para := h.c.Prose(900)
	// Short enough for max_scan_units to admit a quote citation each.
	n := max(len(para)+64, min(h.s.TextBytes, hostileScanUnits/hostileCitations))
	var b strings.Builder
	for b.Len() < n-len(para)-1 {
		p := []byte(para)
		if r.IntN(4) == 0 {
			p[r.IntN(len(p))] = '#'
		}
		b.Write(p)
		b.WriteByte('\n')
	}
	text := b.String()
	src := h.source(text)
	for {
		s := r.IntN(len(text) - 64)
		l := 8 + r.IntN(48)
		c := QuoteCitation("", src.SourceID, src.Version, text[s:s+l]).WithClaimedStart(s)
		if r.IntN(2) == 0 {
			c = c.WithPrefix(text[max(0, s-r.IntN(32)):s])
		}
		if !h.add(c) {
			return
		}
	}
}

func (h *hostile) nearmiss() {
	r := h.c.Rand
	text := h.c.Prose(h.s.TextBytes)
	src := h.source(text)
	for {
		l := min(h.room(256+r.IntN(4096)), len(text)/2)
		if l < 8 {
			return
		}
		s := r.IntN(len(text) - l)
		q := []byte(text[s : s+l])
		q[l-1-r.IntN(min(l, 64))] = '#'
		c := PositionCitation("", src.SourceID, src.Version, s+1, s+1+l, string(q))
		if !h.add(c) {
			return
		}
	}
}

func (h *hostile) elided() {
	r := h.c.Rand
	text := h.letters("ab", h.s.TextBytes)
	src := h.source(text)
	for {
		l := h.room(hostileQuoteBytes)
		if l < 32 {
			return
		}
		var b strings.Builder
		for b.Len() < l-24 {
			b.WriteString(h.letters("ab", 1+r.IntN(12)))
			b.WriteString(" ... ")
		}
		b.WriteString("zz")
		q := b.String()
		if !h.add(PositionCitation("", src.SourceID, src.Version, 0, utf8.RuneCountInString(q), q)) {
			return
		}
	}
}

func (h *hostile) folds16() {
	r := h.c.Rand
	h.c.ASCII = false
	per := h.s.TextBytes / hostileSources
	var srcs []Source
	for range hostileSources {
		srcs = append(srcs, h.source(h.c.Prose(per)))
	}
	for i := 0; ; i++ {
		src := srcs[i%len(srcs)]
		l := min(h.room(200+r.IntN(1800)), len(src.Text)/2)
		if l < 8 {
			return
		}
		s := r.IntN(len(src.Text) - l)
		for !utf8.RuneStart(src.Text[s]) {
			s++
		}
		e := min(s+l, len(src.Text))
		for e < len(src.Text) && !utf8.RuneStart(src.Text[e]) {
			e++
		}
		q := src.Text[s:e]
		// Retyped in ASCII: curly quotes and apostrophes straight.
		q = strings.NewReplacer("“", `"`, "”", `"`, "‘", "'", "’", "'").Replace(q)
		if i%2 == 1 { // and a word changed, so no fold finds it
			q = strings.Replace(q, " ", " fabricated ", 1)
		}
		cp := utf8.RuneCountInString(src.Text[:s])
		c := PositionCitation("", src.SourceID, src.Version, cp+1, cp+1+utf8.RuneCountInString(q), q)
		if !h.add(c) {
			return
		}
	}
}
