package report

// The table of wide code points comes from golang.org/x/text/width; run
// `go generate ./report` when Unicode moves on.
//
//go:generate sh -c "go run ./internal/genwidth > width_table.go"

import (
	"sort"
	"unicode"
)

// Width returns how many terminal columns s takes, the way terminals draw
// it: East Asian Wide and Fullwidth characters (CJK, most emoji) take two,
// combining marks, zero-width joiners and variation selectors none, and an
// emoji sequence (ZWJ family, skin tone, flag, emoji presentation) the two
// columns of one emoji. The caret under a report's excerpt is placed by
// this count, so that it lands under the character it marks. Control
// characters count one; reports never print them raw (see glyph).
func Width(s string) int {
	var st widthState
	w := 0
	for _, r := range s {
		cw, _ := st.next(r)
		w += cw
	}
	return w
}

// widthState carries what the width of the next code point depends on: the
// cluster it may join. A grapheme cluster library (rivo/uniseg) does this
// in full, but the few rules below cover what caret placement needs
// (combining marks, ZWJ sequences, skin tones, emoji presentation, flags)
// with the standard library and one generated table.
type widthState struct {
	base     rune // the last code point that started a cluster
	baseW    int  // the columns of its cluster so far
	afterZWJ bool // the previous code point was U+200D
	riOpen   bool // base is a regional indicator not yet paired
}

// next returns the columns code point r adds after what came before, and
// whether r joins the cluster before it (a caret pointing at r points at
// that whole cluster).
func (st *widthState) next(r rune) (w int, joins bool) {
	afterZWJ := st.afterZWJ
	st.afterZWJ = r == 0x200D
	switch {
	case r == 0xFE0F: // emoji presentation: a text-style symbol drawn as emoji
		if st.baseW == 1 && st.base >= 0x203C {
			st.baseW = 2
			return 1, true
		}
		return 0, true
	case isZeroWidth(r):
		return 0, true
	case afterZWJ && st.baseW == 2: // joined into the emoji before
		return 0, true
	case r >= 0x1F3FB && r <= 0x1F3FF && st.baseW == 2: // skin tone on an emoji
		return 0, true
	case r >= 0x1F1E6 && r <= 0x1F1FF: // regional indicators pair into a flag
		if st.riOpen {
			st.riOpen, st.baseW = false, 2
			return 1, true
		}
		st.base, st.baseW, st.riOpen = r, 1, true
		return 1, false
	}
	w = 1
	if isWide(r) {
		w = 2
	}
	st.base, st.baseW, st.riOpen = r, w, false
	return w, false
}

// isZeroWidth reports whether r draws on the character before it or not at
// all: nonspacing and enclosing marks (which include the variation
// selectors), format characters (ZWJ, tags), and the Hangul vowel and
// final consonant jamo that join a leading consonant.
func isZeroWidth(r rune) bool {
	if r < 0x0300 {
		return r == 0x00AD // soft hyphen, a format character
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) ||
		(r >= 0x1160 && r <= 0x11FF) || (r >= 0xD7B0 && r <= 0xD7FF)
}

// isWide reports whether East Asian Width calls r Wide or Fullwidth.
func isWide(r rune) bool {
	if r < wideRanges[0][0] {
		return false
	}
	i := sort.Search(len(wideRanges), func(i int) bool { return wideRanges[i][1] >= r })
	return i < len(wideRanges) && wideRanges[i][0] <= r
}

// glyph is how a report prints code point r: itself, or, when drawing it
// raw would hide it or break the one-line excerpt, a visible stand-in of w
// columns. Newline, carriage return and tab get the symbols people know
// (⏎ ␍ ⇥), other C0 controls their Control Pictures (␀…␟, ␡); C1 controls,
// line and paragraph separators, and invisible or reordering format
// characters (zero-width space, soft hyphen, BOM, bidi controls) are
// spelled <U+XXXX>. ZWJ and tag characters stay raw: they hold emoji
// sequences together.
func glyph(r rune) (s string, w int, escaped bool) {
	switch {
	case r == '\n':
		return "⏎", 1, true
	case r == '\r':
		return "␍", 1, true
	case r == '\t':
		return "⇥", 1, true
	case r < 0x20:
		return string(0x2400 + r), 1, true
	case r == 0x7F:
		return "␡", 1, true
	case r >= 0x80 && r <= 0x9F, r == 0x2028, r == 0x2029, r == 0x00AD,
		r >= 0x0600 && unicode.Is(unicode.Cf, r) && r != 0x200D && !(r >= 0xE0020 && r <= 0xE007F):
		s := codePoint(r)
		return s, len(s), true
	}
	return "", 0, false
}

// codePoint spells r as <U+XXXX>.
func codePoint(r rune) string {
	const hex = "0123456789ABCDEF"
	b := []byte("<U+")
	digits := 4
	for r>>(4*digits) != 0 {
		digits++
	}
	for i := digits - 1; i >= 0; i-- {
		b = append(b, hex[r>>(4*i)&0xF])
	}
	return string(append(b, '>'))
}
