package fold

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/citecheck/citecheck/internal/testkit"
)

// What the skeleton's proof rests on, for every code point: its skeleton
// is that of what normalization (NFKC) makes of it and, for one NFKC leaves
// as it is, of what typography and case read it as (a folder reads
// normalized text); white space is one space; the plain blocks are read
// as they are; and the non-starters whose skeleton is not empty (U+0345,
// which case folding reads as ι) share one combining class, so that
// canonical order cannot move their skeletons past each other.
func TestSkeletonOfEveryCodePointIsOfItsReadings(t *testing.T) {
	t.Parallel()
	concat := func(s string) string {
		var b strings.Builder
		for _, c := range s {
			b.WriteString(skeletonOf(c))
		}
		return b.String()
	}
	w := &Folder{folds: All}
	keptMarks := map[uint8][]rune{}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if 0xD800 <= r && r <= 0xDFFF {
			continue
		}
		sk := skeletonOf(r)
		if got := concat(norm.NFKC.String(string(r))); got != sk {
			t.Fatalf("%U: skeleton %q, of its NFKC %q", r, sk, got)
		}
		switch {
		case IsWhiteSpace(r) && sk != " ":
			t.Fatalf("white space %U: skeleton %q", r, sk)
		case plainBlocks.has(r) && sk != string(r):
			t.Fatalf("plain %U: skeleton %q", r, sk)
		}
		if ccc := norm.NFD.PropertiesString(string(r)).CCC(); ccc != 0 && sk != "" {
			keptMarks[ccc] = append(keptMarks[ccc], r)
		}
		if norm.NFKC.String(string(r)) != string(r) {
			continue // a folder reads what NFKC made of it, tested above
		}
		var out [3]placedRune
		var read strings.Builder
		for _, p := range out[:w.readAs(r, &out)] {
			read.WriteRune(p.r)
		}
		if got := concat(read.String()); got != sk {
			t.Fatalf("%U: skeleton %q, of its reading by typography and case %q", r, sk, got)
		}
	}
	if len(keptMarks) > 1 {
		t.Fatalf("non-starters with a skeleton in more than one combining class: %U", keptMarks)
	}
}

// The skeleton of a text is the skeleton of its folding under every fold,
// on texts of many scripts, of marks in every order and in runs longer
// than a normalization segment may be, and of Hangul jamo.
func TestSkeletonOfTheFoldingIsTheSkeleton(t *testing.T) {
	t.Parallel()
	c := testkit.NewCorpus(43)
	marks := strings.Repeat("a\u0345\u0301\u0316\u0345\u0300", 3) + strings.Repeat("\u0301", 40) + "\u0345b"
	jamo := "\u1100\u1161\u11A8 \uAC00\u11A8 \u1112\u1161\u11ab"
	for _, text := range []string{c.Unicode(64 << 10), c.Prose(16 << 10), marks, jamo, norm.NFD.String(c.Unicode(8 << 10)), "  \u00A0lead and trail \u3000 "} {
		k, kf := NewSkeletonizer(len(text)), NewSkeletonizer(len(text))
		if got, want := kf.Of(fold(text, All, false).text), k.Of(text); got != want {
			i := 0
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			t.Fatalf("skeleton of the folding differs at byte %d: %.60q, skeleton %.60q", i, got[i:], want[i:])
		}
	}
}

// A skeletonizer's cache answers as skeletonOf, for code points whose
// skeleton it keeps and those too long to keep.
func TestSkeletonizerIsSkeletonOf(t *testing.T) {
	t.Parallel()
	text := testkit.NewCorpus(44).Unicode(32<<10) + "\uFDFA \u3231\u00A8"
	var want strings.Builder
	for _, r := range text {
		want.WriteString(skeletonOf(r))
	}
	w := strings.Join(strings.Fields(want.String()), " ")
	if got := NewSkeletonizer(0).Of(text); got != w || !utf8.ValidString(got) {
		t.Fatalf("skeletonizer %.60q…, skeletonOf %.60q…", got, w)
	}
}

// BenchmarkSkeleton is the skeleton of the texts BenchmarkFold folds: on
// the many-script text, what Explain pays instead of the folding for a
// claim that holds under no fold.
func BenchmarkSkeleton(b *testing.B) {
	for _, w := range foldBenchTexts() {
		b.Run(w.name, func(b *testing.B) {
			b.SetBytes(int64(len(w.text)))
			for b.Loop() {
				NewSkeletonizer(len(w.text)).Of(w.text)
			}
		})
	}
}
