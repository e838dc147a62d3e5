package search

import (
	"encoding/binary"
	"math"
	"strings"
	"unsafe"

	"github.com/citecheck/citecheck/internal/utext"
)

// Occurrences summarises where a pattern occurs in a text: how many times,
// overlapping Occurrences included, and the byte offsets of the first two
// (-1 where there are fewer).
type Occurrences struct {
	Count int
	First [2]int
	// Kept holds the first cap(Kept) offsets when the caller gave it room;
	// all of them when count <= cap(Kept).
	Kept []int
}

// add records an occurrence at byte offset i. Occurrences must be added in
// increasing order of offset.
func (o *Occurrences) add(i int) {
	if o.Count < 2 {
		o.First[o.Count] = i
	}
	if n := len(o.Kept); n < cap(o.Kept) {
		// A self-assignment, not append: escape analysis then lets the
		// caller's buffer stay on its stack.
		o.Kept = o.Kept[:n+1]
		o.Kept[n] = i
	}
	o.Count++
}

// addRun records k occurrences at byte offsets i, i+d, …, i+(k-1)d in
// O(1 + cap(kept)).
func (o *Occurrences) addRun(i, d, k int) {
	for ; k > 0 && (o.Count < 2 || len(o.Kept) < cap(o.Kept)); k-- {
		o.add(i)
		i += d
	}
	o.Count += k
}

// Complete reports whether kept holds every occurrence.
func (o *Occurrences) Complete() bool { return o.Count == len(o.Kept) }

// Filter returns the occurrences among a complete o for which ok holds,
// reusing o.kept's storage. O(count) calls of ok.
func (o Occurrences) Filter(ok func(at int) bool) Occurrences {
	r := Occurrences{First: [2]int{-1, -1}, Kept: o.Kept[:0]}
	for _, at := range o.Kept {
		if ok(at) {
			r.add(at)
		}
	}
	return r
}

// findOccurrencesRanked finds every occurrence of pattern in text (byte
// offsets, overlapping ones included) with the prefilter's byte ranks
// taken from the text itself (see textRanks): on text unlike English prose
// or code, such as CJK, the static ranks call common bytes rare.
// Up to cap(keep) offsets are also kept, in keep's storage. Time is linear
// in len(text)+len(pattern) whatever the input; extra memory is O(1), or
// O(len(pattern)) once the KMP fallback runs. tr, when not nil, records
// what the scan did and cost.
func findOccurrencesRanked(text, pattern string, rank rankSource, keep []int, tr *matchTrace) Occurrences {
	return match(Occurrences{First: [2]int{-1, -1}, Kept: keep[:0]}, text, pattern, rank, prefilterSlack, tr)
}

// rankSource gives search the byte ranks when a phase first needs them
// (the rare-byte phase): a Text samples its text then, once, so a
// scan that the q-gram skip finishes alone never pays for the sample.
// *byteRanks is the source of ranks already built.
type rankSource interface{ byteRanks() *byteRanks }

func (r *byteRanks) byteRanks() *byteRanks { return r }

