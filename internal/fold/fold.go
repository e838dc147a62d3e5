package fold

import (
	"github.com/citecheck/citecheck/internal/utext"
	"slices"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"
)

// Set is a set of folds: ways of reading two texts as equal that the exact
// check (spec §2.5) tells apart. A `normalized` finding names the folds
// under which a claim would hold (spec §5). The folds are a closed list, in
// this order; Set{} is exact comparison.
type Set uint8

// The folds, in their order.
const (
	// Whitespace makes every run of Unicode White_Space (CR, LF, tab,
	// no-break and other spaces) equal to any other, and ignores leading and
	// trailing white space.
	Whitespace Set = 1 << iota
	// NFC compares the Unicode canonical composition (NFC) of both sides.
	NFC
	// NFKC compares the compatibility composition (NFKC): fullwidth
	// forms, ligatures, superscripts and the like read as their plain forms.
	NFKC
	// Typography folds quotation marks and apostrophes, dashes and
	// hyphens, "…" and "...", and ligatures to their ASCII forms, and drops
	// soft hyphens and zero-width characters.
	Typography
	// Case compares by Unicode simple case folding.
	Case

	Count = iota
	All   = Set(1<<Count - 1)
)

var foldNames = [Count]string{"whitespace", "nfc", "nfkc", "typography", "case"}

