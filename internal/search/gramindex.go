package search

import (
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/citecheck/citecheck/internal/utext"
)

// Explaining a request (and hinting at a fix) asks many questions of the
// same source text: where a quote occurs, its longest leading part found
// (a binary search, one query a step), the shortest context that is
// unique (another), the parts of an elided quote. The check asks each
// question once and scans; a scan per question would make explaining a
// request of many failing citations cost a scan of the text each, hundreds
// of times the check. A searcher answers these questions by scanning until
// its scans have done enough work (indexWorkShare), and then from a
// gramIndex of the text, built once: after that a question costs about the
// pattern's length, not the text's, on any text whose 4-byte grams vary.
// What a scan costs varies a hundredfold (a long pattern skips most of the
// text, a short one stops at every common byte), so the scans are charged
// the work they did (matchTrace.work), not the bytes they covered.

// A searcher builds its index once its scans have done 1/indexWorkShare
// of a KMP byte step of work per byte of text, about a quarter of what
// the index costs (measured on prose: about a step a byte). Building once
// the scans have cost what the index does (ski rental) would never cost
// more than twice the better choice, but a text asked a few questions is
// mostly asked many more (a failing citation asks a dozen): measured on
// the workloads of BenchmarkExplainFailingMax, a quarter beats one, a half
// and an eighth.
const indexWorkShare = 4

// Searcher finds patterns in one text for explain and hints (see above).
// Not safe for concurrent use: the first queries decide when to index.
type Searcher struct {
	text string
	// ranks gives scans the text's byte ranks: the text's Text, or
	// nil for the searcher's own, sampled when a scan first needs them.
	ranks rankSource
	own   *byteRanks
	spent int        // the scans' work (see matchTrace.work)
	work  int        // the other questions' work: the indexes', the one-pass counts'
	built int        // the indexes' building, granted (Budget.Grant) rather than charged
	index *gramIndex // built once the scans have done enough
	// short counts the patterns too short for index, built once their
	// scans have read the text shortIndexScans times (shortRead: the
	// bytes they read; see shortIndexed).
	short     *shortIndex
	shortRead int
	// counted holds short patterns counted beforehand in one pass
	// (CountAll), with their first occurrences.
	counted map[string]Occurrences
	// sparse is the check's index of the text, when it built one
	// (Text.sparse): it answers long patterns from offset 0 on text
	// where 4-byte grams repeat and 16-byte ones do not (a few letters).
	sparse *sparseIndex
	// Budget, when not nil, is what explaining the request may still
	// spend: each question is admitted by it and charged to it (see
	// Budget). Hints have none.
	Budget *Budget
	// asked holds the answers already given, by question: a request can
	// ask the same question many times (a quote repeated by many
	// citations, or its parts and contexts), and the answer depends on
	// the question alone. At most askedMax entries.
	asked      map[question]Occurrences
	askedBytes int // the bytes of the patterns asked holds
}

// question is one question of a searcher: find (n = 0) or firstKept.
type question struct {
	pattern      string
	from, n, cap int
}

// QuestionWork is what a question costs beside its scan or its index
// candidates, in the budget's unit: the answers' map, the binary search
// into a bucket, the call (measured on the elided family of
// BenchmarkExplainHostile, questions of a few bytes each).
const QuestionWork = 128

// askedMax and askedMaxBytes bound the answers a searcher keeps, and the
// bytes of their patterns (copies of the request's claims and of the
// contexts built from them).
const (
	askedMax      = 4096
	askedMaxBytes = 1 << 20
)

