package utext

import (
	"encoding/binary"
	"math/bits"
	"sort"
	"unicode/utf8"
)

// UTF16Len is the length of valid UTF-8 s in UTF-16 code units: one per code
// point (a byte that is not a continuation byte, 10xxxxxx), two for those
// above U+FFFF, whose UTF-8 lead byte is 0xF0–0xF4 (the only bytes with the
// top four bits set). One pass, thirty-two bytes at a time, ASCII (one
// unit a byte) without counting.
func UTF16Len(s string) int {
	b := Bytes(s)
	n := len(b)
	adjust := func(w uint64) int {
		return bits.OnesCount64(w&(w<<1)&(w<<2)&(w<<3)&0x8080808080808080) -
			bits.OnesCount64(w>>7&^(w>>6)&0x0101010101010101)
	}
	for len(b) >= 32 {
		c := b[:32:32]
		w0, w1 := binary.LittleEndian.Uint64(c), binary.LittleEndian.Uint64(c[8:])
		w2, w3 := binary.LittleEndian.Uint64(c[16:]), binary.LittleEndian.Uint64(c[24:])
		if (w0|w1|w2|w3)&0x8080808080808080 != 0 {
			n += adjust(w0) + adjust(w1) + adjust(w2) + adjust(w3)
		}
		b = b[32:]
	}
	for len(b) >= 16 {
		w0, w1 := binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[8:])
		if (w0|w1)&0x8080808080808080 != 0 {
			n += adjust(w0) + adjust(w1)
		}
		b = b[16:]
	}
	for _, c := range b {
		switch {
		case c&0xC0 == 0x80:
			n--
		case c >= 0xF0:
			n++
		}
	}
	return n
}

// UTF16Index converts UTF-16 offsets of one text to byte offsets: marks[k]
// is the number of UTF-16 code units of the code points that start before
// byte k*block. Linear to build; each conversion O(log(len/64) + 64).
type UTF16Index struct {
	text  string
	marks []int32
}

// NewUTF16 indexes s for UTF-16 offsets.
func NewUTF16(s string) *UTF16Index {
	marks := make([]int32, len(s)/block+1)
	for k := 1; k < len(marks); k++ {
		// UTF16Len counts the code points that start in the block.
		marks[k] = marks[k-1] + int32(UTF16Len(s[(k-1)*block:k*block]))
	}
	return &UTF16Index{text: s, marks: marks}
}

// ByteAt returns the byte offset of the text after exactly u UTF-16 code
// units, and false when u falls inside a surrogate pair or past the end.
func (x *UTF16Index) ByteAt(u int) (int, bool) {
	if u < 0 {
		return 0, false
	}
	s := x.text
	k := sort.Search(len(x.marks), func(k int) bool { return int(x.marks[k]) > u }) - 1
	i, at := k*block, int(x.marks[k])
	for i < len(s) && s[i]&0xC0 == 0x80 { // the rest of a code point counted before
		i++
	}
	for at < u && i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		at, i = at+1, i+size
		if r > 0xFFFF {
			at++
		}
	}
	return i, at == u
}

// Boundary reports whether byte offset b of s is a code point boundary in
// [0, len(s)].
func Boundary(s string, b int) bool {
	return b >= 0 && b <= len(s) && (b == len(s) || utf8.RuneStart(s[b]))
}