// Names returns the folds in the set by name, in the folds' order.
func (f Set) Names() []string {
	names := make([]string, 0, Count)
	for i, name := range foldNames {
		if f&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	return names
}

// foldSetsInOrder lists every non-empty fold set by size, then in the folds'
// order (lexicographically by the order of their members): the first set
// of this list under which a claim holds is minimal (every smaller set came
// before and failed), and the first of the minimal sets in that order.
var foldSetsInOrder = func() []Set {
	sets := make([]Set, 0, All)
	for size := 1; size <= Count; size++ {
		var build func(from int, set Set, left int)
		build = func(from int, set Set, left int) {
			if left == 0 {
				sets = append(sets, set)
				return
			}
			for i := from; i < Count; i++ {
				build(i+1, set|1<<i, left-1)
			}
		}
		build(0, 0, size)
	}
	return sets
}()

// foldedText is a text read under a fold set, with a map back to the code
// points of the original: byte i of text was produced by the original's code
// points [from[i], to[i]): several when a normalization segment composes
// them, or a run of white space; code points read as nothing (soft
// hyphens, white space at either end) belong to no byte.
type foldedText struct {
	text     string
	from, to []int32
}

// fold returns s read under folds f. The pipeline per code point is:
// normalization (NFKC if asked, else NFC if asked) by segments, then
// typography, then case, then white space. Linear in s; with mapping, the
// map costs 8 bytes per byte of the folded text.
func fold(s string, f Set, mapping bool) foldedText {
	w := Folder{folds: f, mapping: mapping, out: make([]byte, 0, len(s))}
	if mapping {
		w.from, w.to = make([]int32, 0, len(s)), make([]int32, 0, len(s))
	}
	w.Fold(s)
	return foldedText{text: string(w.out), from: w.from, to: w.to}
}

// Fold appends s, folded, to the output.
func (w *Folder) Fold(s string) {
	form, normalize := w.form()
	cp := w.cp
	for i := 0; i < len(s); {
		// Every step of this loop starts a normalization segment; a
		// checkpoint waits for the end of a run of white space, whose code
		// points only the folding with the map keeps.
		if w.checkpoints != nil && i-w.checkedAt >= checkpointEvery && !w.space {
			w.checkedAt = i
			st := w.foldState
			st.cp, st.prior = cp, st.prior || len(w.out) > 0
			*w.checkpoints = append(*w.checkpoints, foldCheckpoint{in: i, out: len(w.out), foldState: st})
		}
		// An ASCII character followed by another (or the end) is a
		// normalization segment of its own, unchanged by NFC and NFKC:
		// all of a run of ASCII but its last character, and that one too
		// at the end of s or when nothing normalizes.
		j, end := i, min(len(s), i+asciiChunk)
		for j+8 <= end && utext.Load64(s, j)&0x8080808080808080 == 0 {
			j += 8
		}
		for j < end && s[j] < utf8.RuneSelf {
			j++
		}
		if normalize && j > i && j < len(s) && s[j] >= utf8.RuneSelf && !w.codePoint(s[j:], form, normalize).before {
			j-- // the next character may combine with it: a segment of both
		}
		if j > i {
			w.ascii(s[i:j], cp)
			cp += int32(j - i)
			i = j
			continue
		}
		// Plain code points (see plainBlocks) are what they read as,
		// each folded alone: a run of them is copied.
		if j, n := plainCodePoints(s, i); n > 0 && !w.mapping {
			w.endSpace()
			w.out = append(w.out, s[i:j]...)
			i, cp = j, cp+int32(n)
			continue
		}
		// Without normalization, or a character normalization leaves as it
		// is and nothing next to it combines with (inert: most of the
		// typographer's and of CJK), a code point is folded alone.
		c := w.codePoint(s[i:], form, normalize)
		if c.inert {
			for _, p := range c.out[:c.n] {
				w.place(p.r, p.space, cp, cp+1)
			}
			i, cp = i+int(c.size), cp+1
			continue
		}
		// The segment ends where the next code point starts one (ASCII,
		// the end, or BoundaryBefore: there NextBoundary always ends it,
		// asking the tables again), else where NextBoundary says.
		k := int(c.size)
		if e := i + k; e < len(s) && s[e] >= utf8.RuneSelf && !w.codePoint(s[e:], form, normalize).before {
			k = form.NextBoundaryInString(s[i:], true)
		}
		seg := w.segment(s[i:i+k], form)
		for _, p := range seg.out {
			w.place(p.r, p.space, cp, cp+seg.n)
		}
		n := seg.n
		i, cp = i+k, cp+n
	}
	w.cp = cp
}

// hangul reports whether s starts with a Hangul syllable or jamo: they
// compose by rule, not by the tables the properties come from, so they
// always take the normalization by segments.
func hangul(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return 0x1100 <= r && r <= 0x11FF || 0xA960 <= r && r <= 0xA97F || 0xAC00 <= r && r <= 0xD7FF
}

// form returns the normalization the folds ask for, and false for none.
func (w *Folder) form() (norm.Form, bool) {
	if w.folds&NFKC != 0 {
		return norm.NFKC, true
	}
	return norm.NFC, w.folds&NFC != 0
}

// Folder accumulates the folded text; white space is held back until a
// character that is not white space follows it, which drops it at both ends.
type Folder struct {
	folds    Set
	mapping  bool
	out      []byte
	from, to []int32
	foldState
	// checkpoints, when not nil, gets where folding stands every
	// checkpointEvery bytes of the input or so, for a folding with the map
	// to restart there (see Source.Span).
	checkpoints *[]foldCheckpoint
	checkedAt   int
	iter        *norm.Iter // normalizes the segments that change, made on first use
	// Once lookedUp reaches foldSeenAfter, seen caches codePoint's
	// answers by the code point's low bits, and segments segment's, up to
	// foldSeenSize of them.
	lookedUp int
	seen     *[foldSeenSize]codePointFolding
	segments map[string]segmentFolding
	segOut   []placedRune // the last segment's folding, when not cached
	segStore []placedRune // the cached segments' foldings
}

// codePointFolding is what fold needs to know of a code point outside
// ASCII, which depends on the code point alone: its bytes, whether a
// normalization segment starts there (BoundaryBefore) and whether it is
// folded alone (inert, see fold); for one folded alone, what typography
// and case make of it, out[:n].
type codePointFolding struct {
	r      rune // the code point (in folder.seen, a slot of size 0 is empty)
	size   uint8
	before bool
	inert  bool
	n      uint8
	out    [3]placedRune
}

// plainCodePoints returns the end of the run of plain code points (see
// plainBlocks) that starts at byte i of s, and how many there are. It
// decodes only what UTF-8 allows of code points from U+0800 (no plain
// block lies below), and stops at anything else.
func plainCodePoints(s string, i int) (end, n int) {
	for i+2 < len(s) {
		c := s[i]
		var r rune
		var size int
		switch {
		case c >= 0xE0 && c < 0xF0:
			if s[i+1]&0xC0 != 0x80 || s[i+2]&0xC0 != 0x80 {
				return i, n
			}
			r, size = rune(c&0x0F)<<12|rune(s[i+1]&0x3F)<<6|rune(s[i+2]&0x3F), 3
			if r < 0x800 {
				return i, n
			}
		case c >= 0xF0 && c < 0xF5 && i+3 < len(s):
			if s[i+1]&0xC0 != 0x80 || s[i+2]&0xC0 != 0x80 || s[i+3]&0xC0 != 0x80 {
				return i, n
			}
			r, size = rune(c&0x07)<<18|rune(s[i+1]&0x3F)<<12|rune(s[i+2]&0x3F)<<6|rune(s[i+3]&0x3F), 4
			if r < 0x10000 || r > unicode.MaxRune {
				return i, n
			}
		default:
			return i, n
		}
		if !plainBlocks.has(r) {
			return i, n
		}
		i, n = i+size, n+1
	}
	return i, n
}

// blockSet is a set of the blocks of 256 code points (U+bb00 to U+bbFF is
// block 0xbb), a bit each.
type blockSet [(unicode.MaxRune + 1) >> 8 / 64]uint64

// add puts block b in the set.
func (t *blockSet) add(b rune) { t[b/64] |= 1 << (b % 64) }

// has reports whether r is a code point of a block in the set.
func (t *blockSet) has(r rune) bool {
	b := uint32(r) >> 8 // a negative r is past every block
	return b/64 < uint32(len(t)) && t[b/64]&(1<<(b%64)) != 0
}

// plainBlocks marks the blocks of 256 code points in which every code
// point is plain: no ASCII,
// a normalization segment of its own that NFC and NFKC leave as it is,
// nothing typography or case folding changes, not white space. Most of
// CJK, of other scripts without case, and of the astral planes. Computed
// from the Unicode tables by TestPlainBlocksAreThoseOfTheTables, which
// prints this table anew when they change.
var plainBlocks = blockSet{
	0xfff00be000340000, 0xffffffffffffffff, 0x0000003fffffffff, 0x01ffffff00000000,
	0xffffffff48000b41, 0xffff33ffffffffff, 0xefffffffffffffff, 0xf7f9bce8ff09ffff,
	0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xf8ffffffffffffff,
	0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff,
	0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff,
	0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff,
	0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff,
	0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff,
	0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff,
	0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff,
	0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff,
	0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff,
	0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff,
	0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff,
	0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff,
	0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff,
	0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff,
}

// foldSeenSize is how many code points a folder's cache holds (32 bytes
// each: 128 KiB), and how many segments; foldSeenAfter how many code
// points a folder looks up before it makes the caches. A code point
// outside ASCII and the plain blocks, or a segment, costs hundreds of
// instructions to look up in the normalization tables and fold; most text
// repeats a few thousand of them, whose answers the caches keep. A claim
// asks about few: made for each, the caches cost more than they save
// (explaining 256 retyped 8 KiB quotes took half as long again).
const (
	foldSeenSize  = 1 << 12
	foldSeenAfter = 1 << 10
)

// codePoint returns what fold needs to know of the code point s starts
// with (see codePointFolding).
func (w *Folder) codePoint(s string, form norm.Form, normalize bool) codePointFolding {
	r, size := utf8.DecodeRuneInString(s)
	if plainBlocks.has(r) {
		return codePointFolding{r: r, size: uint8(size), before: true, inert: true, n: 1, out: [3]placedRune{{r: r}}}
	}
	if w.seen == nil {
		if w.lookedUp++; w.lookedUp == foldSeenAfter {
			w.seen, w.segments = new([foldSeenSize]codePointFolding), make(map[string]segmentFolding)
		}
	}
	var slot *codePointFolding
	if w.seen != nil {
		if slot = &w.seen[r%foldSeenSize]; slot.r == r && slot.size != 0 {
			return *slot
		}
	}
	c := codePointFolding{r: r, size: uint8(size), before: true, inert: true}
	if normalize {
		p := form.PropertiesString(s[:size])
		c.before, c.inert = p.BoundaryBefore(), p.BoundaryAfter() && !hangul(s)
	}
	c.n = uint8(w.readAs(r, &c.out))
	if slot != nil {
		*slot = c
	}
	return c
}

// readAs writes what typography (when asked) and then case folding make
// of r to out, each marked for the white space fold, and returns how
// many code points that is.
func (w *Folder) readAs(r rune, out *[3]placedRune) int {
	var rs [1]rune
	rep := rs[:]
	if t, ok := typographic(r); ok && w.folds&Typography != 0 {
		rep = []rune(t)
	} else {
		rs[0] = r
	}
	for k, r := range rep {
		if w.folds&Case != 0 {
			r = foldCase(r)
		}
		out[k] = placedRune{r, w.folds&Whitespace != 0 && IsWhiteSpace(r)}
	}
	return len(rep)
}

// foldState is where a folding stands: what folding on from there needs.
type foldState struct {
	cp                 int32 // code points of the original folded so far
	space              bool  // a run of white space is pending
	spaceFrom, spaceTo int32 // the pending run's code points
	prior              bool  // output was written before this folder's: white space is not leading
}

// foldCheckpoint is where folding stood before byte in of the input, with
// out bytes written.
type foldCheckpoint struct {
	in, out int
	foldState
}

// checkpointEvery is about how many bytes of input lie between
// checkpoints: a restart folds that many bytes at most before the span
// it is for (and a piece after it). A checkpoint costs 40 bytes, a sixth
// of a byte per byte of input; the folding with the map that a restart
// does costs several times the folding without.
const checkpointEvery = 256

// asciiChunk is how much ASCII fold folds at a time.
const asciiChunk = 256

// asciiFolded returns what each fold set makes of each ASCII character:
// asciiFolded()[f][c] is c read under f, white space read as ' ' under
// the white space fold. (A row of 256, so that indexing it by a byte needs
// no bounds check.) Most of any text is ASCII, and a table lookup a byte
// folds it at memory speed. Built on first use: at start-up it would cost
// every run of the command (a sixth of the instructions of a small check
// run's), and only explaining folds.
var asciiFolded = sync.OnceValue(func() (t *[All + 1][256]byte) {
	t = new([All + 1][256]byte)
	for f := range t {
		for c := range utf8.RuneSelf {
			r := rune(c)
			if Set(f)&Typography != 0 && r == '`' {
				r = '\''
			}
			if Set(f)&Case != 0 {
				r = foldCase(r)
			}
			if Set(f)&Whitespace != 0 && IsWhiteSpace(r) {
				r = ' '
			}
			t[f][c] = byte(r)
		}
	}
	return t
})

// ascii folds run, ASCII characters that are each a normalization segment
// of their own, the first at code point cp. Most of any text is ASCII:
// this is the loop folding runs at.
func (w *Folder) ascii(run string, cp int32) {
	if run == "" {
		return
	}
	t := &asciiFolded()[w.folds]
	if w.mapping {
		w.asciiMapped(run, cp, t)
		return
	}
	// On locals, which stay in registers (the fields of w would be loaded
	// and stored at every byte), into room made once for the run and a
	// pending space.
	out := slices.Grow(w.out, len(run)+1)
	n, dst := len(out), out[:cap(out)]
	if w.folds&Whitespace == 0 {
		for k := 0; k < len(run); k++ {
			dst[n+k] = t[run[k]]
		}
		w.out = dst[:n+len(run)]
		return
	}
	// Without a branch on the byte: white space in prose comes too
	// irregularly for a branch to be predicted. Every byte is written,
	// and kept (n moves past it) unless it is a space after a space. A
	// pending space is written first and leading white space is
	// collapsed into a space that is never kept; a space the run ends
	// with goes back to pending, for what follows to decide.
	var sp int // the last byte written is a space, or white space here is leading
	if w.space || n == 0 && !w.prior {
		sp = 1
		if n > 0 || w.prior {
			dst[n] = ' '
			n++
		}
	}
	for k := 0; k < len(run); k++ {
		c := t[run[k]]
		dst[n] = c
		var isSpace int
		if c == ' ' {
			isSpace = 1
		}
		n += 1 - isSpace&sp
		sp = isSpace
	}
	if w.space = sp == 1; w.space && n > 0 {
		n-- // the space written last (or, for a run of white space, first)
	}
	w.out = dst[:n]
}

// asciiMapped is ascii with the map back to code points.
func (w *Folder) asciiMapped(run string, cp int32, t *[256]byte) {
	out := slices.Grow(w.out, len(run)+1)
	from, to := slices.Grow(w.from, len(run)+1), slices.Grow(w.to, len(run)+1)
	n, dst := len(out), out[:cap(out)]
	from, to = from[:cap(from)], to[:cap(to)]
	space, spaceFrom, spaceTo := w.space, w.spaceFrom, w.spaceTo
	ws := w.folds&Whitespace != 0
	for k := 0; k < len(run); k++ {
		c, at := t[run[k]], cp+int32(k)
		if c == ' ' && ws {
			if !space {
				space, spaceFrom = true, at
			}
			spaceTo = at + 1
			continue
		}
		if space {
			space = false
			if n > 0 || w.prior {
				dst[n], from[n], to[n] = ' ', spaceFrom, spaceTo
				n++
			}
		}
		dst[n], from[n], to[n] = c, at, at+1
		n++
	}
	w.out, w.from, w.to = dst[:n], from[:n], to[:n]
	w.space, w.spaceFrom, w.spaceTo = space, spaceFrom, spaceTo
}

// segmentFolding is what fold makes of a normalization segment: its code
// points, n, and what it reads as, folded but for white space.
type segmentFolding struct {
	n   int32
	out []placedRune
}

// placedRune is a code point of a folding, and whether the white space
// fold reads it as white space.
type placedRune struct {
	r     rune
	space bool
}

// segment returns what w makes of seg, a normalization segment: from its
// cache (folder.segments) when it folded it before.
func (w *Folder) segment(seg string, form norm.Form) segmentFolding {
	if f, ok := w.segments[seg]; ok {
		return f
	}
	// By an Iter, kept for the next segment: AppendString allocates its
	// reorder buffer (half a KiB) at each call, which on text of
	// combining marks cost more than the rest of the folding.
	if w.iter == nil {
		w.iter = new(norm.Iter)
	}
	f := segmentFolding{n: int32(utext.RuneCount(seg)), out: w.segOut[:0]}
	w.iter.InitString(form, seg)
	for !w.iter.Done() {
		for _, r := range string(w.iter.Next()) {
			var out [3]placedRune
			f.out = append(f.out, out[:w.readAs(r, &out)]...)
		}
	}
	w.segOut = f.out
	if w.segments != nil && len(w.segments) < foldSeenSize {
		// Kept in one growing store: a text of many segments (letters
		// with marks in every combination) would cost an allocation each.
		w.segStore = append(w.segStore, f.out...)
		f.out = w.segStore[len(w.segStore)-len(f.out):]
		w.segments[seg] = f
	}
	return f
}

// place writes r, folded but for white space, produced by the original's
// code points [from, to): white space (space, under the white space
// fold) is held back until something else follows it.
func (w *Folder) place(r rune, space bool, from, to int32) {
	if w.folds&Whitespace != 0 {
		if space {
			if !w.space {
				w.space, w.spaceFrom = true, from
			}
			w.spaceTo = to
			return
		}
		w.endSpace()
	}
	w.emit(r, from, to)
}

// endSpace writes the pending run of white space as a space, unless it
// is leading: what is written next is not white space.
func (w *Folder) endSpace() {
	if w.space {
		w.space = false
		if len(w.out) > 0 || w.prior {
			w.emit(' ', w.spaceFrom, w.spaceTo)
		}
	}
}

func (w *Folder) emit(r rune, from, to int32) {
	n := len(w.out)
	w.out = utf8.AppendRune(w.out, r)
	if w.mapping {
		for range len(w.out) - n {
			w.from, w.to = append(w.from, from), append(w.to, to)
		}
	}
}

func IsWhiteSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || '\t' <= r && r <= '\r'
	}
	return unicode.Is(unicode.White_Space, r)
}