// ask answers q, from the answers already given (a map lookup, which
// costs its pattern's hash and is not charged) or by answer, within the
// budget: refused (no occurrence, the budget marked cut) once the budget
// is spent, and charged what it did, in the matcher's unit (about a KMP
// byte step): the scans' and the indexes' work, and the pattern's bytes
// (building and hashing it). keep's storage holds what answer keeps.
func (s *Searcher) ask(q question, keep []int, answer func() Occurrences) Occurrences {
	if s.Budget == nil {
		return answer()
	}
	if o, ok := s.asked[q]; ok { // a map lookup: not charged
		o.Kept = append(keep[:0], o.Kept...)
		return o
	}
	if !s.Budget.Admit() {
		return Occurrences{First: [2]int{-1, -1}, Kept: keep[:0]}
	}
	before, built := s.spent+s.work, s.built
	o := answer()
	s.Budget.Grant(s.built - built)
	s.Budget.Charge(s.spent + s.work - before + QuestionWork + len(q.pattern)/8)
	if s.asked == nil {
		s.asked = make(map[question]Occurrences)
	}
	if len(s.asked) < askedMax && s.askedBytes+len(q.pattern) <= askedMaxBytes {
		// A copy: a pattern may be a view of a buffer its caller reuses
		// (a folder's, a skeletonizer's), which would change the key.
		q.pattern = strings.Clone(q.pattern)
		s.askedBytes += len(q.pattern)
		s.asked[q] = Occurrences{Count: o.Count, First: o.First, Kept: slices.Clone(o.Kept)}
	}
	return o
}

// CountAll counts patterns, those of them short, in one pass over the
// text (countShort), so that find and first answer them at offset 0
// without a scan: for a caller that knows its short questions before it
// asks them, many of them (a request of many short quotes). keep is how
// many of the first occurrences it keeps.
func (s *Searcher) CountAll(patterns []string, keep int) {
	short := slices.DeleteFunc(slices.Clone(patterns), func(p string) bool { return !ShortPattern(p) })
	found := countShort(s.text, short, keep)
	s.work += len(s.text) + 64*len(short) // a lookup a byte; a table row a state
	if s.counted == nil {
		s.counted = make(map[string]Occurrences, len(short))
	}
	for i, p := range short {
		s.counted[p] = found[i]
	}
}

// countedFind is find or firstKept (limit n > 0) of a pattern counted by
// countAll, when keep asks no more of it than was kept; ok is false
// otherwise.
func (s *Searcher) countedFind(pattern string, keep []int, n int) (o Occurrences, ok bool) {
	c, ok := s.counted[pattern]
	if !ok || (len(c.Kept) < cap(keep) && !c.Complete()) {
		return Occurrences{}, false
	}
	o = Occurrences{Count: c.Count, First: c.First, Kept: append(keep[:0], c.Kept[:min(len(c.Kept), cap(keep))]...)}
	if n > 0 && o.Count > n {
		o.Count, o.Kept = n, o.Kept[:min(len(o.Kept), n)]
	}
	return o, true
}

func (s *Searcher) byteRanks() *byteRanks {
	if s.ranks != nil {
		return s.ranks.byteRanks()
	}
	if s.own == nil {
		s.own = textRanks(s.text)
	}
	return s.own
}

// indexed returns the text's index, building it once the scans have done
// enough, or nil. (Within the budget or not: without it, the questions
// left would be scans, dearer than the build; once a text, linear in it,
// it is granted, not charged to the pool.)
func (s *Searcher) indexed() *gramIndex {
	if s.index == nil && s.spent*indexWorkShare >= len(s.text) && len(s.text) >= indexMinText && len(s.text) <= indexMaxText {
		s.index = newGramIndex(s.text)
		s.built += 2 * len(s.text) // two passes and a counting sort
	}
	return s.index
}

// LongestPrefix is gramIndex.LongestPrefix of the text's index, asked
// within the budget; false when the text is not indexed or the question
// was refused.
func (s *Searcher) LongestPrefix(claimed string) (length, first, sure int, ok bool) {
	built := s.built
	g := s.indexed()
	s.Budget.Grant(s.built - built)
	if g == nil || !s.Budget.Admit() {
		return 0, -1, 0, false
	}
	before := s.work
	length, first, sure, ok = g.longestPrefix(s.text, claimed, &s.work)
	s.Budget.Charge(s.work - before + QuestionWork + len(claimed)/8)
	return length, first, sure, ok
}

// shortIndexed returns the text's shortIndex, building it once the scans
// for patterns too short for the gram index have read the text
// shortIndexScans times, or nil. (Once a text, linear in it, what the
// sort costs is granted, as the gram index's is.)
func (s *Searcher) shortIndexed() *shortIndex {
	if s.short == nil && s.shortRead >= shortIndexScans*len(s.text) && len(s.text) >= indexMinText {
		s.short = newShortIndex(s.text)
		s.built += shortIndexScans * len(s.text) / IndexBytesPerStep // about that many scans
	}
	return s.short
}

