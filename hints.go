package citecheck

import (
	"unicode/utf8"

	"github.com/citecheck/citecheck/internal/utext"
)

// MaxHintStarts is how many occurrence starts a [Suggestion] lists at most:
// enough to choose from, bounded however often a text repeats.
const MaxHintStarts = 8

// Suggestion is what the source says about a failing citation, found so that
// whoever fixes it need not search the source by hand. Which fields are set
// depends on Reason; the others are zero. Every position and length counts
// code points from 0, as everywhere in this package.
type Suggestion struct {
	Reason Reason // the discrepancy's reason

	// SourceIDs (unknown_source): the source_ids the request supplies,
	// distinct, in input order. (For version_mismatch the detail already
	// lists the available versions.)
	SourceIDs []string

	// Where the claimed text occurs exactly in the source.
	//  - span_reversed, span_out_of_range, quote_mismatch: the quote; a
	//    correct span is start = Starts[i], end = Starts[i]+Length.
	//  - ambiguous_anchor: the whole anchor (prefix, exact and suffix);
	//    Starts are where exact starts, as in match_starts.
	// Occurrences counts them all, overlapping ones included; Starts lists
	// the first MaxHintStarts, ascending.
	Occurrences int
	Starts      []int
	Length      int // the claimed text's length: quote, or exact

	// Partial (exact_not_found, and a position citation whose quote occurs
	// nowhere): how much of the claimed text the source does contain.
	Partial *PartialMatch

	// UniquePrefix and UniqueSuffix (ambiguous_anchor): the shortest prefix,
	// and the shortest suffix, taken from the source around the first match
	// (Starts[0]), that would make the anchor match there only, the other
	// member unchanged. Each extends the citation's own prefix or suffix.
	// nil when none fits in max_context_bytes.
	UniquePrefix, UniqueSuffix *string

	// Observed and ObservedStart (prefix_mismatch, suffix_mismatch,
	// position_mismatch): what the source has where the failing part should
	// be (the detail's observed) and where that text starts.
	Observed      *string
	ObservedStart int

	// ResolvedStart (position_mismatch): where exact really starts.
	ResolvedStart *int
}

// PartialMatch is the longest leading part of a claimed text that occurs in
// the source, and where the source and the claim part ways after it.
type PartialMatch struct {
	Length  int     // leading code points of the claimed text found; 0 when not even its first
	Start   int     // where that leading part first occurs; -1 when Length is 0
	At      int     // Start+Length: where the source and the claim differ; -1 when Length is 0
	Claimed string  // the claimed text's code point at Length: the first that differs
	Source  *string // the source's code point at At; nil at the end of the text or when Length is 0
}

// Hint returns what the source says about discrepancy d of req: where the
// quote really is, how much of an exact that is not found the source has,
// which prefix or suffix would make an ambiguous anchor unique, what the
// source has where a prefix or suffix fails, where a misplaced quote really
// starts. d must come from checking req ([Check], [CheckAll] or
// [Checker.Citation]); Hint returns nil when d is nil.
//
// Cost: O((n+m)·log m) for a text of n and a claimed text of m bytes (a
// binary search over lengths, each step a question of the text, a linear
// scan at worst: see searcher), and one more to list
// occurrences; never quadratic. Each call indexes the cited source
// afresh: for many discrepancies of one request, [Checker.Hint] indexes
// each source once.
func Hint(req *Request, d *Discrepancy) *Suggestion {
	if d == nil {
		return nil
	}
	return NewChecker(req).Hint(d)
}

