package citecheck

import (
	"reflect"
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
	w := &folder{folds: allFolds}
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
		case isWhiteSpace(r) && sk != " ":
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
		k, kf := newSkeletonizer(len(text)), newSkeletonizer(len(text))
		if got, want := kf.of(fold(text, allFolds, false).text), k.of(text); got != want {
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
	if got := newSkeletonizer(0).of(text); got != w || !utf8.ValidString(got) {
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
				newSkeletonizer(len(w.text)).of(w.text)
			}
		})
	}
}

// A source costly to fold is read as a skeleton first, which changes
// what explaining costs and nothing else: every finding is the one
// explaining without skeletons gives. Passages of a text of many scripts,
// retyped as each fold forgives, each cited after a fabricated claim that
// has the skeleton made; most of them hold under the folds.
func TestSkeletonChangesNoFinding(t *testing.T) {
	t.Parallel()
	c := testkit.NewCorpus(45)
	text := c.Unicode(64 << 10)
	cps := []rune(text)
	fabricated := "\u05D0\u05D1 \u30A2\u30A4 x\u0301y\u0302 \U0001D400\U0001D401"
	retypes := []func(string) string{
		norm.NFD.String, norm.NFKC.String, strings.ToUpper,
		func(s string) string { return strings.ReplaceAll(s, " ", "\u00A0\n") },
		func(s string) string { return s[:len(s)/2] + "\u0301" + s[len(s)/2:] }, // a mark added: holds nowhere
	}
	tried, normalized := 0, 0
	for p := 0; p+40 < len(cps) && tried < 100; p += len(cps) / 41 {
		passage := string(cps[p : p+30])
		for _, retype := range retypes {
			claim := retype(passage)
			if claim == passage || !utf8.ValidString(claim) {
				continue
			}
			tried++
			req := mustDecode(t, string(testkit.Request{Sources: []testkit.Source{testkit.NewSource("s", "v1", text)},
				Citations: []testkit.Citation{
					testkit.PositionCitation("fabricated", "s", "v1", 0, runeCount(fabricated), fabricated),
					testkit.PositionCitation("retyped", "s", "v1", p, p+runeCount(claim), claim),
				}}.Body()))
			got, want := explainSkeletons(req), explainPlain(req)
			if !reflect.DeepEqual(got.Citations, want.Citations) {
				t.Fatalf("%q at %d: with the skeleton %+v, without %+v", claim, p, got.Citations, want.Citations)
			}
			for _, f := range got.Citations[1].Findings {
				if f.Kind == FindingNormalized {
					normalized++
					break
				}
			}
		}
	}
	if tried < 100 || normalized < tried/2 {
		t.Fatalf("%d retyped passages, %d with a normalized finding", tried, normalized)
	}
}
