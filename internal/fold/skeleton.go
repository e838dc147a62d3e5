package fold

import (
	"strings"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"
)

// A skeleton is a cheaper reading of a text than its folding under every
// fold (fold with allFolds), for proving that a claim has no normalized
// finding without folding the source: each code point is read alone, as
// skeletonOf says, and runs of white space as one space, none at either
// end. No normalization segment is looked for and nothing is composed, so
// a folder's costliest work (segments of letters with marks, in every
// combination) is not done: a many-script source's skeleton costs a
// fraction of its folding (BenchmarkSkeleton).
//
// What makes it a proof: the skeleton of a text is the skeleton of its
// folding (TestSkeletonOfTheFoldingIsTheSkeleton; for single code points
// over all of Unicode, TestSkeletonOfEveryCodePointIsOfItsReadings), and
// reading code points alone keeps a substring a substring. So a claim
// whose folding occurs in the source's folding has a skeleton that occurs
// in the source's skeleton; a claim whose skeleton does not occur has no
// normalized finding (FuzzFold checks it beside the folding itself).
// Marks are dropped because composition and canonical order move them; the
// skeleton is still long enough to tell a fabricated claim from the source.

// skeletonOf returns what code point r reads as in a skeleton: its
// compatibility decomposition (NFKD), read by typography and case as a
// folder reads code points (folder.readAs) and decomposed again until
// nothing changes, without its non-starters (canonical combining class
// other than 0), white space as ' '. Costs several normalizations: a
// skeletonizer caches it.
func skeletonOf(r rune) string {
	s := norm.NFKD.String(string(r))
	w := &Folder{folds: Typography | Case}
	for {
		var b strings.Builder
		for _, c := range s {
			var out [3]placedRune
			for _, p := range out[:w.readAs(c, &out)] {
				b.WriteRune(p.r)
			}
		}
		t := norm.NFKD.String(b.String())
		if t == s {
			break
		}
		s = t
	}
	var b []byte
	for _, c := range s {
		switch {
		case IsWhiteSpace(c):
			b = append(b, ' ')
		case norm.NFD.PropertiesString(string(c)).CCC() == 0:
			b = utf8.AppendRune(b, c)
		}
	}
	return string(b)
}

// skeletonCacheSize is how many code points a skeletonizer's cache holds,
// by a hash of them (20 bytes each: 80 KiB).
const (
	skeletonCacheBits = 12
	skeletonCacheSize = 1 << skeletonCacheBits
)

// skeletonSlot is where a skeletonizer's cache looks for code point r
// first (then in the slot half the cache away): by its low bits, so that
// the code points of one script do not collide, offset by the rest, so
// that scripts a multiple of 4,096 code points apart (Hebrew and the
// mathematical letters) mostly do not either. A multiplicative hash of r
// collided in 157 of the 1,061 code points of the many-script corpus,
// which its skeleton then asked skeletonOf for at every occurrence; this
// slot in 44, and with the second way 17.
func skeletonSlot(r rune) uint32 {
	return (uint32(r) + uint32(r>>skeletonCacheBits)*1447) % skeletonCacheSize
}

// skeletonized is a cached skeletonOf: the code point and its skeleton,
// out[:n], and whether that holds a space; a slot with n 0xFF is empty.
type skeletonized struct {
	r     rune
	n     uint8
	space bool
	out   [14]byte
}

// Skeletonizer writes skeletons, caching what code points read as.
type Skeletonizer struct {
	cache *[skeletonCacheSize]skeletonized
	out   []byte
	space bool // a run of white space is pending
}

// NewSkeletonizer returns a skeletonizer with room for size bytes of
// skeleton and an empty cache.
func NewSkeletonizer(size int) *Skeletonizer {
	k := &Skeletonizer{cache: new([skeletonCacheSize]skeletonized), out: make([]byte, 0, size)}
	for i := range k.cache {
		k.cache[i].n = 0xFF
	}
	return k
}

// Of returns the skeleton Of s, valid until the next call. Linear in s.
func (k *Skeletonizer) Of(s string) string {
	k.out, k.space = k.out[:0], false
	ascii := &asciiFolded()[All]
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			k.put(ascii[c])
			i++
			continue
		}
		// Plain code points are read as they are
		// (TestSkeletonOfEveryCodePointIsOfItsReadings): a run is copied.
		if j, n := plainCodePoints(s, i); n > 0 {
			k.endSpace()
			k.out = append(k.out, s[i:j]...)
			i = j
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		// Two ways: the slot, or the one half the cache away.
		a := skeletonSlot(r)
		e := &k.cache[a]
		if e.r != r || e.n == 0xFF {
			if b := &k.cache[a^skeletonCacheSize/2]; b.r == r && b.n != 0xFF || e.n != 0xFF && b.n == 0xFF {
				e = b
			}
		}
		if e.r != r || e.n == 0xFF {
			sk := skeletonOf(r)
			if len(sk) > len(e.out) {
				for j := 0; j < len(sk); j++ {
					k.put(sk[j])
				}
				continue
			}
			e.r, e.n, e.space = r, uint8(copy(e.out[:], sk)), strings.IndexByte(sk, ' ') >= 0
		}
		if e.space {
			for _, b := range e.out[:e.n] {
				k.put(b)
			}
		} else if e.n > 0 {
			k.endSpace()
			k.out = append(k.out, e.out[:e.n]...)
		}
	}
	return unsafe.String(unsafe.SliceData(k.out), len(k.out))
}

// put writes byte b of a skeleton, a space only between other bytes.
func (k *Skeletonizer) put(b byte) {
	if b == ' ' {
		k.space = len(k.out) > 0
		return
	}
	k.endSpace()
	k.out = append(k.out, b)
}

// endSpace writes the pending space: what follows is not white space.
func (k *Skeletonizer) endSpace() {
	if k.space {
		k.out = append(k.out, ' ')
		k.space = false
	}
}