// Hint is [Hint] for a discrepancy of c's request, reading the source
// through c's indexes, each built once for all the calls (and for c's
// checks): the report of every failure of a request indexes each source
// once, not once a failure.
func (c *Checker) Hint(d *Discrepancy) *Suggestion {
	if d == nil {
		return nil
	}
	req := c.req
	cit := &req.Citations[d.CitationIndex]
	s := &Suggestion{Reason: d.Reason}
	if s.Reason == ReasonUnknownSource {
		seen := map[string]bool{}
		for _, src := range req.Sources {
			if !seen[src.SourceID] {
				seen[src.SourceID] = true
				s.SourceIDs = append(s.SourceIDs, src.SourceID)
			}
		}
		return s
	}
	if s.Reason == ReasonVersionMismatch {
		return s
	}
	j, _ := c.lookup(cit)
	if j < 0 { // d does not come from checking req
		return s
	}
	x := c.text(j)
	sel := &cit.Selector
	switch s.Reason {
	case ReasonSpanReversed, ReasonSpanOutOfRange, ReasonQuoteMismatch:
		s.Length = utext.RuneCount(cit.Quote)
		s.Occurrences, s.Starts = occurrenceStarts(x, cit.Quote, 0)
		if s.Occurrences == 0 {
			s.Partial = longestLeadingPart(x, cit.Quote)
		}
	case ReasonExactNotFound:
		s.Length = utext.RuneCount(sel.Exact)
		s.Partial = longestLeadingPart(x, sel.Exact)
	case ReasonPrefixMismatch:
		s.ObservedStart = max(0, d.Detail.MatchStarts[0]-utext.RuneCount(sel.Prefix))
		s.Observed = d.Detail.Observed
	case ReasonSuffixMismatch:
		s.ObservedStart = d.Detail.MatchStarts[0] + utext.RuneCount(sel.Exact)
		s.Observed = d.Detail.Observed
	case ReasonPositionMismatch:
		s.ObservedStart = min(cit.ClaimedStart, x.Len())
		s.Observed = d.Detail.Observed
		s.ResolvedStart = d.Detail.ResolvedStart
	case ReasonAmbiguousAnchor:
		s.Length = utext.RuneCount(sel.Exact)
		s.Occurrences, s.Starts = occurrenceStarts(x, sel.Prefix+sel.Exact+sel.Suffix, utext.RuneCount(sel.Prefix))
		s.UniquePrefix, s.UniqueSuffix = uniqueContext(x, sel, s.Starts[0])
	}
	return s
}

// occurrenceStarts counts the search.Occurrences of pattern in the text and lists
// the first MaxHintStarts of them, as code point indexes moved right by
// skip code points (to where exact starts inside prefix+exact+suffix).
func occurrenceStarts(x *indexedText, pattern string, skip int) (int, []int) {
	if pattern == "" { // at every code point boundary (the matcher counts bytes)
		starts := make([]int, min(x.Len()+1, MaxHintStarts))
		for i := range starts {
			starts[i] = i + skip
		}
		return x.Len() + 1, starts
	}
	o := x.Searcher().Find(pattern, 0, make([]int, 0, MaxHintStarts))
	starts := make([]int, len(o.Kept))
	for i, b := range o.Kept {
		starts[i] = x.CodePointAt(b) + skip
	}
	return o.Count, starts
}

// longestLeadingPart finds the longest leading part of claimed that occurs in
// the text, by binary search over its length in bytes, at code point
// boundaries: when a part occurs, every shorter leading part occurs too.
// O(log m) questions of the text (see search.Searcher); once the text is indexed,
// one look at two buckets (search.Searcher.LongestPrefix), and the binary search
// only over the few lengths those leave open.
func longestLeadingPart(x *indexedText, claimed string) *PartialMatch {
	// Invariant: lo and hi are code point boundaries; claimed[:lo] occurs,
	// first at byte first (lo = 0 trivially); nothing longer than
	// claimed[:hi] does.
	lo, hi, first := 0, len(claimed), -1
	sureFirst := true // first is where claimed[:lo] occurs first
	if l, b, sure, ok := x.Searcher().LongestPrefix(claimed); ok {
		// Read from the index's buckets of grams at the claim's start:
		// the longest part, or that none of sure bytes occurs and one
		// shorter does.
		if l >= sure {
			lo, hi, first = l, l, b
		} else {
			for hi = min(hi, sure-1); hi > 0 && !utf8.RuneStart(claimed[hi]); hi-- {
			}
			if l > 0 {
				lo, first, sureFirst = l, b, false
			}
		}
	}
	if lo < hi {
		lo, hi, first, sureFirst = leadingPartByCandidates(x, claimed, lo, hi, first, sureFirst)
	}
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		for mid < hi && !utf8.RuneStart(claimed[mid]) {
			mid++
		}
		if o := x.Searcher().First(claimed[:mid], 0, 1); o.Count > 0 {
			lo, first, sureFirst = mid, o.First[0], true
		} else {
			for hi = mid - 1; hi > lo && !utf8.RuneStart(claimed[hi]); hi-- {
			}
		}
	}
	if !sureFirst {
		first = x.Searcher().First(claimed[:lo], 0, 1).First[0]
	}
	if x.Searcher().Budget.Refused() { // a question refused: nothing above is sure
		return &PartialMatch{Start: -1, At: -1}
	}
	p := &PartialMatch{Length: utext.RuneCount(claimed[:lo]), Start: -1, At: -1}
	if lo < len(claimed) {
		p.Claimed = utext.FirstRune(claimed[lo:])
	}
	if lo == 0 {
		return p
	}
	p.Start = x.CodePointAt(first)
	p.At = p.Start + p.Length
	if b := first + lo; b < len(x.String()) {
		ch := utext.FirstRune(x.String()[b:])
		p.Source = &ch
	}
	return p
}