// ShortPattern reports whether pattern is one the shortIndex counts.
func ShortPattern(pattern string) bool {
	return len(pattern) > 0 && len(pattern) < indexMinPattern
}

// Find returns the occurrences of pattern in the text at byte offset from
// or after (byte offsets from the start of the text), overlapping ones
// counted, keeping up to cap(keep) of them: what a scan of text[from:]
// gives, offsets moved by from. Linear in the text as a scan; from the
// index, linear in the pattern plus the candidates of its rarest grams,
// and never much worse than a scan (see gramIndex.Find); a pattern too
// short for it, once the short index is built, O(log n) for the count and
// a scan to its cap(keep)-th occurrence.
func (s *Searcher) Find(pattern string, from int, keep []int) Occurrences {
	return s.ask(question{pattern, from, 0, cap(keep)}, keep, func() Occurrences { return s.findNow(pattern, from, keep) })
}

// findNow is find, asked now.
func (s *Searcher) findNow(pattern string, from int, keep []int) Occurrences {
	if o, ok := s.fromIndexes(pattern, from, 0, keep); ok {
		return o
	}
	if ShortPattern(pattern) && from == 0 {
		if o, ok := s.countedFind(pattern, keep, 0); ok {
			return o
		}
		if x := s.shortIndexed(); x != nil {
			// Counted from the short index; the first ones kept, found
			// by a scan that stops at the last there is.
			n := x.count(s.text, pattern)
			o := s.scanFirst(pattern, 0, min(n, max(cap(keep), 2)), keep)
			o.Count = n
			return o
		}
		s.shortRead += len(s.text)
	}
	return s.scan(pattern, from, keep)
}

// fromIndexes answers find (n = 0) or firstKept (the first n) from the
// check's sparse index of the text (long patterns from offset 0) or the
// gram index, when one of them can; false leaves the question to the
// short patterns' ways and the scan.
func (s *Searcher) fromIndexes(pattern string, from, n int, keep []int) (Occurrences, bool) {
	if s.sparse != nil && from == 0 {
		if o, ok := s.sparse.findCounted(s.text, pattern, keep, &s.work); ok {
			if n > 0 {
				o.Count = min(o.Count, n)
				o.Kept = o.Kept[:min(len(o.Kept), n)]
			}
			return o, true
		}
	}
	if g := s.indexed(); g != nil {
		return g.find(s.text, pattern, from, keep, n, &s.work)
	}
	return Occurrences{}, false
}

// scan is find by the matcher, reading text[from:] whole.
func (s *Searcher) scan(pattern string, from int, keep []int) Occurrences {
	var tr matchTrace
	o := findOccurrencesRanked(s.text[from:], pattern, s, keep, &tr)
	s.spent += tr.work
	for i := range min(o.Count, 2) {
		o.First[i] += from
	}
	for i := range o.Kept {
		o.Kept[i] += from
	}
	return o
}

// First returns the First n (1 or 2) occurrences of pattern at byte offset
// from or after, in o.First, and how many there are up to n in o.count:
// whether a pattern occurs, where First, and whether only once, which is
// all most questions ask. A scan stops at the n-th occurrence.
func (s *Searcher) First(pattern string, from, n int) Occurrences {
	return s.firstKept(pattern, from, n, nil)
}

// firstKept is first for any n, keeping the occurrences found in keep's
// storage when it has room for them.
func (s *Searcher) firstKept(pattern string, from, n int, keep []int) Occurrences {
	return s.ask(question{pattern, from, n, cap(keep)}, keep, func() Occurrences { return s.firstNow(pattern, from, n, keep) })
}

// firstNow is firstKept, asked now.
func (s *Searcher) firstNow(pattern string, from, n int, keep []int) Occurrences {
	if o, ok := s.fromIndexes(pattern, from, n, keep); ok {
		return o
	}
	if len(pattern) >= firstByMatcher {
		o := s.scan(pattern, from, keep) // the index, had it answered, did above
		o.Count = min(o.Count, n)
		return o
	}
	if ShortPattern(pattern) && from == 0 {
		if o, ok := s.countedFind(pattern, keep, n); ok {
			return o
		}
	}
	if ShortPattern(pattern) && s.short != nil {
		n = min(n, s.short.count(s.text, pattern)) // no scan for what is not there
	}
	return s.scanFirst(pattern, from, n, keep)
}

