package citecheck

import "github.com/citecheck/citecheck/internal/fold"

// Folds is a set of folds: ways of reading two texts as equal that the exact
// check (spec §2.5) tells apart. A `normalized` finding names the folds
// under which a claim would hold (spec §5). The folds are a closed list, in
// this order (internal/fold defines them); Folds{} is exact comparison.
type Folds uint8

// The folds, in their order.
const (
	// FoldWhitespace makes every run of Unicode White_Space (CR, LF, tab,
	// no-break and other spaces) equal to any other, and ignores leading and
	// trailing white space.
	FoldWhitespace = Folds(fold.Whitespace)
	// FoldNFC compares the Unicode canonical composition (NFC) of both sides.
	FoldNFC = Folds(fold.NFC)
	// FoldNFKC compares the compatibility composition (NFKC): fullwidth
	// forms, ligatures, superscripts and the like read as their plain forms.
	FoldNFKC = Folds(fold.NFKC)
	// FoldTypography folds quotation marks and apostrophes, dashes and
	// hyphens, "…" and "...", and ligatures to their ASCII forms, and drops
	// soft hyphens and zero-width characters.
	FoldTypography = Folds(fold.Typography)
	// FoldCase compares by Unicode simple case folding.
	FoldCase = Folds(fold.Case)
)

// Names returns the folds in the set by name, in the folds' order.
func (f Folds) Names() []string { return fold.Set(f).Names() }