// The search has three parts.
//
// Prefilters, in phases. Each finds candidate alignments, which are then
// compared with utext.CommonPrefixLen (8 bytes a step, then SIMD memequal):
//   - The q-gram skip (qgramTable: Hash-q on the pattern's last 256 bytes,
//     four lanes) needs no rare byte and moves about min(m, 256) bytes a
//     step on any text that does not repeat the pattern's q-grams; it goes
//     first for patterns of qgramMinLen bytes or more in texts of
//     qgramMinText bytes or more (see its comment for why this algorithm).
//   - The rare bytes: the pattern's rarest byte b1 (at offset off1) and its
//     rarest byte of another value b2 (at off2), by the text's own ranks;
//     the next b1 is found with strings.IndexByte (SIMD assembly), b2 is
//     checked at its offset. On English prose b1 is a letter like 'q' or a
//     capital, so short patterns skip the text at memory speed. It goes
//     first for short patterns and short texts.
//   - A window of up to windowLen bytes of the pattern around b1, found
//     with strings.Index (SIMD brute force for needles this short; 32 bytes
//     of random text almost never match by chance).
//
// Budget and fallbacks. Periodic or adversarial text can make any
// prefilter's candidates dense and its verifications long. Every candidate
// is charged candidateCost, every q-gram step qgramStepCost, every
// verification verifyCost plus one unit per 8 bytes compared; once the
// charge exceeds the bytes advanced plus a slack, the search moves on to the
// next phase, with a fresh budget, and after the last to Knuth–Morris–Pratt
// (kmpScan) for the rest of the text, which is linear on any input. One unit
// is about the cost of one KMP byte step, so each switch happens where a
// prefilter stops paying for itself.
//
// Periodic runs. Dense overlapping occurrences ("a"*8000 in "a"*500000) would
// cost a verification each. Instead, when two occurrences p < c found one
// after the other overlap (d = c-p < m, m = len(pattern)), d is a period of
// the pattern and text[p:c+m] has period d. The run is extended to the first
// x with text[x] != text[x-d] (or x = len(text)) by one utext.CommonPrefixLen of
// text[c+m:] against text[c+m-d:], and then:
//   - Inside text[p:x] the pattern occurs exactly at p, p+d, p+2d, …: an
//     occurrence at j with e = (j-p) mod d in (0,d) would, by the period d of
//     the run, give one at p+e, between p and c, and p and c are
//     consecutive. (This is the Fine–Wilf-style uniqueness of occurrences in
//     a periodic run; using the observed distance d rather than the pattern's
//     smallest period needs no O(m) period table.) So (x-c-m)/d more
//     occurrences are added in O(1).
//   - No occurrence at j <= x-d crosses x: it would give text[x] =
//     pattern[x-j] = pattern[x-j-d] = text[x-d]. The search resumes at x-d+1.
//
// Linearity (n = len(text), m = len(pattern)).
//  1. IndexByte scans disjoint stretches of text: each call starts at
//     a+off1 and a then moves past the byte found; total <= n. A q-gram
//     step moves its lane at least one byte; each charge of qgramStepCost
//     pays for one step of each lane (at most qgramLanes). The window's
//     strings.Index calls likewise scan disjoint stretches, each at most
//     windowLen steps per offset (brute force of a needle <= 63 bytes):
//     total <= windowLen*n.
//  2. Everything else in each prefilter phase is charged to spent, and a
//     candidate is examined only while spent <= a+slack <= n+slack (each
//     later phase starts from spent = a); one candidate adds at most
//     candidateCost+verifyCost+m/8. So candidates and compares total O(n+m).
//  3. A run extension scans text[c+m:x); the next one starts at c'+m with
//     c' >= x-d+1 > x-m, i.e. past x. They are disjoint; total <= n.
//  4. kmpScan is O(n+m) (the matched length j rises at most once a byte and
//     every failure step lowers it); its table is O(m) time and memory.
//  5. Where the rare phase reads b1's offsets from a rare-byte list
//     (rarebytes.go) instead of calling IndexByte, its walk over the list
//     only moves forward: at most the list's length, n/1024+16, in all;
//     the list's one pass, made once per byte value a text's scans pick,
//     is an IndexByte pass over the text as in 1.

const (
	// prefilterSlack is the prefilter work (in units of about one KMP byte
	// step) allowed beyond the bytes advanced before falling back to KMP; it
	// keeps a few early expensive candidates from forcing the fallback.
	prefilterSlack = 1024
	// candidateCost is the charge for one IndexByte hit: call overhead and
	// the b2 check, about 8 KMP byte steps.
	candidateCost = 8
	// verifyCost is the fixed charge for one utext.CommonPrefixLen call; the
	// compare adds one unit per 8 bytes.
	verifyCost = 4
	// windowLen is the length of the second prefilter's window. Go's
	// strings.Index finds a needle of up to 63 bytes with SIMD compares
	// (brute force, so at most windowLen steps per offset: linear), and 32
	// bytes of random DNA or binary text almost never match by chance.
	windowLen = 32
)

// matchTrace records which strategies a scan used, for tests, and what
// it cost, for a searcher deciding when to index its text.
type matchTrace struct {
	qgram    bool // ran the q-gram skip phase
	windowed bool // ran the window prefilter
	fellBack bool // switched to KMP
	runs     int  // periodic runs extended
	// work is the scan's cost in the budget's unit, about one KMP byte
	// step: every phase's charges, the bytes the SIMD calls (IndexByte,
	// Index, Count) moved over at simdBytesPerStep a unit, and KMP's bytes.
	work int
}

// simdBytesPerStep is how many bytes the runtime's SIMD searches move
// over in the time of a KMP byte step, their stops charged apart
// (measured on prose: a short pattern's whole scan, the stops at its rare
// byte included, covered 11).
const simdBytesPerStep = 16

