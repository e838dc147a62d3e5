package search

import (
	"math/bits"
	"slices"
	"unsafe"

	"github.com/citecheck/citecheck/internal/utext"
)

// A request that cites one long source many times scans it once per
// quote citation, and a scan costs about text ÷ anchor: a skip search
// cannot move further than the pattern is long. On text whose anchors
// are short in characters but long in bytes (CJK, astral text: three or
// four bytes a character) that made the check cost four times as much a
// scan unit as on prose. When a text's scans would cost more than
// indexing it (Plan), a sparseIndex of it answers them instead, at
// the cost of the anchor's probes and the candidates of its rarest grams,
// whatever the text's length.

// sparseIndex holds the byte offsets of the sparseGram-byte grams of a
// text at every sparseStep-th offset, bucketed by a hash of the gram: a
// counting sort, two passes over the sampled offsets, about a fourth of
// a byte of memory a byte of text. An occurrence of a pattern of
// sparseMinPattern bytes or more holds a sampled gram at one of
// sparseStep offsets in the pattern (one per residue of where it starts),
// so a query reads one bucket a residue: the smallest of those its probes
// hash to.
//
// It differs from explain's gramIndex in what it is for: that one answers
// many short questions of one text (4-byte grams at every other offset,
// eight times the entries); this one answers anchors, which are longer, so
// it samples sparsely enough to cost a few scans to build, and its grams
// are long enough to be rare on a two-letter alphabet.
type sparseIndex struct {
	start []int32 // bucket h holds pos[start[h]:start[h+1]], in increasing order
	// pos holds an offset in its low offBits bits and a tag, the next
	// eight bits of the gram's hash, in the others: a query skips the
	// bucket's other grams without reading the text there (a cache miss
	// in a long text).
	pos  []uint32
	bits uint // of a bucket number
}

const (
	sparseStep = 16
	sparseGram = 16 // two words: 16 bits even of a text of "0" and "1"
	// sparseMinPattern is the shortest pattern the index answers.
	sparseMinPattern = sparseStep + sparseGram - 1
	// sparseProbes is how many grams of a long pattern a query weighs per
	// residue, spread over the pattern: enough to find a rare one where
	// grams repeat (boilerplate: one that spans two clauses), few enough
	// that the probes cost little beside the candidates.
	sparseProbes = 16
	// sparseMinText is the shortest text indexed: in shorter ones the
	// rare-byte scan of a short text costs less than the probes.
	sparseMinText = 16 << 10
)

// sparseHash hashes the gram at p: two words, multiplied apart so that
// every bit of both reaches the top bits (bucket, then tag).
func sparseHash(p unsafe.Pointer) uint64 {
	return (word(p)*0x9E3779B97F4A7C15 ^ word(unsafe.Add(p, 8))) * 0xC2B2AE3D27D4EB4F
}

// newSparseIndex indexes text, whose length must be at most indexMaxText
// (offsets fit offBits). Linear in len(text)/sparseStep.
func newSparseIndex(text string) *sparseIndex {
	n := 0 // offsets sampled
	if len(text) >= sparseGram {
		n = (len(text)-sparseGram)/sparseStep + 1
	}
	// About eight offsets a bucket: the counters stay in the first-level
	// cache while the offsets are counted and placed; a bucket's other
	// grams cost a query a tag compare each.
	b := uint(max(8, bits.Len(uint(n))-3))
	// Counted into start[h+2], summed, and placed through start[h+1] as
	// the cursor of bucket h, which leaves start[h] at its start (no copy
	// of the counters).
	x := &sparseIndex{start: make([]int32, 1<<b+2), pos: make([]uint32, n), bits: b}
	base := unsafe.Pointer(unsafe.StringData(text))
	count := x.start[2:]
	for i := range n {
		count[sparseHash(unsafe.Add(base, i*sparseStep))>>(64-b)]++
	}
	sum := int32(0)
	for h, c := range x.start {
		sum += c
		x.start[h] = sum
	}
	cursor := x.start[1:]
	for i := range n {
		h := sparseHash(unsafe.Add(base, i*sparseStep))
		k := h >> (64 - b)
		x.pos[cursor[k]] = uint32(i*sparseStep) | uint32(uint8(h>>(56-b)))<<offBits
		cursor[k]++
	}
	x.start = x.start[:1<<b+1]
	return x
}

