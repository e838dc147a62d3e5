package citecheck

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Folds is a set of folds: ways of reading two texts as equal that the exact
// check (spec §2.5) tells apart. A `normalized` finding names the folds
// under which a claim would hold (spec §5). The folds are a closed list, in
// this order; Folds{} is exact comparison.
type Folds uint8

// The folds, in their order.
const (
	// FoldWhitespace makes every run of Unicode White_Space (CR, LF, tab,
	// no-break and other spaces) equal to any other, and ignores leading and
	// trailing white space.
	FoldWhitespace Folds = 1 << iota
	// FoldNFC compares the Unicode canonical composition (NFC) of both sides.
	FoldNFC
	// FoldNFKC compares the compatibility composition (NFKC): fullwidth
	// forms, ligatures, superscripts and the like read as their plain forms.
	FoldNFKC
	// FoldTypography folds quotation marks and apostrophes, dashes and
	// hyphens, "…" and "...", and ligatures to their ASCII forms, and drops
	// soft hyphens and zero-width characters.
	FoldTypography
	// FoldCase compares by Unicode simple case folding.
	FoldCase

	foldCount = iota
	allFolds  = Folds(1<<foldCount - 1)
)

var foldNames = [foldCount]string{"whitespace", "nfc", "nfkc", "typography", "case"}