// foldCase returns the smallest code point of r's simple case folding
// orbit, so two code points fold alike exactly when simple case folding
// makes them equal.
func foldCase(r rune) rune {
	if r < utf8.RuneSelf {
		if 'a' <= r && r <= 'z' {
			return r - 'a' + 'A'
		}
		return r
	}
	if !casedBlocks().has(r) {
		return r // most of the text of scripts without case: CJK, Indic, emoji
	}
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		m = min(m, f)
	}
	return m
}

// casedBlocks marks the blocks of 256 code points that hold a code point
// with a case mapping (in unicode.CaseRanges): simple case folding leaves
// every other code point as it is (TestCasedBlocksHoldEveryFold), and
// asking unicode.SimpleFold costs two binary searches. Built on first use,
// as asciiFolded.
var casedBlocks = sync.OnceValue(func() *blockSet {
	var t blockSet
	for _, cr := range unicode.CaseRanges {
		for b := cr.Lo >> 8; b <= cr.Hi>>8; b++ {
			t.add(rune(b))
		}
	}
	return &t
})

// typographic returns what FoldTypography reads r as, and false when it
// leaves r alone: the typographer's characters that people and models type
// in ASCII, the ligatures PDF text extraction leaves, and the invisible
// characters (soft hyphen, zero-width space and joiners, word joiner, BOM)
// that are read as nothing.
func typographic(r rune) (string, bool) {
	switch r {
	case '\u2018', '\u2019', '\u201A', '\u201B', '\u2032', '\u02BC', '`', '\u00B4':
		return "'", true
	case '\u201C', '\u201D', '\u201E', '\u201F', '\u2033', '\u00AB', '\u00BB':
		return `"`, true
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212', '\u2043':
		return "-", true
	case '\u2026':
		return "...", true
	case '\uFB00':
		return "ff", true
	case '\uFB01':
		return "fi", true
	case '\uFB02':
		return "fl", true
	case '\uFB03':
		return "ffi", true
	case '\uFB04':
		return "ffl", true
	case '\uFB05', '\uFB06':
		return "st", true
	case '\u00AD', '\u200B', '\u200C', '\u200D', '\u2060', '\uFEFF':
		return "", true
	}
	return "", false
}