// charge adds to tr's work what a phase that started at alignment from
// and ended at to cost: its charges, spent-from (each phase's budget
// starts at its first alignment), and the bytes its SIMD call moved over.
// tr may be nil.
func (tr *matchTrace) charge(phase, from, to, spent int) {
	if tr == nil {
		return
	}
	tr.work += spent - from
	if phase == phaseRare || phase == phaseWindow {
		tr.work += (to - from) / simdBytesPerStep
	}
}

// The prefilter phases of match, tried in turn while each pays for itself.
const (
	phaseRare   = iota // the rare byte b1 by IndexByte, then b2
	phaseQgram         // q-gram skip search (qgramTable)
	phaseWindow        // a window of the pattern by strings.Index
	phaseKMP
)

// match adds the occurrences of pat in text to the empty o.
func match(o Occurrences, text, pat string, ranks rankSource, slack int, tr *matchTrace) Occurrences {
	n, m := len(text), len(pat)
	switch {
	case m == 0: // at every byte offset
		if tr != nil {
			tr.work += n
		}
		for i := 0; i <= n && (i < 2 || len(o.Kept) < cap(o.Kept)); i++ {
			o.add(i)
		}
		o.Count = n + 1
		return o
	case m > n:
		return o
	case m == 1:
		// strings.Count of one byte is SIMD; occurrences never overlap.
		count := strings.Count(text, pat)
		if tr != nil {
			tr.work += n / simdBytesPerStep
		}
		for at := 0; o.Count < count && (o.Count < 2 || len(o.Kept) < cap(o.Kept)); {
			i := at + strings.IndexByte(text[at:], pat[0])
			o.add(i)
			at = i + 1
		}
		o.Count = count
		return o
	}
	// The phases in the order they are tried: the q-gram skip first for
	// patterns long enough to skip in texts long enough to pay for its
	// table (on every class of bench/classes.sh, prose too, it beats
	// IndexByte on the rarest byte, whose stops cost more than its skips
	// save unless the byte is very rare).
	phases := [...]int{phaseQgram, phaseRare, phaseWindow, phaseKMP}
	switch {
	case m < qgramMinLen:
		phases = [...]int{phaseRare, phaseWindow, phaseKMP, phaseKMP}
	case n < qgramMinText:
		phases = [...]int{phaseRare, phaseQgram, phaseWindow, phaseKMP}
	}
	var qt qgramTable // the q-gram phase's table
	// The rare bytes b1 (at off1) and b2 (at off2) and the window of the
	// window prefilter, up to windowLen bytes of pat around b1, are found
	// when a phase first needs them: ranking a long pattern's bytes costs
	// a good part of a scan that the q-gram skip may finish alone.
	var off1, off2, offW int
	var b1, b2 byte
	var win string
	// On a text whose rare bytes earlier scans listed (rareBytes), the
	// rare phase takes b1's candidates from its list (pos, from pi on)
	// instead of IndexByte; a pattern that holds a listed byte starts
	// there, since its few candidates beat any skip.
	var rare *rareBytes
	var pos []int32
	pi := 0
	if r, ok := ranks.(rareSource); ok && n >= rareListMinText && n <= indexMaxText {
		rare = r.rareBytes()
		if off, l := rare.known(pat); l != nil {
			phases = [...]int{phaseRare, phaseWindow, phaseKMP, phaseKMP}
			off1, pos = off, l.pos
		}
	}
	next := 0
	phase := phases[next]
	setUp := func(phase int) {
		switch phase {
		case phaseQgram:
			qt.init(pat)
		case phaseRare: // and the window, which always comes after it
			if pos == nil {
				off1, off2 = rareOffsets(pat, ranks.byteRanks())
				if rare != nil {
					if l := rare.list(text, pat[off1], ranks.byteRanks()); l != nil {
						pos = l.pos
					}
				}
			} else {
				off2 = neighbour(off1, m)
			}
			b1, b2 = pat[off1], pat[off2]
			wlen := min(m, windowLen)
			offW = max(0, min(off1-wlen/2, m-wlen))
			win = pat[offW : offW+wlen]
		}
	}
	setUp(phase)
	last := n - m // the largest alignment at which pat fits
	prev := -1    // the latest occurrence found, or -1
	spent := 0    // prefilter work charged so far, in KMP byte steps
	from := 0     // the alignment the phase started at
	a := 0
	weighed := false // whether the rare bytes were weighed against a poor q-gram skip
	matched := 0     // what the phase's occurrences cost it to verify (no prefilter saves that)
	for a <= last {
		leave := spent > a+slack
		if !leave && phase == phaseQgram && !weighed && phases[next+1] == phaseRare && a-from >= qgramWeighAfter && (spent-from-matched)*qgramPoorBytes > a-from {
			// The skip pays for itself but poorly: where the pattern's
			// q-grams recur every few bytes (periodic text) a candidate
			// comes each period. A rare byte of the pattern may go much
			// faster; weighed once, on the text's own ranks, and taken
			// as an exhausted budget takes the next phase.
			weighed = true
			leave = rareFaster(pat, ranks.byteRanks(), float64(spent-from-matched)/float64(a-from))
		}
		if leave {
			// This phase does not pay here: the next, with a fresh budget.
			tr.charge(phase, from, a, spent)
			next++
			phase, spent, from, matched = phases[next], a, a, 0
			if phase == phaseKMP {
				if tr != nil {
					tr.fellBack = true
					tr.work += n - a + m
				}
				return kmpScan(text, pat, a, o)
			}
			setUp(phase)
			continue
		}
		var c int // the next candidate alignment
		switch phase {
		case phaseRare:
			if pos != nil {
				for pi < len(pos) && int(pos[pi]) < a+off1 {
					pi++
				}
				if pi == len(pos) || int(pos[pi]) > last+off1 {
					tr.charge(phase, from, from, spent) // no bytes moved over
					return o
				}
				c = int(pos[pi]) - off1
			} else {
				k := strings.IndexByte(text[a+off1:last+off1+1], b1)
				if k < 0 {
					tr.charge(phase, from, n, spent)
					return o
				}
				c = a + k
			}
			spent += candidateCost
			if text[c+off2] != b2 {
				a = c + 1
				continue
			}
		case phaseQgram:
			if tr != nil {
				tr.qgram = true
			}
			var ok bool
			if c, spent, ok = qt.next(text, a, last, spent, slack); !ok {
				if c > last {
					tr.charge(phase, from, n, spent)
					return o
				}
				a = c // over budget: the check at the loop's top moves on
				continue
			}
			spent += candidateCost
		case phaseWindow:
			if tr != nil {
				tr.windowed = true
			}
			k := strings.Index(text[a+offW:last+offW+len(win)], win)
			if k < 0 {
				tr.charge(phase, from, n, spent)
				return o
			}
			c = a + k
			spent += candidateCost
		}
		q := utext.CommonPrefixLen(text[c:c+m], pat)
		spent += verifyCost + q/8
		if q < m {
			a = c + 1
			continue
		}
		matched += verifyCost + q/8
		o.add(c)
		if prev < 0 || c-prev >= m {
			prev, a = c, c+1
			continue
		}
		// prev and c are consecutive overlapping occurrences: extend the
		// periodic run (see the comment above prefilterSlack).
		d, end := c-prev, c+m
		x := end + utext.CommonPrefixLen(text[end:], text[end-d:])
		more := (x - end) / d
		o.addRun(c+d, d, more)
		if tr != nil {
			tr.runs++
			tr.work += (x - end) / simdBytesPerStep
		}
		prev, a = c+more*d, x-d+1
	}
	tr.charge(phase, from, a, spent)
	return o
}

