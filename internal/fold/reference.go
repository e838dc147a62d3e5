package fold

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Reference reads s under the folds f as Fold does, by an implementation
// apart from Fold's, for the tests of both this package and the engine: over
// whole strings (normalization of the whole string, not by segments; white space
// by splitting into fields).
func Reference(s string, f Set) string {
	// x/text keeps to the Stream-Safe Text Format: after 30 combining
	// marks in a row it inserts U+034F (CGJ). fold, which normalizes by
	// segments, inserts none (docs/explain.md, "Folds"); the reference
	// takes them out again when the input had none of its own.
	cgj := strings.ContainsRune(s, '\u034F')
	switch {
	case f&NFKC != 0:
		s = norm.NFKC.String(s)
	case f&NFC != 0:
		s = norm.NFC.String(s)
	}
	if !cgj {
		s = strings.ReplaceAll(s, "\u034F", "")
	}
	var b strings.Builder
	for _, r := range s {
		rep := string(r)
		if f&Typography != 0 {
			if t, ok := typographic(r); ok {
				rep = t
			}
		}
		for _, r := range rep {
			if f&Case != 0 {
				// The orbit's least member, walked from the other end.
				m := r
				for g := r; ; {
					g = unicode.SimpleFold(g)
					if g == r {
						break
					}
					if g < m {
						m = g
					}
				}
				r = m
			}
			b.WriteRune(r)
		}
	}
	s = b.String()
	if f&Whitespace != 0 {
		s = strings.Join(strings.FieldsFunc(s, IsWhiteSpace), " ")
	}
	return s
}