// changedBy returns the folds that would change s, each found without
// folding: one pass over s, and the normalization quick checks, which are
// O(1) a byte on ASCII.
func changedBy(s string) Set {
	var f Set
	if !norm.NFC.IsNormalString(s) {
		f |= NFC
	}
	if !norm.NFKC.IsNormalString(s) {
		f |= NFKC
	}
	const perRune = Typography | Case | Whitespace
	prevSpace := true // white space at the start is dropped
	for i := 0; i < len(s) && f&perRune != perRune; {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
			if _, ok := typographic(r); ok {
				f |= Typography
			}
		} else if r == '`' {
			f |= Typography
		}
		if foldCase(r) != r {
			f |= Case
		}
		if space := IsWhiteSpace(r); space && (r != ' ' || prevSpace) {
			f |= Whitespace // a run longer than one space, another space, or a leading one
		} else {
			prevSpace = space
		}
		i += size
	}
	if prevSpace && s != "" && f&perRune != perRune {
		f |= Whitespace // trailing white space
	}
	return f
}

// foldsEqual reports whether a and b read alike under f. Each side is
// folded a piece at a time, the one whose folding is shorter first, and
// the foldings compared as they grow: a comparison that fails stops about
// a piece after the first difference. Linear in both.
func foldsEqual(a, b string, f Set) bool {
	wa, wb := &Folder{folds: f}, &Folder{folds: f}
	ia, ib, same := 0, 0, 0 // same: how much of both foldings is known equal
	for {
		switch {
		case ia < len(a) && (len(wa.out) <= len(wb.out) || ib == len(b)):
			ia = wa.Piece(a, ia)
		case ib < len(b):
			ib = wb.Piece(b, ib)
		default:
			return len(wa.out) == len(wb.out) && string(wa.out[same:]) == string(wb.out[same:])
		}
		n := min(len(wa.out), len(wb.out))
		if string(wa.out[same:n]) != string(wb.out[same:n]) {
			return false
		}
		same = n
		if same >= foldPieceBytes {
			// What is known equal is dropped, so that the buffers stay a
			// piece or two long: output is not leading from here on.
			wa.out = wa.out[:copy(wa.out, wa.out[same:])]
			wb.out = wb.out[:copy(wb.out, wb.out[same:])]
			wa.prior, wb.prior, same = true, true, 0
		}
	}
}