// leadCandidates is how many search.Occurrences of a leading part
// leadingPartByCandidates takes as candidates, and leadProbe the length
// (bytes) of the first part it asks about: on text where a part of 32
// bytes occurs by chance (a few letters, periodic text), its search.Occurrences
// are many, and the next part asked is four times longer.
const (
	leadCandidates = 64
	leadProbe      = 32
)

// leadingPartByCandidates narrows longestLeadingPart's invariant (lo,
// hi, first, sureFirst; see there) by the search.Occurrences of leading parts of
// leadProbe, 4·leadProbe, … bytes: where one has at most leadCandidates
// occurrences, every longer part occurs at one of them, and the longest
// is read there by comparing the claim with the text (exact, and one
// question however long the part); a part that occurs nowhere bounds hi.
// The binary search then has what is left, if anything: on text where
// every question is a scan, a claim that nearly occurs costs one or two
// scans instead of a dozen.
func leadingPartByCandidates(x *indexedText, claimed string, lo, hi, first int, sureFirst bool) (int, int, int, bool) {
	s := x.Searcher()
	for l := leadProbe; lo < hi && l < hi; l *= 4 {
		if l <= lo {
			continue
		}
		for l < hi && !utf8.RuneStart(claimed[l]) {
			l++
		}
		o := s.Find(claimed[:l], 0, make([]int, 0, leadCandidates))
		if o.Count == 0 {
			for hi = l - 1; hi > lo && !utf8.RuneStart(claimed[hi]); hi-- {
			}
			break
		}
		if !o.Complete() {
			lo, first, sureFirst = l, o.First[0], true
			continue
		}
		if !s.Budget.Admit() { // the comparisons are a step of their own
			return lo, hi, first, sureFirst
		}
		best, at, compared := -1, -1, 0
		for _, c := range o.Kept { // ascending: the first of the longest wins
			n := utext.CommonPrefixLen(x.String()[c:], claimed)
			compared += n
			for n > 0 && n < len(claimed) && !utf8.RuneStart(claimed[n]) {
				n--
			}
			if n > best {
				best, at = n, c
			}
		}
		s.Budget.Charge(compared / 8)
		return best, best, at, true
	}
	return lo, hi, first, sureFirst
}

// uniqueContext finds the shortest prefix and the shortest suffix, read from
// the text around the match at start, that leave only that match, the other
// member as the citation has it. Lengthening a context can only remove
// matches, so uniqueness is monotone in the length and a binary search finds
// the shortest in O(log) scans. A context over max_context_bytes would be
// refused, so the search stops there and returns nil when nothing shorter
// is unique.
//
// When the anchor occurs at most uniqueCandidates times (one question
// finds them all), the shortest contexts are read at its search.Occurrences
// instead (uniqueContextAt): the same answer, without the search.
func uniqueContext(x *indexedText, sel *Selector, start int) (prefix, suffix *string) {
	e, p, s := sel.Exact, sel.Prefix, sel.Suffix
	occ := x.Searcher().Find(p+e+s, 0, make([]int, 0, uniqueCandidates))
	unique := func(pattern string) bool { return x.Searcher().First(pattern, 0, 2).Count == 1 }
	shortest := func(lo, hi int, pattern func(k int) string) *string {
		// lo: ambiguous (the citation's own context); hi: the longest allowed.
		if hi <= lo || !unique(pattern(hi)) {
			return nil
		}
		for lo+1 < hi {
			mid := lo + (hi-lo)/2
			if unique(pattern(mid)) {
				hi = mid
			} else {
				lo = mid
			}
		}
		v := pattern(hi)
		return &v
	}

	// Prefix T[start-k:start] with k from len(P) to as far back as fits.
	b := x.ByteAt(start)
	k, used := 0, 0
	for k < start {
		_, size := utf8.DecodeLastRuneInString(x.String()[:b-used])
		if used+size > MaxContextBytes {
			break
		}
		k, used = k+1, used+size
	}
	// None: a question refused; the comparisons are a step of their own.
	direct := occ.Count > 0 && occ.Complete() && x.Searcher().Budget.Admit()
	if direct {
		prefix = uniquePrefixAt(x, sel, start, occ.Kept, utext.RuneCount(p), k)
	} else if prefix = shortest(utext.RuneCount(p), k, func(k int) string {
		return x.Slice(start-k, start) + e + s
	}); prefix != nil {
		v := (*prefix)[:len(*prefix)-len(e)-len(s)]
		prefix = &v
	}

	// Suffix T[q:q+k] with k from len(X) to as far on as fits.
	q := start + utext.RuneCount(e)
	b = x.ByteAt(q)
	k, used = 0, 0
	for q+k < x.Len() {
		_, size := utf8.DecodeRuneInString(x.String()[b+used:])
		if used+size > MaxContextBytes {
			break
		}
		k, used = k+1, used+size
	}
	if direct {
		suffix = uniqueSuffixAt(x, sel, q, occ.Kept, utext.RuneCount(s), k)
	} else if suffix = shortest(utext.RuneCount(s), k, func(k int) string {
		return p + e + x.Slice(q, q+k)
	}); suffix != nil {
		v := (*suffix)[len(p)+len(e):]
		suffix = &v
	}
	return prefix, suffix
}