// scanFirst is firstKept by a scan with strings.Index's early stop (at
// the pattern's rarest byte), up to the n-th occurrence or the end.
func (s *Searcher) scanFirst(pattern string, from, n int, keep []int) Occurrences {
	o := Occurrences{First: [2]int{-1, -1}, Kept: keep[:0]}
	rare := 0
	if len(pattern) >= 2 {
		rare, _ = rareOffsets(pattern, s.byteRanks())
	}
	at := from
	for o.Count < n && at <= len(s.text) { // an empty pattern occurs at the end too
		i := indexAtRare(s.text[at:], pattern, rare)
		if i < 0 {
			at = len(s.text)
			break
		}
		o.add(at + i)
		at += i + 1
	}
	read := min(at+len(pattern), len(s.text)) - from
	s.spent += read / IndexBytesPerStep
	if ShortPattern(pattern) {
		s.shortRead += read
	}
	return o
}

// indexAtRare is strings.Index(text, pattern) looking first for
// pattern[rare], its rarest byte in the text: strings.Index looks for the
// first byte, on prose a common letter, and stops at every one, while a
// digit, a capital or a mark is found at memory speed. Where that byte is
// common after all (more than one in 16 bytes has been), it leaves the rest
// to strings.Index. Linear in the text.
func indexAtRare(text, pattern string, rare int) int {
	if rare == 0 || len(pattern) > len(text) {
		return strings.Index(text, pattern)
	}
	c, m := pattern[rare], len(pattern)
	fails := 0
	for at := rare; at < len(text); {
		i := strings.IndexByte(text[at:], c)
		if i < 0 {
			return -1
		}
		p := at + i - rare
		if p+m > len(text) {
			return -1
		}
		if text[p:p+m] == pattern {
			return p
		}
		at += i + 1
		if fails++; fails > 4+at>>4 {
			if j := strings.Index(text[p+1:], pattern); j >= 0 {
				return p + 1 + j
			}
			return -1
		}
	}
	return -1
}

// IndexBytesPerStep is how many bytes strings.Index covers in the time of
// a KMP byte step, for the short patterns first gives it: it stops at
// every occurrence of their first byte, on prose a common letter
// (measured: about 3).
const IndexBytesPerStep = 3

// firstByMatcher is the shortest pattern first scans for with the
// matcher (which skips far on long patterns but reads to the end) rather
// than strings.Index (which stops at the first occurrence, but on a long
// pattern that keeps failing falls back to Rabin-Karp, a hash a byte).
const firstByMatcher = 32

// indexMinText is the shortest text a searcher indexes: below it a scan
// costs less than looking up the buckets.
const indexMinText = 4 << 10

// offBits are the bits of an offset in gramIndex.pos, and indexMaxText the
// longest text a searcher indexes, its offsets in them: 16 MiB, past the
// longest folded reading of a source of max_text_bytes (at most about
// eleven times its bytes: NFKC makes 33 of U+FDFA's 3); a longer text,
// under limits raised that far, is scanned.
const (
	offBits      = 24
	offMask      = 1<<offBits - 1
	indexMaxText = 1 << offBits
)

// gramIndex holds the byte offsets of the 4-byte grams of a text at every
// gramStep-th offset, bucketed by a hash of the gram: a counting sort, two
// passes over the text, two bytes of memory per byte of text. An occurrence
// of a pattern of gramStep+gramLen-1 bytes or more holds a sampled gram at
// one of gramStep offsets in the pattern (one per residue of where it
// starts), so a query walks one bucket per residue.
type gramIndex struct {
	start []int32 // bucket h holds pos[start[h]:start[h+1]], in increasing order
	// pos holds an offset in its low offBits bits and the text's byte
	// after the gram there (0 past the end) in the others: a query tests
	// that byte with the offset, in order, before it reads the text at a
	// candidate, which a 512 KiB text makes a cache miss.
	pos []uint32
	// A query goes through at most maxCandidates offsets and compares at
	// most maxCompared bytes, or leaves the question to a scan (see find).
	maxCandidates, maxCompared int
}