// The q-gram skip phase is the Hash-q algorithm of Lecroq ("Fast exact
// string matching algorithms", 2007) on the last qgramWindow bytes of the
// pattern: at an alignment a, the q = 8 bytes that end where the window
// ends in the text are hashed; shift[h] is how far, at least, the pattern
// must move right before a q-gram of that hash can sit there, so every
// alignment skipped cannot be an occurrence. shift[h] = 0 makes a a
// candidate, first checked on those 8 bytes, then verified whole.
//
// Why this one: it needs no rare byte, so it is the prefilter for text
// where every byte is common (binary, DNA, hex, CJK and other multi-byte
// text, boilerplate), and its expected shift is about
// min(m, qgramWindow, the distance between repeats of a q-gram in the
// text) bytes for one load, one multiply and one table read: on random
// text over two letters, 8-grams take 256 values and a pattern of 256
// bytes moves about a hundred bytes a step. Long contexts help instead of
// costing, because prefix+exact+suffix is searched as one pattern (see
// checkQuote). Bit-parallel matchers (shift-or, BNDM) read every byte or
// shift at most 64; Two-Way is linear but reads most of the text. On
// periodic text (shift 1 every step) the budget moves on to the next phase.
const (
	qgramLen    = 8   // bytes per q-gram: one 64-bit load
	qgramBits   = 12  // 4,096 buckets: 4 KiB of table, in L1
	qgramWindow = 256 // pattern bytes in the table: shifts fit a uint8
	// qgramMinLen is the shortest pattern worth a q-gram table: shorter
	// ones shift too little to beat IndexByte on their rarest byte.
	qgramMinLen = 16
	// qgramMinText is the shortest text where the q-gram skip goes first:
	// in shorter ones, building its 4 KiB table costs more than the rare
	// bytes' scan (a typical batch's 4 KB sources: 9 % of a bulk run).
	qgramMinText = 16 << 10
	// qgramStepCost is the charge for one skip step: about two KMP byte
	// steps (a load, a multiply, a table read).
	qgramStepCost = 2
	// A skip that has cost more than a unit per qgramPoorBytes bytes over
	// its first qgramWeighAfter has the rare bytes weighed against it
	// (rareFaster). On every class of bench/classes.sh the skip costs a
	// unit per 90 bytes or less; a candidate each period of a periodic
	// text costs it a unit per 3.
	qgramPoorBytes  = 16
	qgramWeighAfter = 4096
)

