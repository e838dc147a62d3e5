package citecheck

import (
	"math/rand/v2"
	"testing"
)

// TestChangedByIsWhatFoldChanges: changedBy, which decides without
// folding which folds minimalFolds may skip, names exactly the folds that
// change a string.
func TestChangedByIsWhatFoldChanges(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	inputs := []string{"", " ", "a", "a b", " a", "a ", "a  b", "a\nb", "ﬁ", "cafe\u0301", "ＡＢＣ", "“x”", "\u00ad"}
	for range 2000 {
		inputs = append(inputs, explainText(r, 1+r.IntN(6)))
	}
	for _, s := range inputs {
		got := changedBy(s)
		for i := range foldCount {
			f := Folds(1 << i)
			if changes := fold(s, f, false).text != s; changes != (got&f != 0) {
				t.Fatalf("%q: fold %s changes it: %v; changedBy says %v", s, foldNames[i], changes, got&f != 0)
			}
		}
	}
}

// TestFoldMapsBackToCodePoints: every byte of a folded text maps to the
// code points that produced it, in order and inside the text, and the
// folded text is the reference folding of the whole.
func TestFoldMapsBackToCodePoints(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		s := explainText(r, 1+r.IntN(12))
		n := runeCount(s)
		for _, set := range foldSetsInOrder {
			ft := fold(s, set, true)
			if ft.text != referenceFold(s, set) {
				t.Fatalf("%q under %v: %q, reference %q", s, set.Names(), ft.text, referenceFold(s, set))
			}
			for i := range ft.text {
				if ft.from[i] < 0 || ft.from[i] >= ft.to[i] || int(ft.to[i]) > n || i > 0 && ft.from[i] < ft.from[i-1] {
					t.Fatalf("%q under %v: byte %d maps to [%d,%d)", s, set.Names(), i, ft.from[i], ft.to[i])
				}
			}
		}
	}
}

// TestFoldsEqualIsTheReferenceComparison: foldsEqual, which stops folding
// its second string at the first difference, answers as comparing the
// reference foldings of both, for strings alike, prefixes of each other,
// and variants.
func TestFoldsEqualIsTheReferenceComparison(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	equal := 0
	for range 3000 {
		a := explainText(r, 1+r.IntN(8))
		var b string
		switch r.IntN(4) {
		case 0:
			b = variant(r, a)
		case 1:
			b = a + explainText(r, 1)
		case 2:
			b = a[:len(a)/2]
		default:
			b = explainText(r, 1+r.IntN(8))
		}
		for _, set := range foldSetsInOrder {
			want := referenceFold(a, set) == referenceFold(b, set)
			if got := foldsEqual(a, b, set); got != want {
				t.Fatalf("%q ~ %q under %v: %v, reference %v", a, b, set.Names(), got, want)
			}
			if want {
				equal++
			}
		}
	}
	if equal < 1000 {
		t.Fatalf("only %d equal pairs: the test reaches too little", equal)
	}
}
