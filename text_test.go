package citecheck

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/citecheck/citecheck/internal/testkit"
)

// randomUTF8 builds a string of n code points mixing every UTF-8 length, so
// that 8-byte words split code points at every offset.
func randomUTF8(r *rand.Rand, n int) string {
	pool := []rune{'a', 'Z', '\n', 'é', 'ß', '中', '語', '\u0301', '\uFFFF', '😀', '\U0001D400', '\U0010FFFF'}
	return string((&testkit.Corpus{Rand: r}).Runes(pool, n))
}

func TestWordAtATimeCountsMatchTheStandardLibrary(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		s := randomUTF8(r, n)
		if got, want := runeCount(s), utf8.RuneCountInString(s); got != want {
			t.Fatalf("runeCount(%q) = %d, want %d", s, got, want)
		}
		if got, want := utf16Len(s), len(utf16.Encode([]rune(s))); got != want {
			t.Fatalf("utf16Len(%q) = %d, want %d (astral code points count 2)", s, got, want)
		}
		if got, want := isASCII(bytesOf(s)), utf8.RuneCountInString(s) == len(s); got != want {
			t.Fatalf("isASCII(%q) = %v", s, got)
		}
	}
	// markBlocks counts the bytes that are not 10xxxxxx in any bytes, each
	// bit pattern at each offset of a word.
	for range 200 {
		b := make([]byte, 4*indexBlock)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		marks := make([]int32, 4)
		got, want := markBlocks(b, marks), 0
		for i, c := range b {
			if i%indexBlock == 0 && marks[i/indexBlock] != int32(want) {
				t.Fatalf("marks[%d] = %d, want %d", i/indexBlock, marks[i/indexBlock], want)
			}
			if c&0xC0 != 0x80 {
				want++
			}
		}
		if got != want {
			t.Fatalf("markBlocks = %d, want %d", got, want)
		}
	}
	// ASCII but for one byte, anywhere in words read at once or one by one.
	for n := range 100 {
		ascii := strings.Repeat("a", n)
		if !isASCII(bytesOf(ascii)) {
			t.Fatalf("isASCII of %d ASCII bytes is false", n)
		}
		for i := range n {
			if s := ascii[:i] + "\x80" + ascii[i+1:]; isASCII(bytesOf(s)) {
				t.Fatalf("isASCII(%q) = true", s)
			}
		}
	}
}

// textIndex must convert every code point index to its byte offset and
// back, on ASCII and non-ASCII text, across block boundaries and on texts
// of whole blocks.
func TestTextIndexConvertsEveryPositionBothWays(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for _, s := range []string{"", "abc", strings.Repeat("x", 3*indexBlock+5), randomUTF8(r, 7), randomUTF8(r, 3*indexBlock), randomUTF8(r, 1000),
		strings.Repeat("é", indexBlock/2), strings.Repeat("é€", 25) + "éa"} { // of 1 and 2 whole blocks
		x := newTextIndex(s)
		if x.n != utf8.RuneCountInString(s) {
			t.Fatalf("n = %d, want %d", x.n, utf8.RuneCountInString(s))
		}
		cp := 0
		for off := 0; off <= len(s); off++ {
			if off < len(s) && !utf8.RuneStart(s[off]) {
				continue
			}
			if got := x.byteAt(cp); got != off {
				t.Fatalf("byteAt(%d) = %d, want %d", cp, got, off)
			}
			if got := x.cpAt(off); got != cp {
				t.Fatalf("cpAt(%d) = %d, want %d", off, got, cp)
			}
			cp++
		}
		if got := x.slice(-3, x.n+3); got != s {
			t.Fatal("slice does not clamp to the text")
		}
		if pub := NewText(s); pub.Len() != x.n || pub.ByteOffset(-1) != 0 || pub.ByteOffset(x.n+3) != len(s) || pub.String() != s {
			t.Fatal("Text does not clamp ByteOffset to [0, Len] or lost the text")
		}
	}
}

// A source's byte ranks cost a 16 KiB sample: a scan samples them only
// once it reaches the rare-byte phase, which a long pattern in a long text
// (the q-gram skip's case) never does, and a short pattern does at once.
func TestRanksAreSampledOnlyForTheRareBytePhase(t *testing.T) {
	t.Parallel()
	text := testkit.NewCorpus(5).Prose(2 * qgramMinText)
	x := newTextIndex(text)
	long := text[qgramMinText : qgramMinText+96]
	if o := x.find(long, nil); o.count == 0 || x.ranks != nil {
		t.Fatalf("a %d-byte pattern in %d bytes: %d found, ranks sampled %v; want found, not sampled",
			len(long), len(text), o.count, x.ranks != nil)
	}
	if o := x.find(text[:qgramMinLen-1], nil); o.count == 0 || x.ranks == nil {
		t.Fatalf("a %d-byte pattern: %d found, ranks sampled %v; want found and sampled", qgramMinLen-1, o.count, x.ranks != nil)
	}
}

// BenchmarkTextIndex: indexing a maximum-size source of CJK text for code
// point positions, which every check of a source that is not ASCII does.
func BenchmarkTextIndex(b *testing.B) {
	text := cjkText(testkit.NewRand(17), MaxTextBytes)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		newTextIndex(text)
	}
}