// qgramTable is the shift table of the last qgramWindow bytes of one
// pattern, and the lanes of its search. Building it is
// O(4 KiB + qgramWindow).
//
// A skip step is a chain of dependent loads (text, table, next text), so
// one lane runs at the latency of that chain, not at the speed of the core.
// next therefore splits the alignments into up to qgramLanes stretches and
// steps one lane in each, in lockstep. The front lane's candidates are
// returned at once; the others' are queued until the lanes before them are
// done, so candidates come in increasing order. A lane stops at the end of
// its stretch or when its queue is full; every lane step is paid for in
// the budget with the front's, so the phase stays linear.
type qgramTable struct {
	shift [1 << qgramBits]uint8
	m     int    // pattern length
	tail  uint64 // the pattern's last q-gram
	lanes [qgramLanes]qgramLane
	nl    int // lanes in use; 0 until the first call of next
	front int // the lane whose candidates come next
}

// qgramLane is one stretch [pos, end) of alignments still to skip through,
// and the candidates found before pos, queue[qh:qn].
type qgramLane struct {
	pos, end int
	queue    [32]int
	qh, qn   int
}

const (
	qgramLanes = 4
	// qgramSplitMin is the shortest stretch a lane gets: below it a lane
	// would barely start.
	qgramSplitMin = 2048
)

// qgramShift returns the shift at alignment p, that of the q-gram the
// window ends with (win points at that q-gram of alignment 0): 0 when it
// hashes like the pattern's last q-gram. It reads without a bounds check,
// which cost a third of a step: next keeps every alignment at most last,
// len(text)-m, so the eight bytes read end inside text.
func qgramShift(shift *[1 << qgramBits]uint8, win unsafe.Pointer, p int) int {
	// Read as utext.Load64 reads (the table's hashes are of its words) on every
	// architecture: one load where words are little-endian.
	return int(shift[qgramHash(word(unsafe.Add(win, p)))])
}

// candidate reports whether alignment p, of shift 0, ends with the
// pattern's last q-gram (else the hashes merely collided). p is at most
// len(text)-m, so the word lies inside text: it is read without a bounds
// check, which kept candidate from being inlined. (Testing the pattern's
// first q-gram here too saved boilerplate and log lines half their check
// but made the kit's adversarial workloads five times slower.)
func (t *qgramTable) candidate(text string, p int) bool {
	return word(unsafe.Add(unsafe.Pointer(unsafe.StringData(text)), p+t.m-qgramLen)) == t.tail
}

// word reads the eight bytes at p as utext.Load64 does.
func word(p unsafe.Pointer) uint64 { return binary.LittleEndian.Uint64((*[8]byte)(p)[:]) }

// queueAt handles a lane (not the front) at alignment p of shift 0: a
// candidate is queued, and a full queue stops the lane after p. It returns
// the lane's next alignment and its new limit.
func (t *qgramTable) queueAt(text string, l *qgramLane, p, lim int) (int, int) {
	if t.candidate(text, p) && l.push(p) {
		lim = p + 1
	}
	return p + 1, lim
}

// push queues candidate c and reports whether the queue is now full.
func (l *qgramLane) push(c int) bool {
	l.queue[l.qn] = c
	l.qn++
	return l.qn == len(l.queue)
}