// Piece folds s from byte i on, about foldPieceBytes of it, and
// returns where it stopped: where folding s in pieces gives what folding
// it whole does, before an ASCII character that follows another, or
// before a character that starts a normalization segment and combines
// with nothing before it, or at the end.
func (w *Folder) Piece(s string, i int) int {
	form, normalize := w.form()
	k := min(len(s), i+foldPieceBytes)
	for ; k < len(s); k++ {
		if s[k] < utf8.RuneSelf && s[k-1] < utf8.RuneSelf ||
			utf8.RuneStart(s[k]) && (!normalize || form.PropertiesString(s[k:]).BoundaryBefore() && !hangul(s[k:])) {
			break
		}
	}
	w.Fold(s[i:k])
	return k
}

// foldPieceBytes is about how much foldPiece folds at a time.
const foldPieceBytes = 256

// Minimal returns the first fold set in foldSetsInOrder under which
// source and claim read alike, and false when none does. When both cut
// into as many pieces (see differingPieces), a set is decided by the
// pieces that differ, folded alone, and only when their foldings leave it
// open (one a prefix of the other) by comparing source and claim whole.
// Otherwise a set made only of folds that change neither side is skipped
// without folding (its pipeline leaves both sides as they are, and they
// differ) and the others are compared whole. At most 31 comparisons, each
// linear in both.
func Minimal(source, claim string) (Set, bool) {
	return MinimalEach([]string{source}, []string{claim})
}

