package utext

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
		if got, want := RuneCount(s), utf8.RuneCountInString(s); got != want {
			t.Fatalf("RuneCount(%q) = %d, want %d", s, got, want)
		}
		if got, want := UTF16Len(s), len(utf16.Encode([]rune(s))); got != want {
			t.Fatalf("UTF16Len(%q) = %d, want %d (astral code points count 2)", s, got, want)
		}
		if got, want := IsASCII(Bytes(s)), utf8.RuneCountInString(s) == len(s); got != want {
			t.Fatalf("IsASCII(%q) = %v", s, got)
		}
	}
	// markBlocks counts the bytes that are not 10xxxxxx in any bytes, each
	// bit pattern at each offset of a word.
	for range 200 {
		b := make([]byte, 4*block)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		marks := make([]int32, 4)
		got, want := markBlocks(b, marks), 0
		for i, c := range b {
			if i%block == 0 && marks[i/block] != int32(want) {
				t.Fatalf("marks[%d] = %d, want %d", i/block, marks[i/block], want)
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
		if !IsASCII(Bytes(ascii)) {
			t.Fatalf("IsASCII of %d ASCII bytes is false", n)
		}
		for i := range n {
			if s := ascii[:i] + "\x80" + ascii[i+1:]; IsASCII(Bytes(s)) {
				t.Fatalf("IsASCII(%q) = true", s)
			}
		}
	}
}

// texts are ASCII and non-ASCII, across block boundaries and of whole
// blocks (1 and 2 of them).
func texts(r *rand.Rand) []string {
	return []string{"", "abc", strings.Repeat("x", 3*block+5), randomUTF8(r, 7), randomUTF8(r, 3*block), randomUTF8(r, 1000),
		strings.Repeat("é", block/2), strings.Repeat("é€", 25) + "éa"}
}

// An Index must convert every code point index to its byte offset and
// back.
func TestIndexConvertsEveryPositionBothWays(t *testing.T) {
	t.Parallel()
	for _, s := range texts(rand.New(rand.NewPCG(3, 4))) {
		x := New(s)
		if x.Len() != utf8.RuneCountInString(s) || x.String() != s || x.ASCII() != (x.Len() == len(s)) {
			t.Fatalf("Len = %d, want %d (ASCII %v)", x.Len(), utf8.RuneCountInString(s), x.ASCII())
		}
		cp := 0
		for off := 0; off <= len(s); off++ {
			if off < len(s) && !utf8.RuneStart(s[off]) {
				continue
			}
			if got := x.ByteAt(cp); got != off {
				t.Fatalf("ByteAt(%d) = %d, want %d", cp, got, off)
			}
			if got := x.CodePointAt(off); got != cp {
				t.Fatalf("CodePointAt(%d) = %d, want %d", off, got, cp)
			}
			cp++
		}
		if got := x.Slice(-3, x.Len()+3); got != s {
			t.Fatal("Slice does not clamp to the text")
		}
	}
}

// A UTF16Index must find the byte offset of every UTF-16 offset, and
// refuse those inside a surrogate pair or past the end.
func TestUTF16IndexIsTheEncodersCount(t *testing.T) {
	t.Parallel()
	for _, s := range texts(rand.New(rand.NewPCG(5, 6))) {
		x := NewUTF16(s)
		want := map[int]int{} // UTF-16 offset → byte offset, at code point boundaries
		u := 0
		for i, r := range s {
			want[u] = i
			u += utf16.RuneLen(r)
		}
		want[u] = len(s)
		for v := -1; v <= u+2; v++ {
			got, ok := x.ByteAt(v)
			w, wok := want[v]
			if ok != wok || (ok && got != w) {
				t.Fatalf("ByteAt(%d) of %q = %d, %v; want %d, %v", v, s, got, ok, w, wok)
			}
		}
		for b := -1; b <= len(s)+1; b++ {
			if got, want := Boundary(s, b), b >= 0 && b <= len(s) && (b == len(s) || utf8.RuneStart(s[b])); got != want {
				t.Fatalf("Boundary(%q, %d) = %v", s, b, got)
			}
		}
	}
}

// BenchmarkIndex: indexing a maximum-size source of CJK text for code
// point positions, which every check of a source that is not ASCII does.
func BenchmarkIndex(b *testing.B) {
	text := strings.Repeat("漢字かな交じり文、", (1<<20)/27)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		New(text)
	}
}

// InvalidAt is where the longest valid UTF-8 prefix of b ends: every byte
// before it is part of a valid sequence, and none after the first invalid
// one can make a longer prefix valid.
func TestInvalidAtEndsTheLongestValidPrefix(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 8))
	for range 3000 {
		b := []byte(randomUTF8(r, r.IntN(20)))
		if len(b) > 0 && r.IntN(2) == 0 {
			b[r.IntN(len(b))] = byte(r.Uint32())
		}
		want := 0
		for i := range len(b) + 1 {
			if utf8.Valid(b[:i]) {
				want = i
			}
		}
		if got := InvalidAt(b); got != want {
			t.Fatalf("InvalidAt(%q) = %d, want %d", b, got, want)
		}
	}
}
