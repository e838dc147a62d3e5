package testkit

import (
	"math/rand/v2"
	"strings"
)

// CountOverlapping counts every occurrence of pattern in text, overlapping
// ones included (the contract's OE, OP and OF count that way). Quadratic at
// worst; for building test data, not for checking the engine's speed.
func CountOverlapping(text, pattern string) int {
	n := 0
	for i := 0; ; {
		j := strings.Index(text[i:], pattern)
		if j < 0 {
			return n
		}
		n++
		i += j + 1
	}
}

// PickSpan is a position citation id on src that holds: a span of
// length[0] to length[1] code points (inclusive) at a random place, and the
// quote it reads. The text must be at least length[1] code points long.
func PickSpan(rng *rand.Rand, src Source, id string, length [2]int) Citation {
	r := []rune(src.Text)
	l := length[0] + rng.IntN(length[1]-length[0]+1)
	p := rng.IntN(len(r) - l + 1)
	return PositionCitation(id, src.SourceID, src.Version, p, p+l, string(r[p:p+l]))
}

// AnchorShape says how PickAnchor cuts a quote citation out of a text.
// Lengths are code points, ranges inclusive.
type AnchorShape struct {
	Exact, Prefix, Suffix [2]int
	// UniqueExact asks that exact alone occur once, not only with its
	// context.
	UniqueExact bool
	// ClaimedStart is the probability that the citation carries its
	// (right) claimed_start.
	ClaimedStart float64
}

// PickAnchor is a quote citation id on src that holds: exact, prefix and
// suffix are cut from the text side by side (prefix and suffix shorter at
// the text's ends, and left out when empty), and prefix+exact+suffix occurs
// exactly once. It panics when 100,000 tries find no such anchor (a text
// too repetitive for the shape).
func PickAnchor(rng *rand.Rand, src Source, id string, shape AnchorShape) Citation {
	r, text := []rune(src.Text), src.Text
	length := func(lr [2]int) int { return lr[0] + rng.IntN(lr[1]-lr[0]+1) }
	for range 100000 {
		p := rng.IntN(len(r))
		l := length(shape.Exact)
		if p+l > len(r) {
			continue
		}
		lp := min(length(shape.Prefix), p)
		ls := min(length(shape.Suffix), len(r)-p-l)
		e, pre, suf := string(r[p:p+l]), string(r[p-lp:p]), string(r[p+l:p+l+ls])
		if CountOverlapping(text, pre+e+suf) != 1 || (shape.UniqueExact && CountOverlapping(text, e) != 1) {
			continue
		}
		c := QuoteCitation(id, src.SourceID, src.Version, e)
		if pre != "" {
			c = c.WithPrefix(pre)
		}
		if suf != "" {
			c = c.WithSuffix(suf)
		}
		if rng.Float64() < shape.ClaimedStart {
			c = c.WithClaimedStart(p)
		}
		return c
	}
	panic("testkit.PickAnchor: no unique anchor of this shape in the text")
}
