package citecheck

import (
	"sort"
	"unicode/utf8"
)

// Units names a way of counting positions other than code points, under
// which a citation's numbers can be read (an `offset_units` finding). The
// values are a closed list in this order.
type Units uint8

const (
	UnitsUTF16 Units = iota // UTF-16 code units, as JavaScript, Java and browsers count
	UnitsUTF8               // UTF-8 bytes, as byte-oriented pipelines count
	unitsCount
)

var unitsNames = [unitsCount]string{"utf16", "utf8"}

// String returns the units' name: "utf16" or "utf8".
func (u Units) String() string {
	if u < unitsCount {
		return unitsNames[u]
	}
	return "units(invalid)"
}

// utf16Index converts UTF-16 offsets of one text to byte offsets: marks[k]
// is the number of UTF-16 code units of the code points that start before
// byte k*indexBlock. Linear to build; each conversion O(log(len/64) + 64).
type utf16Index struct{ marks []int32 }

func newUTF16Index(s string) *utf16Index {
	marks := make([]int32, len(s)/indexBlock+1)
	for k := 1; k < len(marks); k++ {
		// utf16Len counts the code points that start in the block.
		marks[k] = marks[k-1] + int32(utf16Len(s[(k-1)*indexBlock:k*indexBlock]))
	}
	return &utf16Index{marks: marks}
}

// byteAt returns the byte offset of s after exactly u UTF-16 code units,
// and false when u falls inside a surrogate pair or past the end.
func (x *utf16Index) byteAt(s string, u int) (int, bool) {
	if u < 0 {
		return 0, false
	}
	k := sort.Search(len(x.marks), func(k int) bool { return int(x.marks[k]) > u }) - 1
	i, at := k*indexBlock, int(x.marks[k])
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

// utf8Boundary reports whether byte offset b of s is a code point boundary
// in [0, len(s)].
func utf8Boundary(s string, b int) bool {
	return b >= 0 && b <= len(s) && (b == len(s) || utf8.RuneStart(s[b]))
}