const (
	gramLen  = 4
	gramStep = 2
	// gramBits is the bits of a bucket number: 4K buckets, so that
	// the counting sort's counters stay in the first-level cache and its
	// cursors in the second: explaining the workloads of
	// BenchmarkExplainFailingMax took 10–30 % less than with 64K buckets,
	// compared interleaved in one run.
	gramBits = 12
	// gramProbes is how many of a long pattern's grams a query compares
	// the buckets of per residue, spread evenly over the pattern: enough
	// to find a rare one, and the cost stays bounded for long patterns.
	gramProbes = 32
	// indexMinPattern is the shortest pattern the index answers.
	indexMinPattern = gramStep + gramLen - 1
)

// gramBucket returns the bucket of the gram at byte i of s: the top gramBits
// bits of a multiplicative hash.
func gramBucket(s string, i int) uint32 { return (gramAt(s, i) * 0x9E3779B1) >> (32 - gramBits) }

// gramAt returns the gram at byte i of s as a number.
func gramAt(s string, i int) uint32 {
	gram := s[i : i+gramLen]
	return uint32(gram[0]) | uint32(gram[1])<<8 | uint32(gram[2])<<16 | uint32(gram[3])<<24
}

// newGramIndex indexes text. Linear in the text.
func newGramIndex(text string) *gramIndex {
	n := 0 // offsets sampled
	if len(text) >= gramLen {
		n = (len(text)-gramLen)/gramStep + 1
	}
	g := &gramIndex{start: make([]int32, 1<<gramBits+1), pos: make([]uint32, n),
		maxCandidates: len(text) / indexDensity, maxCompared: 2 * len(text)}
	// On locals, which the compiler would otherwise reload from g after
	// every store, and arrays of the buckets' number, which a bucket
	// indexes without a bounds check.
	count, pos := (*[1 << gramBits]int32)(g.start[1:]), g.pos
	for i := 0; i+gramLen <= len(text); i += gramStep {
		count[gramBucket(text, i)]++
	}
	for h := 1; h < len(g.start); h++ {
		g.start[h] += g.start[h-1]
	}
	var next [1 << gramBits]int32
	copy(next[:], g.start)
	for i := 0; i+gramLen <= len(text); i += gramStep {
		h := gramBucket(text, i)
		e := uint32(i)
		if i+gramLen < len(text) {
			e |= uint32(text[i+gramLen]) << offBits
		}
		pos[next[h]] = e
		next[h]++
	}
	return g
}

// find is Searcher.Find (limit 0) or Searcher.First (limit n) from the
// index, and false when the index would be no faster than a scan: a
// pattern shorter than indexMinPattern, buckets holding more than
// maxCandidates offsets (text whose grams repeat: tiny alphabets, periodic
// text), or comparisons at the candidates past maxCompared bytes (many
// long occurrences). A false answer has cost O(pattern + maxCandidates)
// at most.
//
// work gains what the query did, in the matcher's unit: two units a probe
// and a candidate offset gone through, verifyCost a comparison at one, and
// one per 8 bytes of the occurrences compared.
func (g *gramIndex) find(text, pattern string, from int, keep []int, limit int, work *int) (Occurrences, bool) {
	m := len(pattern)
	if m < indexMinPattern || m > len(text) {
		return Occurrences{}, false
	}
	var at [gramStep]int
	var bucket [gramStep]uint32
	total := bestProbes(at[:], bucket[:], m, gramLen, gramProbes, func(i int) (uint32, int) {
		h := gramBucket(pattern, i)
		return h, int(g.start[h+1] - g.start[h])
	})
	*work += 2 * gramStep * min(m, gramProbes)
	if total > g.maxCandidates {
		return Occurrences{}, false
	}
	var found []int
	compared, visited, verified := 0, 0, 0
	defer func() { *work += 2*visited + verifyCost*verified + compared/8 }()
	for d, a := range at {
		h := bucket[d]
		b := g.pos[g.start[h]:g.start[h+1]]
		gram := gramAt(pattern, a)
		// A pattern that ends with the gram has no byte after it to test.
		want, tested := byte(0), a+gramLen < m
		if tested {
			want = pattern[a+gramLen]
		}
		// Offsets before from+a cannot start an occurrence at from or after.
		k := sort.Search(len(b), func(i int) bool { return int(b[i]&offMask) >= from+a })
		for n := 0; k < len(b) && (limit == 0 || n < limit); k++ {
			visited++
			if tested && byte(b[k]>>offBits) != want {
				continue
			}
			p := int(b[k]&offMask) - a
			if p+m > len(text) {
				break // the offsets increase: none later fits either
			}
			// A bucket also holds other grams of its hash: the gram tells
			// them apart without the call a whole comparison costs.
			if gramAt(text, p+a) != gram {
				continue
			}
			if verified++; text[p:p+m] == pattern {
				found = append(found, p)
				n++
				if compared += m; compared > g.maxCompared {
					return Occurrences{}, false
				}
			}
		}
	}
	return collect(found, keep, limit), true
}