func qgramHash(g uint64) uint32 { return uint32((g * 0x9E3779B97F4A7C15) >> (64 - qgramBits)) }

// init builds the table for pat, len(pat) >= qgramLen.
func (t *qgramTable) init(pat string) {
	m := len(pat)
	w := min(m, qgramWindow)
	t.m, t.tail, t.nl, t.front = m, utext.Load64(pat, m-qgramLen), 0, 0
	// Every bucket starts at the shift past the window (no q-gram of it
	// hashes there), filled by doubling copies: memmove's wide stores,
	// where a byte loop over the 4 KiB would cost more than a whole scan
	// of a short text.
	t.shift[0] = uint8(w - qgramLen + 1)
	for n := 1; n < len(t.shift); n *= 2 {
		copy(t.shift[n:], t.shift[:n])
	}
	// The q-gram ending at pat[e-1] must move m-e bytes to end the window;
	// e rises, so the last (smallest) shift of a bucket stays.
	for e := m - w + qgramLen; e <= m; e++ {
		t.shift[qgramHash(utext.Load64(pat, e-qgramLen))] = uint8(m - e)
	}
}

// next returns the first candidate alignment c in [a, last] (the pattern's
// last q-gram is at c+m-8 in text), with spent raised by qgramStepCost a
// step of the lanes (they take about the time of one), and ok. a never
// decreases from call to call. When spent passes the front lane's
// alignment plus slack (match's budget) it returns ok false and that
// alignment, all before it ruled out; when no candidate is left, ok false
// and last+1.
func (t *qgramTable) next(text string, a, last, spent, slack int) (c, spent2 int, ok bool) {
	if t.nl == 0 {
		t.nl = min(qgramLanes, max(1, (last-a+1)/qgramSplitMin))
		part := (last - a + 1) / t.nl
		for k := range t.nl {
			t.lanes[k] = qgramLane{pos: a + k*part, end: a + (k+1)*part}
		}
		t.lanes[t.nl-1].end = last + 1
	}
	for ; t.front < t.nl; t.front++ {
		f := &t.lanes[t.front]
		// Queued candidates below a were ruled out by the caller.
		for f.qh < f.qn {
			c := f.queue[f.qh]
			f.qh++
			if c >= a {
				return c, spent, true
			}
		}
		f.pos = max(f.pos, a)
		// Up to three lanes after the front, their positions in locals
		// (registers) so that no store sits in the chain of a step; an
		// absent, finished or full lane has pos >= lim.
		var l [3]*qgramLane
		var p, lim [3]int
		for k := range l {
			if j := t.front + 1 + k; j < t.nl {
				l[k] = &t.lanes[j]
				p[k], lim[k] = l[k].pos, l[k].end
				if l[k].qn == len(l[k].queue) {
					lim[k] = p[k]
				}
			}
		}
		p1, p2, p3 := p[0], p[1], p[2]
		lim1, lim2, lim3 := lim[0], lim[1], lim[2]
		pf, fend := f.pos, f.end
		c, ok := -1, false
		shift, win := &t.shift, unsafe.Add(unsafe.Pointer(unsafe.StringData(text)), t.m-qgramLen)
		for {
			// The steps, with nothing in the loop that calls or stores, so
			// that the lanes stay in registers; a shift of 0 leaves it
			// (hit: the lane) to be handled below. Every alignment here
			// is at most last, so its window ends inside text.
			hit := 0
			for pf < fend {
				if p1 < lim1 {
					if s := qgramShift(shift, win, p1); s > 0 {
						p1 += s
					} else {
						hit = 1
						break
					}
				}
				if p2 < lim2 {
					if s := qgramShift(shift, win, p2); s > 0 {
						p2 += s
					} else {
						hit = 2
						break
					}
				}
				if p3 < lim3 {
					if s := qgramShift(shift, win, p3); s > 0 {
						p3 += s
					} else {
						hit = 3
						break
					}
				}
				s := qgramShift(shift, win, pf)
				if s == 0 {
					hit = 4
					break
				}
				pf += s
				if spent += qgramStepCost; spent > pf+slack {
					hit = 5
					break
				}
			}
			switch hit {
			case 1:
				p1, lim1 = t.queueAt(text, l[0], p1, lim1)
				continue
			case 2:
				p2, lim2 = t.queueAt(text, l[1], p2, lim2)
				continue
			case 3:
				p3, lim3 = t.queueAt(text, l[2], p3, lim3)
				continue
			case 4:
				if t.candidate(text, pf) {
					c, ok, f.pos = pf, true, pf+1
					break
				}
				pf++ // a hash collision
				if spent += qgramStepCost; spent <= pf+slack {
					continue
				}
				fallthrough
			case 5:
				c, f.pos = pf, pf
			default:
				f.pos = pf
			}
			break
		}
		for k, pk := range [3]int{p1, p2, p3} {
			if l[k] != nil {
				l[k].pos = pk
			}
		}
		if ok || c >= 0 {
			return c, spent, ok
		}
	}
	return last + 1, spent, false
}