// MinimalEach returns the first fold set in foldSetsInOrder under which
// every sources[i] reads as claims[i], each pair read apart from the
// others, and false when none does: the folds of an elided claim, whose
// passages are compared each with its own stretch of the source. Each
// pair is decided as Minimal decides one, and a set is dropped at the
// first pair it fails. sources and claims have the same length. At most
// 31 comparisons of each pair, each linear in both.
func MinimalEach(sources, claims []string) (Set, bool) {
	pairs := make([]pairReading, len(sources))
	for i := range pairs {
		p := &pairReading{source: sources[i], claim: claims[i]}
		p.pieces, p.aligned = differingPieces(p.source, p.claim)
		if !p.aligned {
			p.active = changedBy(p.source) | changedBy(p.claim) // the folds that change one side or the other
		}
		pairs[i] = *p
	}
	var scratch [2][]byte
	for _, set := range foldSetsInOrder {
		alike := true
		for i := range pairs {
			if alike = pairs[i].alike(set, &scratch); !alike {
				break
			}
		}
		if alike {
			return set, true
		}
	}
	return 0, false
}

// pairReading is what Minimal learns of a source and a claim before it
// tries the fold sets: the pieces that differ when both cut alike
// (aligned), else the folds that change either side (active).
type pairReading struct {
	source, claim string
	pieces        [][2]string
	aligned       bool
	active        Set
}