// uniqueCandidates is how many search.Occurrences of an anchor uniqueContext
// reads the contexts at, rather than searching for them.
const uniqueCandidates = 64

// uniquePrefixAt is uniqueContext's prefix, from every occurrence of the
// anchor (occ, byte offsets where prefix+exact+suffix starts): the
// prefix T[start-k:start] leaves one match exactly when it is longer, in
// bytes, than the longest stretch that the text before exact shares, read
// backwards, with the text before any other occurrence's exact (an
// occurrence of T[start-k:start]+exact+suffix is one of the anchor, its
// prefix being part of the context, with those k code points before its
// exact). So the shortest is the first k (from lo+1, at most hi) past
// that stretch. O(search.Occurrences · max_context_bytes).
func uniquePrefixAt(x *indexedText, sel *Selector, start int, occ []int, lo, hi int) *string {
	if hi <= lo {
		return nil
	}
	bs := x.ByteAt(start)
	shared, compared := -1, 0
	for _, a := range occ {
		if bq := a + len(sel.Prefix); bq != bs {
			n := commonSuffixLen(x.String()[:bq], x.String()[:bs], MaxContextBytes+1)
			shared, compared = max(shared, n), compared+n
		}
	}
	x.Searcher().Budget.Charge(compared)
	from := bs - shared - 1 // the context starts here or before
	if from < 0 {
		return nil
	}
	for from > 0 && !utf8.RuneStart(x.String()[from]) {
		from--
	}
	k := max(start-x.CodePointAt(from), lo+1)
	if k > hi {
		return nil
	}
	v := x.Slice(start-k, start)
	return &v
}

// uniqueSuffixAt is uniquePrefixAt for the suffix T[q:q+k], q where exact
// ends: longer than the longest stretch the text after exact shares with
// the text after any other occurrence's exact.
func uniqueSuffixAt(x *indexedText, sel *Selector, q int, occ []int, lo, hi int) *string {
	if hi <= lo {
		return nil
	}
	bq := x.ByteAt(q)
	shared, compared := -1, 0
	for _, a := range occ {
		if be := a + len(sel.Prefix) + len(sel.Exact); be != bq {
			n := utext.CommonPrefixLen(x.String()[be:], x.String()[bq:min(len(x.String()), bq+MaxContextBytes+1)])
			shared, compared = max(shared, n), compared+n
		}
	}
	x.Searcher().Budget.Charge(compared / 8)
	to := bq + shared + 1 // the context ends here or after
	if to > len(x.String()) {
		return nil
	}
	for to < len(x.String()) && !utf8.RuneStart(x.String()[to]) {
		to++
	}
	k := max(x.CodePointAt(to)-q, lo+1)
	if k > hi {
		return nil
	}
	v := x.Slice(q, q+k)
	return &v
}

// commonSuffixLen is how many bytes a and b end with alike, at most limit.
func commonSuffixLen(a, b string, limit int) int {
	n := 0
	for n < limit && n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}