// kmpScan adds to o the occurrences of pat in text at offsets >= from, by
// Knuth–Morris–Pratt. Time O(len(text)-from+len(pat)), memory O(len(pat)).
func kmpScan(text, pat string, from int, o Occurrences) Occurrences {
	next := kmpTable(pat)
	m := len(pat)
	j := 0 // pat[:j] == text[i-j:i]
	for i := from; i < len(text); i++ {
		c := text[i]
		for j >= 0 && pat[j] != c {
			j = int(next[j])
		}
		j++
		if j == m {
			o.add(i + 1 - m)
			j = int(next[m])
		}
	}
	return o
}

// kmpTable returns Knuth's failure table for pat, len(pat)+1 entries: for
// q < len(pat), next[q] is the length of the longest proper border b of
// pat[:q] with pat[b] != pat[q] (-1 if none), the next alignment worth trying
// after a mismatch at q; next[len(pat)] is the longest proper border of pat.
// O(len(pat)) time; int32 halves the memory of a 18 KB pattern's table.
func kmpTable(pat string) []int32 {
	m := len(pat)
	next := make([]int32, m+1)
	next[0] = -1
	k := -1 // the longest proper border of pat[:i]
	for i := 0; i < m; {
		for k >= 0 && pat[i] != pat[k] {
			k = int(next[k])
		}
		i++
		k++
		if i < m && pat[i] == pat[k] {
			next[i] = next[k]
		} else {
			next[i] = int32(k)
		}
	}
	return next
}

// rareFaster reports whether the rare-byte phase would cost pat less than
// half of rate, the q-gram skip's work a byte so far: one candidate for
// each occurrence of its rarest byte in the text (by the sample that
// ranks counted), and IndexByte's bytes between them.
func rareFaster(pat string, ranks *byteRanks, rate float64) bool {
	sampled := ranks.sampled()
	if sampled == 0 {
		return false // static ranks: no counts to weigh by
	}
	off1, _ := rareOffsets(pat, ranks)
	perByte := candidateCost*float64(ranks[pat[off1]]>>8)/float64(sampled) + 1.0/simdBytesPerStep
	return 2*perByte < rate
}

// rareOffsets returns off1, the offset of pat's rarest byte by rank, and
// off2, the offset of its rarest byte of another value, or a neighbour of
// off1 if pat repeats one byte. len(pat) >= 2. One pass; an 8-byte block
// equal to the one before holds no new byte and is skipped, so long runs
// cost an eighth.
func rareOffsets(pat string, rank *byteRanks) (off1, off2 int) {
	m := len(pat)
	r1, r2 := int(rank[pat[0]]), math.MaxInt // ranks at off1 and off2
	off2 = -1
	i := 1
	for ; i+8 <= m; i += 8 {
		if i >= 9 && utext.Load64(pat, i) == utext.Load64(pat, i-8) {
			continue
		}
		for j := i; j < i+8; j++ {
			r := int(rank[pat[j]])
			if r >= r2 || r == r1 { // the common case: nothing rarer
				continue
			}
			if r < r1 {
				off2, r2, off1, r1 = off1, r1, j, r
			} else {
				off2, r2 = j, r
			}
		}
	}
	for ; i < m; i++ {
		r := int(rank[pat[i]])
		if r >= r2 || r == r1 {
			continue
		}
		if r < r1 {
			off2, r2, off1, r1 = off1, r1, i, r
		} else {
			off2, r2 = i, r
		}
	}
	if off2 < 0 {
		off2 = neighbour(off1, m)
	}
	return off1, off2
}