// alike reports whether the pair reads alike under set.
func (p *pairReading) alike(set Set, scratch *[2][]byte) bool {
	if p.aligned {
		switch piecesRead(p.pieces, set, scratch) {
		case readAlike:
			return true
		case readApart:
			return false
		}
	} else if set&p.active == 0 {
		return false
	}
	return foldsEqual(p.source, p.claim, set)
}

// Equal reports whether a and b read alike under f. Linear in both; a
// comparison that fails stops about a piece after the first difference.
func Equal(a, b string, f Set) bool { return foldsEqual(a, b, f) }

// differingPieces cuts a and b at their word cuts, between the first two
// ASCII letters or digits of every word, and returns the pairs of pieces
// that differ, in order, and false when a and b have not as many cuts.
// A word cut lies between two ASCII characters that are not white space,
// so every fold reads a text cut there as the concatenation of its pieces
// read alone: a normalization segment ends there, no white space is
// pending, and nothing after it is leading white space. Most retypings
// (quotation marks, dashes, white space, case) leave the words' starts
// where they were, so the pieces that differ are short. Linear in both:
// where both go on alike, a word-wide comparison skips to the last cut.
func differingPieces(a, b string) ([][2]string, bool) {
	var pieces [][2]string
	ia, ib := 0, 0 // at a cut of each, or their starts
	for {
		// A cut is decided by the two bytes before it and the one after
		// (the byte before ia and ib is a letter or digit on both sides),
		// so where both go on alike their cuts are alike.
		l := utext.CommonPrefixLen(a[ia:], b[ib:])
		if k := lastWordCut(a, ia, ia+l); k > ia {
			ia, ib = k, ib+k-ia
		}
		ka, kb := nextWordCut(a, ia), nextWordCut(b, ib)
		if (ka == len(a)) != (kb == len(b)) {
			return nil, false
		}
		if a[ia:ka] != b[ib:kb] {
			pieces = append(pieces, [2]string{a[ia:ka], b[ib:kb]})
		}
		if ka == len(a) {
			return pieces, true
		}
		ia, ib = ka, kb
	}
}