// find returns the occurrences of pattern in text, the text indexed,
// keeping up to cap(keep) of them: what a scan gives. false when the
// index would cost more than a scan: a pattern shorter than
// sparseMinPattern, or buckets (text whose grams repeat: periodic text)
// or comparisons (many long occurrences, or near copies of the pattern)
// past what a skip scan of the pattern costs. A false answer has cost the
// probes, at most sparseStep*sparseProbes hashes, and the candidates
// within the bounds: about a scan more.
func (x *sparseIndex) find(text, pattern string, keep []int) (Occurrences, bool) {
	// A skip scan moves about min(m, qgramWindow) bytes a step; a
	// candidate, checked at a cache miss, costs a few steps.
	maxCandidates := len(text) / max(1, min(len(pattern), qgramWindow)) / 2
	// Compares of half the text's bytes cost about what the scan's do.
	return x.lookup(text, pattern, keep, maxCandidates, len(text)/2, nil)
}

// findCounted is find that adds to work what it did, in the matcher's
// unit (as gramIndex.find counts): for explain's searcher, which asks
// the check's index when the check built one.
func (x *sparseIndex) findCounted(text, pattern string, keep []int, work *int) (Occurrences, bool) {
	maxCandidates := len(text) / max(1, min(len(pattern), qgramWindow)) / 2
	return x.lookup(text, pattern, keep, maxCandidates, len(text)/2, work)
}

// lookup is find with its bounds: at most maxCandidates offsets in the
// buckets read, at most maxCompared bytes compared at the candidates.
// work, when not nil, gains what it did: two units a probe and a
// candidate, verifyCost a comparison and a unit per 8 bytes compared.
func (x *sparseIndex) lookup(text, pattern string, keep []int, maxCandidates, maxCompared int, work *int) (Occurrences, bool) {
	m := len(pattern)
	if m < sparseMinPattern || m > len(text) {
		return Occurrences{}, false
	}
	visited, verified, compared := 0, 0, 0
	if work != nil {
		*work += 2 * sparseStep * min((m-sparseGram)/sparseStep+1, sparseProbes)
		defer func() { *work += 2*visited + verifyCost*verified + compared/8 }()
	}
	var at [sparseStep]int
	var hash [sparseStep]uint64
	pat := unsafe.Pointer(unsafe.StringData(pattern))
	if bestProbes(at[:], hash[:], m, sparseGram, sparseProbes, func(i int) (uint64, int) {
		h := sparseHash(unsafe.Add(pat, i))
		b := h >> (64 - x.bits)
		return h, int(x.start[b+1] - x.start[b])
	}) > maxCandidates {
		return Occurrences{}, false
	}
	var buf [8]int
	found := buf[:0]
	for a, i := range at {
		h := hash[a]
		b := h >> (64 - x.bits)
		tag := uint32(uint8(h>>(56-x.bits))) << offBits
		for _, e := range x.pos[x.start[b]:x.start[b+1]] {
			visited++
			if e&^offMask != tag {
				continue
			}
			p := int(e&offMask) - i
			if p < 0 {
				continue
			}
			if p+m > len(text) {
				break // the offsets increase: none later fits either
			}
			// Every byte compared counts, those of a candidate that
			// differs late too (text of near copies of the pattern).
			q := utext.CommonPrefixLen(text[p:p+m], pattern)
			verified++
			if compared += q; compared > maxCompared {
				return Occurrences{}, false
			}
			if q == m {
				found = append(found, p)
			}
		}
	}
	return collect(found, keep, 0), true
}

