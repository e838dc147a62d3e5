package fold

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/citecheck/citecheck/internal/testkit"
	"github.com/citecheck/citecheck/internal/utext"
)

// variant is testkit.Variant with the reference folds.
func variant(r *rand.Rand, s string) string { return testkit.Variant(r, s, referenceVariants) }

// referenceVariants are the readings testkit.Variant retypes by.
var referenceVariants = [3]func(string) string{
	func(s string) string { return Reference(s, Typography) },
	func(s string) string { return Reference(s, Whitespace|Case) },
	func(s string) string { return Reference(s, NFKC) },
}

// TestChangedByIsWhatFoldChanges: changedBy, which decides without
// folding which folds Minimal may skip, names exactly the folds that
// change a string.
func TestChangedByIsWhatFoldChanges(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	inputs := []string{"", " ", "a", "a b", " a", "a ", "a  b", "a\nb", "ﬁ", "cafe\u0301", "ＡＢＣ", "“x”", "\u00ad"}
	for range 2000 {
		inputs = append(inputs, testkit.FoldText(r, 1+r.IntN(6)))
	}
	for _, s := range inputs {
		got := changedBy(s)
		for i := range Count {
			f := Set(1 << i)
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
		s := testkit.FoldText(r, 1+r.IntN(12))
		n := utext.RuneCount(s)
		for _, set := range foldSetsInOrder {
			ft := fold(s, set, true)
			if ft.text != Reference(s, set) {
				t.Fatalf("%q under %v: %q, reference %q", s, set.Names(), ft.text, Reference(s, set))
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
		a := testkit.FoldText(r, 1+r.IntN(8))
		var b string
		switch r.IntN(4) {
		case 0:
			b = variant(r, a)
		case 1:
			b = a + testkit.FoldText(r, 1)
		case 2:
			b = a[:len(a)/2]
		default:
			b = testkit.FoldText(r, 1+r.IntN(8))
		}
		for _, set := range foldSetsInOrder {
			want := Reference(a, set) == Reference(b, set)
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

// referenceMinimalFolds is Minimal by its definition: the first set
// of foldSetsInOrder under which the reference foldings are equal.
func referenceMinimalFolds(a, b string) (Set, bool) {
	for _, set := range foldSetsInOrder {
		if Reference(a, set) == Reference(b, set) {
			return set, true
		}
	}
	return 0, false
}

// TestMinimalFoldsIsTheReference: Minimal, which decides most sets
// by the pieces that differ and skips sets that change neither side, gives
// the first set under which the reference foldings are equal, for texts
// and their retypings, prefixes and unrelated texts, and for every pair
// of short texts over the folds' own characters.
func TestMinimalFoldsIsTheReference(t *testing.T) {
	t.Parallel()
	check := func(a, b string) {
		got, ok := Minimal(a, b)
		want, wantOK := referenceMinimalFolds(a, b)
		if got != want || ok != wantOK {
			t.Fatalf("Minimal(%q, %q) = %v %v, reference %v %v", a, b, got.Names(), ok, want.Names(), wantOK)
		}
	}
	r := rand.New(rand.NewPCG(21, 22))
	for range 3000 {
		a := testkit.FoldText(r, 1+r.IntN(12))
		check(a, variant(r, a))
		check(a, variant(r, variant(r, a)))
		check(a, testkit.FoldText(r, 1+r.IntN(12)))
	}
	short := []string{""}
	for _, tok := range []string{"a", "A", " \n", "’", "'", "ﬁ", "e\u0301", "\u00ad", "…"} {
		short = append(short, tok)
	}
	var pairs []string
	for _, x := range short {
		for _, y := range short {
			pairs = append(pairs, x+y)
		}
	}
	for _, a := range pairs {
		for _, b := range pairs {
			check("xy"+a+"zw", "xy"+b+"zw") // inside words and at word cuts
			check(a, b)
		}
	}
}

// TestMinimalEachIsTheReference: MinimalEach gives the first set under
// which the reference foldings of every pair are equal, each pair read
// apart: for pairs of texts and their retypings, where one pair holds
// under one fold and another under another, and where one pair holds
// under no fold at all.
func TestMinimalEachIsTheReference(t *testing.T) {
	t.Parallel()
	reference := func(as, bs []string) (Set, bool) {
	next:
		for _, set := range foldSetsInOrder {
			for i := range as {
				if Reference(as[i], set) != Reference(bs[i], set) {
					continue next
				}
			}
			return set, true
		}
		return 0, false
	}
	check := func(as, bs []string) {
		got, ok := MinimalEach(as, bs)
		want, wantOK := reference(as, bs)
		if got != want || ok != wantOK {
			t.Fatalf("MinimalEach(%q, %q) = %v %v, reference %v %v", as, bs, got.Names(), ok, want.Names(), wantOK)
		}
	}
	for _, tc := range []struct {
		as, bs []string
		want   []string // nil: no set
	}{
		{[]string{"La liberté", "nuit pas"}, []string{"la liberté", "nuit pas"}, []string{"case"}},
		{[]string{"La liberté", "l’homme"}, []string{"la liberté", "l'homme"}, []string{"typography", "case"}},
		{[]string{"a  b", "C"}, []string{"a b", "c"}, []string{"whitespace", "case"}},
		{[]string{"same", "same"}, []string{"same", "same"}, []string{"whitespace"}},
		{[]string{"La liberté", "libre"}, []string{"la liberté", "libres"}, nil},
	} {
		got, ok := MinimalEach(tc.as, tc.bs)
		if ok != (tc.want != nil) || ok && !slices.Equal(got.Names(), tc.want) {
			t.Errorf("MinimalEach(%q, %q) = %v %v, want %v", tc.as, tc.bs, got.Names(), ok, tc.want)
		}
		check(tc.as, tc.bs)
	}
	r := rand.New(rand.NewPCG(34, 35))
	for range 2000 {
		n := 1 + r.IntN(3)
		as, bs := make([]string, n), make([]string, n)
		for i := range as {
			as[i] = testkit.FoldText(r, 1+r.IntN(8))
			bs[i] = variant(r, as[i])
			if r.IntN(8) == 0 {
				bs[i] = testkit.FoldText(r, 1+r.IntN(8))
			}
		}
		check(as, bs)
	}
}

// FuzzFold: fold, its map back to code points, foldsEqual and
// Minimal against the reference foldings, for any two texts and any
// fold set.
func FuzzFold(f *testing.F) {
	f.Add("The court’s “ruling”", "the court's \"ruling\"", uint8(Typography|Case))
	f.Add("ﬁrst  floor\n", "first floor", uint8(NFKC|Whitespace))
	f.Add("cafe\u0301", "café", uint8(NFC))
	f.Add("co\u00adop…", "coop...", uint8(Typography))
	f.Add("한국어", "\u1112\u1161\u11ab국어", uint8(NFC))
	f.Fuzz(func(t *testing.T, a, b string, bits uint8) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) || len(a)+len(b) > 4096 {
			return
		}
		set := Set(bits) & All
		ft := fold(a, set, true)
		if ft.text != Reference(a, set) {
			t.Fatalf("fold(%q, %v) = %q, reference %q", a, set.Names(), ft.text, Reference(a, set))
		}
		n := utext.RuneCount(a)
		for i := range ft.text {
			if ft.from[i] < 0 || ft.from[i] >= ft.to[i] || int(ft.to[i]) > n || i > 0 && ft.from[i] < ft.from[i-1] {
				t.Fatalf("fold(%q, %v): byte %d maps to [%d,%d)", a, set.Names(), i, ft.from[i], ft.to[i])
			}
		}
		if a != "" { // enough code points for the folder's caches, which then answer the repeats
			long := strings.Repeat(a, foldSeenAfter/utf8.RuneCountInString(a)+2)
			if got, want := fold(long, set, false).text, Reference(long, set); got != want {
				t.Fatalf("fold(%q repeated, %v) = %.80q…, reference %.80q…", a, set.Names(), got, want)
			}
		}
		// The skeleton's proof (skeleton.go): the skeleton of the folding
		// under every fold is the skeleton, and a claim b whose folding
		// occurs in a's has a skeleton that occurs in a's.
		fa, fb := fold(a, All, false).text, fold(b, All, false).text
		ka, kb := strings.Clone(NewSkeletonizer(0).Of(a)), NewSkeletonizer(0).Of(b)
		if got := NewSkeletonizer(0).Of(fa); got != ka {
			t.Fatalf("skeleton of the folding of %q: %q, skeleton %q", a, got, ka)
		}
		if strings.Contains(fa, fb) && !strings.Contains(ka, kb) {
			t.Fatalf("folding of %q occurs in that of %q, its skeleton %q not in %q", b, a, kb, ka)
		}
		if got, want := foldsEqual(a, b, set), Reference(a, set) == Reference(b, set); got != want {
			t.Fatalf("foldsEqual(%q, %q, %v) = %v, reference %v", a, b, set.Names(), got, want)
		}
		got, ok := Minimal(a, b)
		if want, wantOK := referenceMinimalFolds(a, b); got != want || ok != wantOK {
			t.Fatalf("Minimal(%q, %q) = %v %v, reference %v %v", a, b, got.Names(), ok, want.Names(), wantOK)
		}
	})
}

// TestFoldedSpanIsTheFullMap: a span of a folded source mapped back to
// code points by a folding restarted at a checkpoint is what the map of
// the whole source says, for sources long enough to hold many checkpoints
// and spans anywhere in them.
func TestFoldedSpanIsTheFullMap(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(23, 24))
	for range 40 {
		text := testkit.FoldText(r, 200+r.IntN(2000))
		f := NewSource(text)
		full := fold(text, All, true)
		if f.Folded() != full.text || len(f.checkpoints) < 2 && len(text) > 2*checkpointEvery {
			t.Fatalf("folded text differs, or %d checkpoints for %d bytes", len(f.checkpoints), len(text))
		}
		for range 200 {
			if len(full.text) == 0 {
				break
			}
			b := r.IntN(len(full.text))
			end := b + 1 + r.IntN(min(len(full.text)-b, 300))
			if from, to := f.Span(b, end); from != int(full.from[b]) || to != int(full.to[end-1]) {
				t.Fatalf("Span(%d, %d) = [%d, %d), the full map says [%d, %d)", b, end, from, to, full.from[b], full.to[end-1])
			}
		}
	}
}

// foldBenchTexts are the texts BenchmarkFold and BenchmarkSkeleton read:
// half a MiB each of prose, of many scripts and of Chinese.
func foldBenchTexts() []struct{ name, text string } {
	c := testkit.NewCorpus(41)
	return []struct{ name, text string }{
		{"prose", c.Prose(512 << 10)},
		{"unicode", c.Unicode(512 << 10)},
		{"cjk", testkit.CJKText(c.Rand, 512<<10)},
	}
}

// BenchmarkFold folds half a MiB of text under every fold, as explaining
// a failing citation folds its source: MB/s of input.
func BenchmarkFold(b *testing.B) {
	for _, w := range foldBenchTexts() {
		b.Run(w.name, func(b *testing.B) {
			b.SetBytes(int64(len(w.text)))
			for b.Loop() {
				fold(w.text, All, false)
			}
		})
	}
}

// Simple case folding changes no code point outside the blocks that
// casedBlocks marks: foldCase answers them without asking unicode.
func TestCasedBlocksHoldEveryFold(t *testing.T) {
	t.Parallel()
	for r := rune(utf8.RuneSelf); r <= unicode.MaxRune; r++ {
		if !casedBlocks().has(r) && unicode.SimpleFold(r) != r {
			t.Fatalf("%U folds to %U, its block not marked", r, unicode.SimpleFold(r))
		}
	}
}

// plainBlocks marks exactly the blocks of 256 code points in which every
// code point is plain (see plainBlocks), as the Unicode tables of
// golang.org/x/text and unicode say: every code point checked. When the
// tables change, the test prints the table to paste.
func TestPlainBlocksAreThoseOfTheTables(t *testing.T) {
	t.Parallel()
	plain := func(r rune) bool {
		s := string(r)
		for _, f := range []norm.Form{norm.NFC, norm.NFKC} {
			if p := f.PropertiesString(s); !p.BoundaryBefore() || !p.BoundaryAfter() {
				return false
			}
		}
		_, typo := typographic(r)
		return r >= utf8.RuneSelf && utf8.ValidRune(r) && !typo && !hangul(s) && unicode.SimpleFold(r) == r && !IsWhiteSpace(r)
	}
	var want blockSet
	for b := rune(0); b <= unicode.MaxRune>>8; b++ {
		all := true
		for r := b << 8; r < (b+1)<<8 && all; r++ {
			all = plain(r)
		}
		if all {
			want.add(b)
		}
	}
	if want != plainBlocks {
		var lit strings.Builder
		for i, w := range want {
			fmt.Fprintf(&lit, "%#016x,", w)
			if i%4 == 3 {
				lit.WriteByte('\n')
			} else {
				lit.WriteByte(' ')
			}
		}
		t.Fatalf("plainBlocks differs from the tables; it should be:\n%s", lit.String())
	}
}

// Folding long texts gives what the reference does under every fold set:
// one of many scripts, with the folder's caches of code points and
// segments; one of ASCII in which spaces, tabs and line breaks come in
// runs of every length, across the eight-byte words that ascii folds at
// once; prose.
func TestFoldOfALongTextIsTheReferences(t *testing.T) {
	t.Parallel()
	c := testkit.NewCorpus(42)
	var ascii strings.Builder
	for ascii.Len() < 16<<10 {
		ascii.WriteString([]string{"a", "Z", "`", " ", "  ", "\t", "\n", "\r\n", "word", "Words. "}[c.Rand.IntN(10)])
	}
	// A NUL before a combining mark: a code point the cache is asked
	// about whose number is 0.
	nul := strings.Repeat("ca\x00\u0301", 2<<10)
	// Code points that are segments of their own, some folding to more
	// code points than the cache keeps (U+FDFA to 18, ㈱ to 3, ﬃ to 3,
	// ½ to 3): the cache must not cut them short.
	var long strings.Builder
	for long.Len() < 16<<10 {
		long.WriteString([]string{"\uFDFA", "\u3231", "\uFB03", "\u00BD", "\u304B", "\u0915", "\uAC00", " "}[c.Rand.IntN(8)])
	}
	for _, text := range []string{c.Unicode(64 << 10), ascii.String(), c.Prose(64 << 10), nul, long.String()} {
		for set := Set(1); set <= All; set++ {
			checkFoldIsTheReferences(t, text, set)
		}
	}
}

// checkFoldIsTheReferences fails t unless fold reads text under set as
// the reference does, saying where they part.
func checkFoldIsTheReferences(t *testing.T, text string, set Set) {
	t.Helper()
	if got, want := fold(text, set, false).text, Reference(text, set); got != want {
		i := 0
		for i < min(len(got), len(want)) && got[i] == want[i] {
			i++
		}
		t.Fatalf("fold under %v differs from the reference at byte %d: %.40q, want %.40q", set.Names(), i, got[i:], want[i:])
	}
}