// Names returns the folds in the set by name, in the folds' order.
func (f Folds) Names() []string {
	names := make([]string, 0, foldCount)
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
var foldSetsInOrder = func() []Folds {
	sets := make([]Folds, 0, allFolds)
	for size := 1; size <= foldCount; size++ {
		var build func(from int, set Folds, left int)
		build = func(from int, set Folds, left int) {
			if left == 0 {
				sets = append(sets, set)
				return
			}
			for i := from; i < foldCount; i++ {
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
func fold(s string, f Folds, mapping bool) foldedText {
	w := foldInto(make([]byte, 0, len(s)), s, f, mapping)
	return foldedText{text: string(w.out), from: w.from, to: w.to}
}

// foldInto folds s under f, appending to out: fold without the copy into a
// string, for comparisons.
func foldInto(out []byte, s string, f Folds, mapping bool) *folder {
	w := &folder{folds: f, mapping: mapping, out: out}
	if mapping {
		w.from, w.to = make([]int32, 0, len(s)), make([]int32, 0, len(s))
	}
	w.fold(s)
	return w
}

// fold appends s, folded, to the output.
func (w *folder) fold(s string) {
	f := w.folds
	form, normalize := norm.NFC, f&(FoldNFC|FoldNFKC) != 0
	if f&FoldNFKC != 0 {
		form = norm.NFKC
	}
	var seg []byte
	cp := int32(0)
	for i := 0; i < len(s) && !w.diff; {
		// An ASCII character followed by another (or the end) is a
		// normalization segment of its own, unchanged by NFC and NFKC.
		if c := s[i]; c < utf8.RuneSelf && (!normalize || i+1 == len(s) || s[i+1] < utf8.RuneSelf) {
			w.ascii(c, cp)
			i, cp = i+1, cp+1
			continue
		}
		if !normalize {
			r, size := utf8.DecodeRuneInString(s[i:])
			w.rune(r, cp, cp+1)
			i, cp = i+size, cp+1
			continue
		}
		k := form.NextBoundaryInString(s[i:], true)
		n := int32(runeCount(s[i : i+k]))
		seg = form.AppendString(seg[:0], s[i:i+k])
		for j := 0; j < len(seg); {
			r, size := utf8.DecodeRune(seg[j:])
			w.rune(r, cp, cp+n)
			j += size
		}
		i, cp = i+k, cp+n
	}
}

// folder accumulates the folded text; white space is held back until a
// character that is not white space follows it, which drops it at both ends.
type folder struct {
	folds              Folds
	mapping            bool
	out                []byte
	from, to           []int32
	space              bool  // a run of white space is pending
	spaceFrom, spaceTo int32 // the pending run's code points
	// want, when not nil, is what the output should be: folding stops at
	// the first byte that differs from it (diff), for foldsEqual.
	want []byte
	diff bool
}

// ascii is rune for an ASCII character at code point cp, inline: most of
// any text is ASCII, and it needs no table.
func (w *folder) ascii(c byte, cp int32) {
	switch {
	case c == '`' && w.folds&FoldTypography != 0:
		c = '\''
	case 'a' <= c && c <= 'z' && w.folds&FoldCase != 0:
		c -= 'a' - 'A'
	case (c == ' ' || '\t' <= c && c <= '\r') && w.folds&FoldWhitespace != 0:
		w.folded(rune(c), cp, cp+1)
		return
	}
	if w.space && w.folds&FoldWhitespace != 0 {
		w.folded(rune(c), cp, cp+1)
		return
	}
	w.out = append(w.out, c)
	if w.mapping {
		w.from, w.to = append(w.from, cp), append(w.to, cp+1)
	}
	if w.want != nil && (len(w.out) > len(w.want) || w.want[len(w.out)-1] != c) {
		w.diff = true
	}
}

// rune folds one code point (after normalization) produced by the
// original's code points [from, to).
func (w *folder) rune(r rune, from, to int32) {
	if w.folds&FoldTypography != 0 {
		if rep, ok := typographic(r); ok {
			for _, r := range rep {
				w.folded(r, from, to)
			}
			return
		}
	}
	w.folded(r, from, to)
}

func (w *folder) folded(r rune, from, to int32) {
	if w.folds&FoldCase != 0 {
		r = foldCase(r)
	}
	if w.folds&FoldWhitespace != 0 {
		if isWhiteSpace(r) {
			if !w.space {
				w.space, w.spaceFrom = true, from
			}
			w.spaceTo = to
			return
		}
		if w.space {
			w.space = false
			if len(w.out) > 0 {
				w.emit(' ', w.spaceFrom, w.spaceTo)
			}
		}
	}
	w.emit(r, from, to)
}

func (w *folder) emit(r rune, from, to int32) {
	n := len(w.out)
	w.out = utf8.AppendRune(w.out, r)
	if w.mapping {
		for range len(w.out) - n {
			w.from, w.to = append(w.from, from), append(w.to, to)
		}
	}
	if w.want != nil && (len(w.out) > len(w.want) || string(w.out[n:]) != string(w.want[n:len(w.out)])) {
		w.diff = true
	}
}

func isWhiteSpace(r rune) bool {
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
	m := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		m = min(m, f)
	}
	return m
}

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
func changedBy(s string) Folds {
	var f Folds
	if !norm.NFC.IsNormalString(s) {
		f |= FoldNFC
	}
	if !norm.NFKC.IsNormalString(s) {
		f |= FoldNFKC
	}
	const perRune = FoldTypography | FoldCase | FoldWhitespace
	prevSpace := true // white space at the start is dropped
	for i := 0; i < len(s) && f&perRune != perRune; {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
			if _, ok := typographic(r); ok {
				f |= FoldTypography
			}
		} else if r == '`' {
			f |= FoldTypography
		}
		if foldCase(r) != r {
			f |= FoldCase
		}
		if space := isWhiteSpace(r); space && (r != ' ' || prevSpace) {
			f |= FoldWhitespace // a run longer than one space, another space, or a leading one
		} else {
			prevSpace = space
		}
		i += size
	}
	if prevSpace && s != "" && f&perRune != perRune {
		f |= FoldWhitespace // trailing white space
	}
	return f
}

// foldsEqual reports whether a and b read alike under f. Linear in both.
// b is folded against a's folding and stops at the first difference.
func foldsEqual(a, b string, f Folds) bool {
	fa := foldInto(make([]byte, 0, len(a)), a, f, false).out
	w := &folder{folds: f, out: make([]byte, 0, len(fa)), want: fa}
	w.fold(b)
	return !w.diff && len(w.out) == len(fa)
}

// minimalFolds returns the first fold set in foldSetsInOrder under which
// source and claim read alike, and false when none does. A set made only
// of folds that change neither side is skipped without folding: its
// pipeline leaves both sides as they are, and they differ. At most 31
// comparisons, each linear in both.
func minimalFolds(source, claim string) (Folds, bool) {
	active := changedBy(source) | changedBy(claim) // the folds that change one side or the other
	for _, set := range foldSetsInOrder {
		if set&active != 0 && foldsEqual(source, claim, set) {
			return set, true
		}
	}
	return 0, false
}