// Plan is what a Checker knows of a text before its first scan:
// how many anchors of the quote citations that will search it the index
// answers (sparseMinPattern bytes or more), and the estimated work of
// their scans' skips (skipWork). The first such scan measures how far
// the estimate is off on this text (where q-grams recur, as in
// boilerplate and logs, skips are shorter), and the plan of the scans
// left, scaled by that, decides whether to index (Text.Find);
// CheckParallel, whose workers share the indexes, decides unmeasured,
// before they start.
type Plan struct{ anchors, skip int }

// Add counts an anchor of m bytes in a text of n.
func (p *Plan) Add(n, m int) {
	if m >= sparseMinPattern && m <= n {
		p.anchors++
		p.skip += skipWork(n, m)
	}
}

// pays reports whether indexing text costs less than the scans it would
// spare: their skips less a query for each anchor, beside
// sparseBuildBytes's estimate of the index. (Both a scan and a query
// compare the occurrence itself, so that cost is in neither.) Text whose
// grams repeat (repetitive) is never worth it: its buckets are too full
// for a query to answer.
func (p Plan) pays(text string) bool {
	n := len(text)
	return MayIndex(n) && p.skip-p.anchors*sparseQueryWork >= n/sparseBuildBytes && !repetitive(text)
}

// MayIndex reports whether a text of n bytes may be indexed: long
// enough for the index to beat a short text's scan, short enough for its
// offsets (offBits).
func MayIndex(n int) bool { return n >= sparseMinText && n <= indexMaxText }

// repetitive reports whether the grams at sparseSamples of the offsets
// the index samples, spread over text, take fewer than half as many
// values: periodic text (a period of p bytes puts at most
// p/gcd(p, sparseStep) grams in the index), a run of one byte.
// O(sparseSamples). A longer period passes, and its buckets may still be
// too full to answer long anchors: then the index built has cost what
// the scans it was to spare would have, once.
func repetitive(text string) bool {
	var h [sparseSamples]uint64
	base := unsafe.Pointer(unsafe.StringData(text))
	for k := range h {
		h[k] = sparseHash(unsafe.Add(base, k*(len(text)-sparseGram)/(len(h)-1)&^(sparseStep-1)))
	}
	slices.Sort(h[:])
	return len(slices.Compact(h[:])) < len(h)/2
}

// sparseSamples is how many grams repetitive weighs: on text whose grams
// vary (boilerplate of six clauses has about 750), nearly all differ.
const sparseSamples = 64

// measured returns the plan of the scans after one that did work (its
// matchTrace.work) searching for m bytes of a text of n bytes.
func (p Plan) measured(n, m, work int) Plan {
	est := skipWork(n, m)
	skipped := max(0, work-verifyCost-m/8) // its skips, the compare of an occurrence taken out
	return Plan{anchors: p.anchors - 1, skip: int(float64(max(0, p.skip-est)) * float64(skipped) / float64(est))}
}

// skipWork estimates the work of a scan's skips in matchTrace.work's
// unit (about a KMP byte step) for a pattern of m bytes, at least
// qgramMinLen, in a text of n: the q-gram skip's, a step of qgramStepCost
// per qgramLanes alignments of min(m, qgramWindow)-qgramLen+1 bytes.
func skipWork(n, m int) int {
	return n * qgramStepCost / qgramLanes / (min(m, qgramWindow) - qgramLen + 1)
}

const (
	// sparseBuildBytes: building the index costs about a unit of work per
	// this many bytes of text (measured: 165 µs for 512 KiB, where a
	// unit of a scan's work takes about 3.5 ns).
	sparseBuildBytes = 11
	// sparseQueryWork is what a query costs in the same unit, the compare
	// of an occurrence aside (measured: 0.3–2.5 µs, most near 0.8).
	sparseQueryWork = 300
)