// byteRank ranks bytes by how common they are in typical text and code,
// 0 = rarest, 255 = most common (the space). It was derived from byte counts
// over about 15 MB of English licence and documentation text (weight 0.6) and
// 40 MB of Go and C source (weight 0.4); bytes never seen rank lowest, those
// that cannot occur in UTF-8 (0xC0, 0xC1, 0xF5–0xFF) lowest of all.
var byteRank = [256]uint8{
	13, 14, 15, 16, 17, 18, 19, 20, 21, 241, 243, 22, 79, 114, 23, 24, // 0x00–0x0f
	25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, // 0x10–0x1f
	255, 178, 209, 163, 156, 171, 176, 170, 217, 218, 183, 175, 233, 207, 237, 246, // 0x20–0x2f
	230, 226, 227, 201, 203, 189, 202, 187, 192, 191, 219, 174, 179, 213, 177, 155, // 0x30–0x3f
	165, 224, 195, 211, 204, 215, 206, 194, 190, 222, 169, 172, 214, 198, 210, 216, // 0x40–0x4f
	205, 167, 220, 221, 223, 196, 193, 188, 197, 182, 164, 186, 173, 185, 158, 231, // 0x50–0x5f
	166, 248, 236, 242, 240, 254, 234, 232, 235, 252, 180, 208, 245, 238, 247, 250, // 0x60–0x6f
	244, 184, 249, 251, 253, 239, 225, 212, 228, 229, 181, 200, 168, 199, 154, 41, // 0x70–0x7f
	157, 142, 143, 98, 121, 134, 112, 87, 144, 113, 83, 64, 103, 106, 120, 70, // 0x80–0x8f
	115, 82, 96, 129, 149, 124, 89, 128, 147, 152, 71, 81, 139, 146, 99, 95, // 0x90–0x9f
	109, 136, 80, 117, 151, 108, 100, 137, 94, 161, 101, 123, 93, 135, 86, 75, // 0xa0–0xaf
	102, 150, 122, 138, 130, 126, 153, 107, 116, 110, 118, 133, 140, 127, 85, 91, // 0xb0–0xbf
	0, 1, 162, 160, 131, 148, 62, 51, 59, 63, 74, 73, 67, 68, 145, 119, // 0xc0–0xcf
	141, 97, 42, 58, 43, 44, 66, 92, 104, 111, 52, 60, 65, 48, 56, 57, // 0xd0–0xdf
	132, 90, 159, 84, 78, 72, 105, 76, 77, 61, 69, 53, 55, 49, 50, 88, // 0xe0–0xef
	125, 45, 46, 47, 54, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, // 0xf0–0xff
}

// byteRanks orders byte values for the prefilter: a smaller rank is a
// rarer byte. Only the order matters.
type byteRanks [256]uint32

// sampled is how many bytes the text's sample counted (the sum of the
// counts above each rank's low byte); 0 for the static ranks.
func (r *byteRanks) sampled() uint32 {
	n := uint32(0)
	for _, c := range r {
		n += c >> 8
	}
	return n
}

// neighbour is the offset next to off1 in a pattern of m >= 2 bytes: the
// second byte to check when the first is the only one chosen.
func neighbour(off1, m int) int {
	if off1+1 < m {
		return off1 + 1
	}
	return off1 - 1
}

// textSample is how many bytes of a text textRanks counts at most.
const textSample = 16 << 10

// textRanks ranks bytes by how common they are in text itself, from a
// sample of windows of 256 bytes evenly spaced: a quarter of the text, at
// least 1 KiB (the whole of a shorter text) and at most textSample. Ties,
// and bytes the sample lacks, keep byteRank's order. Cost O(min(n/4,
// 16 KiB)); built once per source, and only for a scan that reaches the
// rare-byte phase (see rankSource). A quarter: on a short text, where the
// prefilter's scans are short too, counting every byte cost as much as
// eight of them (a batch of many small sources spent a fifth of its check
// on it), and a quarter ranks the common bytes as well.
func textRanks(text string) *byteRanks {
	const window = 256
	var count [256]uint32
	if windows := min(textSample/window, len(text)/(4*window)); windows < 2 {
		for i := 0; i < len(text); i++ {
			count[text[i]]++
		}
	} else {
		step := (len(text) - window) / (windows - 1)
		for w := 0; w < windows; w++ {
			for _, c := range []byte(text[w*step : w*step+window]) {
				count[c]++
			}
		}
	}
	rank := new(byteRanks)
	for b, c := range count { // c <= 16 KiB, so c<<8 cannot overflow
		rank[b] = c<<8 | uint32(byteRank[b])
	}
	return rank
}