// wordCut reports whether k is a word cut of s.
func wordCut(s string, k int) bool {
	return 0 < k && k < len(s) && asciiAlnum[s[k]] && asciiAlnum[s[k-1]] && (k < 2 || !asciiAlnum[s[k-2]])
}

// nextWordCut returns the first word cut of s after byte i, or len(s).
func nextWordCut(s string, i int) int {
	for k := i + 1; k < len(s); k++ {
		if wordCut(s, k) {
			return k
		}
	}
	return len(s)
}

// lastWordCut returns the last word cut of s in (from, to), or from.
func lastWordCut(s string, from, to int) int {
	for k := to - 1; k > from; k-- {
		if wordCut(s, k) {
			return k
		}
	}
	return from
}

var asciiAlnum = func() (t [256]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return t
}()

// piecesReading is what the pieces that differ say about a fold set.
type piecesReading uint8

const (
	readAlike piecesReading = iota // every pair reads alike: so do the texts
	readApart                      // the first pair that does not read alike differs inside both: so do the texts
	readOpen                       // one of that pair's readings is a prefix of the other's: compare the texts
)

// piecesRead folds each pair of differing pieces under f until one pair
// does not read alike. The texts agree up to that pair (their pieces
// before it are alike or read alike), so where the pair's readings differ
// inside both, the texts' readings differ.
// The pieces are folded into scratch's buffers, kept from call to call.
func piecesRead(pieces [][2]string, f Set, scratch *[2][]byte) piecesReading {
	for _, p := range pieces {
		scratch[0], scratch[1] = foldAppend(scratch[0][:0], p[0], f), foldAppend(scratch[1][:0], p[1], f)
		x, y := scratch[0], scratch[1]
		if string(x) == string(y) {
			continue
		}
		if n := min(len(x), len(y)); string(x[:n]) == string(y[:n]) {
			return readOpen
		}
		return readApart
	}
	return readAlike
}

// Done returns the folded text, w's buffer itself rather than a copy of it
// (which would double the memory and time of folding a long text): w must
// not be written to again.
func (w *Folder) Done() string { return unsafe.String(unsafe.SliceData(w.out), len(w.out)) }

// foldAppend appends s read under f to out: fold without the copy into a
// string, for comparisons.
func foldAppend(out []byte, s string, f Set) []byte {
	w := Folder{folds: f, out: out}
	w.Fold(s)
	return w.out
}