// longestPrefix returns the longest leading part of pattern, in bytes and
// ending at a code point boundary of it, that the text holds at an offset
// the buckets it reads hold, the first such offset (0 and -1 for none),
// and sure: the buckets hold every offset of a part of sure bytes or more.
// So a length of sure or more is the longest part there is, at its first
// offset; a shorter one says that no part of sure bytes occurs, and that
// this one does (not necessarily first there). false, with the cost of a
// false find, where the buckets or the bytes compared pass find's bounds.
// Linear in two buckets plus the prefixes found.
//
// An offset p that holds pattern[:l] holds the gram at pattern[a] at the
// sampled offset p+a for the a of p's residue with a+gramLen <= l, and
// the byte after it for a+gramLen < l. So the buckets of the grams at
// pattern[0] (with the byte after) and pattern[1] hold every offset of a
// part of indexMinPattern bytes; a bucket of a gram further in holds
// fewer offsets, those of longer parts. It reads the smaller of the
// buckets at 0 or 2 and at 1 or 3.
//
// work gains what it did, in find's unit.
func (g *gramIndex) longestPrefix(text, pattern string, work *int) (length, first, sure int, ok bool) {
	if len(pattern) < indexMinPattern {
		return 0, -1, 0, false
	}
	*work += 8
	at := [gramStep]int{0, 1}
	sure = indexMinPattern
	for d := range gramStep {
		if a := d + gramStep; a+gramLen < len(pattern) && 2*g.size(pattern, a) < g.size(pattern, d) {
			at[d] = a
		}
	}
	if at != [gramStep]int{0, 1} {
		for _, a := range at {
			sure = max(sure, a+gramLen+1)
		}
	}
	total := 0
	for _, a := range at {
		total += g.size(pattern, a)
	}
	if total > g.maxCandidates {
		return 0, -1, 0, false
	}
	length, first = 0, -1
	compared, visited := 0, 0
	defer func() { *work += 2*visited + compared/8 }()
	for _, a := range at {
		h := gramBucket(pattern, a)
		b := g.pos[g.start[h]:g.start[h+1]]
		gram := gramAt(pattern, a)
		// The byte after the gram is tested where the parts sure to be
		// held reach it (in the first two buckets, only after pattern[0]).
		want, tested := byte(0), a+gramLen < len(pattern) && a+gramLen < sure
		if tested {
			want = pattern[a+gramLen]
		}
		for _, e := range b {
			visited++
			p := int(e&offMask) - a
			if tested && byte(e>>offBits) != want || p < 0 || gramAt(text, p+a) != gram {
				continue
			}
			l := utext.CommonPrefixLen(text[p:], pattern)
			if compared += l; compared > g.maxCompared {
				return 0, -1, 0, false
			}
			for l < len(pattern) && !utf8.RuneStart(pattern[l]) {
				l--
			}
			if l >= indexMinPattern && (l > length || l == length && p < first) {
				length, first = l, p
			}
		}
	}
	return length, first, sure, true
}

// size returns how many offsets the bucket of the gram at pattern[i] holds.
func (g *gramIndex) size(pattern string, i int) int {
	h := gramBucket(pattern, i)
	return int(g.start[h+1] - g.start[h])
}

// indexDensity: buckets holding more than one offset in indexDensity of
// the text are as slow to go through as a scan, whose skips move about
// that far a step on the texts where grams repeat; comparisons that read
// twice the text cost what a scan does.
const indexDensity = 16

// NewSearcher returns a searcher of text (a folded reading, a skeleton)
// whose questions draw on budget; a nil budget admits every question.
func NewSearcher(text string, budget *Budget) *Searcher {
	return &Searcher{text: text, Budget: budget}
}
