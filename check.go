package citecheck

import (
	"unsafe"

	"github.com/citecheck/citecheck/internal/search"
	"github.com/citecheck/citecheck/internal/utext"
)

// Run decodes body and checks it: the whole of citation-batch-check@1.0.0
// for one request. Exactly one of the results is non-nil.
func Run(body []byte) (*Result, error) {
	req, err := Decode(body)
	if err != nil {
		return nil, err
	}
	return Check(req), nil
}

// Check checks the citations in array order and stops at the first that
// fails (spec §2). req must come from [Decode] or satisfy the same rules.
//
// Cost: per position citation, O(quote) after a linear index of its source;
// per quote citation, one linear scan of its source for prefix+exact+suffix
// when it passes, at most three (adding exact and prefix+exact) when it
// fails, whatever the number of occurrences. A source whose quote
// citations would scan it for longer than indexing it takes is indexed
// once (its sparse index in internal/search, about a quarter of a byte a byte of text), and an
// anchor of 31 bytes or more is then found in time linear in its length
// plus the candidates of its rarest grams.
func Check(req *Request) *Result { return checkFrom(NewChecker(req)) }

// checkFrom is Check with the Checker given (CheckParallel's, when it
// decides against workers, keeps the indexes it has built).
func checkFrom(c *Checker) *Result {
	req := c.req
	for k := range req.Citations {
		if d := c.Citation(k); d != nil {
			return &Result{Reason: d.Reason, FirstDiscrepancy: d, CitationsChecked: k + 1}
		}
	}
	return &Result{Valid: true, CitationsChecked: len(req.Citations)}
}

// Checker checks the citations of one request one at a time, in any order,
// and keeps each source's code point index for the citations after. It is
// not safe for concurrent use; create one per goroutine.
type Checker struct {
	req   *Request
	index []*indexedText // by source, built on first use
	// anchor is where each quote citation writes prefix+exact+suffix, the
	// pattern it scans for, reused from one citation to the next: long
	// anchors (up to 18 KiB) then cost one allocation per request, not one
	// per citation (fresh memory is what a one-shot run pays most for).
	anchor []byte
}

// NewChecker returns a Checker for req (see [Check] for what req must be).
func NewChecker(req *Request) *Checker {
	return &Checker{req: req, index: make([]*indexedText, len(req.Sources))}
}

// Citation checks citation k alone: nil when it holds, else the
// discrepancy to report, its reason included.
func (c *Checker) Citation(k int) *Discrepancy {
	cit := &c.req.Citations[k]
	// d is copied to the heap only when the citation fails: one that
	// holds, the usual case, allocates nothing.
	d := Discrepancy{CitationIndex: k, CitationID: cit.CitationID, SelectorType: cit.Selector.Type}
	switch j, versions := c.lookup(cit); {
	case j < 0 && versions == nil:
		d.Detail.Field, d.Reason = "source_id", ReasonUnknownSource
	case j < 0:
		d.Detail.Field, d.Detail.AvailableVersions, d.Reason = "version", versions, ReasonVersionMismatch
	case cit.Selector.Type == PositionSelector:
		d.Reason = checkPosition(c.text(j), cit, &d.Detail)
	default:
		d.Reason = checkQuote(c.text(j), cit, &d.Detail, &c.anchor)
	}
	if d.Reason == ReasonNone {
		return nil
	}
	failed := d
	return &failed
}

// lookup finds the citation's source (spec §2.1): its index in the
// request's sources, or -1 and the versions supplied for its source_id, in
// input order (none: the source_id is unknown).
func (c *Checker) lookup(cit *Citation) (int, []string) {
	if j := c.source(cit); j >= 0 {
		return j, nil
	}
	var versions []string
	for _, s := range c.req.Sources {
		if s.SourceID == cit.SourceID {
			versions = append(versions, s.Version)
		}
	}
	return -1, versions
}

// source is the index of the citation's source in the request's sources,
// or -1: lookup without the versions of a miss. Linear in the sources.
func (c *Checker) source(cit *Citation) int {
	for j := range c.req.Sources {
		if s := &c.req.Sources[j]; s.SourceID == cit.SourceID && s.Version == cit.Version {
			return j
		}
	}
	return -1
}

// text returns the index of source j, built on first use, with the plan
// of its quote citations' scans when they may pay for a sparse index.
func (c *Checker) text(j int) *indexedText {
	if c.index[j] == nil {
		src := &c.req.Sources[j]
		var p search.Plan
		if n := len(src.Text); search.MayIndex(n) {
			for k := range c.req.Citations {
				cit := &c.req.Citations[k]
				if sel := &cit.Selector; sel.Type == QuoteSelector && cit.SourceID == src.SourceID && cit.Version == src.Version {
					p.Add(n, len(sel.Prefix)+len(sel.Exact)+len(sel.Suffix))
				}
			}
		}
		c.index[j] = newIndexedText(src.Text, p)
	}
	return c.index[j]
}

// checkPosition is the passage check (spec §2.2): T[start:end] must read
// exactly as the quote. O(quote) after the index.
func checkPosition(x *indexedText, cit *Citation, d *Detail) Reason {
	start, end, n := cit.Selector.Start, cit.Selector.End, x.Len()
	if 0 <= start && start <= end && end <= n && x.String()[x.ByteAt(start):x.ByteAt(end)] == cit.Quote {
		return ReasonNone // nothing to report, nothing allocated
	}
	d.Start, d.End, d.TextLength = intPtr(start), intPtr(end), intPtr(n)
	switch {
	case start < 0: // only a Request built by hand, outside the contract
		d.Field = "start"
		return ReasonSpanOutOfRange
	case start > end:
		d.Field = "end"
		return ReasonSpanReversed
	case end > n:
		d.Field = "end"
		if start > n {
			d.Field = "start"
		}
		return ReasonSpanOutOfRange
	}
	s, q := x.String()[x.ByteAt(start):x.ByteAt(end)], cit.Quote // they differ
	// b: the first differing byte, moved back to the start of its code point
	// (the bytes before it are equal, so it is a boundary in both strings).
	b := 0
	for b < len(s) && b < len(q) && s[b] == q[b] {
		b++
	}
	for b > 0 && b < len(s) && s[b]&0xC0 == 0x80 {
		b--
	}
	i := utext.RuneCount(s[:b])
	srcOff := start + i
	d.Field, d.QuoteOffset, d.SourceOffset = "quote", &i, &srcOff
	if b < len(s) {
		ch := utext.FirstRune(s[b:])
		d.ExpectedChar = &ch
	}
	if b < len(q) {
		ch := utext.FirstRune(q[b:])
		d.ClaimedChar = &ch
	}
	return ReasonQuoteMismatch
}

// checkQuote is the anchor check (spec §2.3), stage by stage. It searches
// the whole anchor prefix+exact+suffix first: a passing citation, the usual
// case, is then one scan of the longest and so most selective pattern,
// and neither the search.Occurrences of a common exact nor long contexts cost it
// anything more. Only when that anchor does not occur exactly once at the
// claimed start are the counts the discrepancy reports needed: OE is one
// more scan, for exact; OP comes from the kept search.Occurrences of exact when
// they are few (up to keptOccurrences), from OF when there is no suffix,
// else from one more scan for prefix+exact. At most three scans, each
// linear in text plus pattern, whatever the number of occurrences.
//
// scratch holds the anchor's bytes; the anchor is not kept past the call.
func checkQuote(x *indexedText, cit *Citation, d *Detail, scratch *[]byte) Reason {
	sel := &cit.Selector
	e, p, s := sel.Exact, sel.Prefix, sel.Suffix
	anchor := e
	if p != "" || s != "" {
		*scratch = append(append(append((*scratch)[:0], p...), e...), s...)
		anchor = unsafe.String(unsafe.SliceData(*scratch), len(*scratch))
	}
	of := shift(x.Find(anchor, nil), len(p)) // byte offsets of exact where the whole anchor occurs
	if of.Count == 1 && (!cit.HasClaimedStart || cit.ClaimedStart == x.CodePointAt(of.First[0])) {
		return ReasonNone
	}
	if cit.HasClaimedStart {
		cs := cit.ClaimedStart
		d.ClaimedStart = &cs
	}
	var keep [keptOccurrences]int
	oe := of
	if anchor != e {
		oe = x.Find(e, keep[:])
	}
	d.ExactMatches = intPtr(oe.Count)
	if oe.Count == 0 {
		d.Field = "exact"
		return ReasonExactNotFound
	}
	op := oe // byte offsets of exact where prefix+exact occurs
	if p != "" {
		switch {
		case s == "":
			op = of
		case oe.Complete():
			op = oe.Filter(func(at int) bool { return at >= len(p) && x.String()[at-len(p):at] == p })
		default:
			op = shift(x.Find(p+e, nil), len(p))
		}
		d.PrefixMatches = intPtr(op.Count)
		if op.Count == 0 {
			d.Field, d.MatchStarts = "prefix", matchStarts(x, oe)
			at := d.MatchStarts[0]
			obs := x.Slice(at-utext.RuneCount(p), at)
			d.Observed = &obs
			return ReasonPrefixMismatch
		}
	}
	d.FullMatches = intPtr(of.Count)
	if of.Count == 0 {
		d.Field, d.MatchStarts = "suffix", matchStarts(x, op)
		at := d.MatchStarts[0] + utext.RuneCount(e)
		obs := x.Slice(at, at+utext.RuneCount(s))
		d.Observed = &obs
		return ReasonSuffixMismatch
	}
	d.MatchStarts = matchStarts(x, of)
	if of.Count >= 2 {
		d.Field = "exact"
		return ReasonAmbiguousAnchor
	}
	resolved := d.MatchStarts[0]
	at := min(cit.ClaimedStart, x.Len())
	obs := x.Slice(at, at+utext.RuneCount(e))
	d.Field, d.ResolvedStart, d.Observed = "claimed_start", &resolved, &obs
	return ReasonPositionMismatch
}

// intPtr returns a pointer to a copy of v, so that a detail never points
// into (and so moves to the heap) the search.Occurrences being computed.
func intPtr(v int) *int { return &v }

// keptOccurrences is how many search.Occurrences of exact checkQuote keeps to
// check prefix and suffix in place: at most 64 compares of at most 1 KiB
// each, cheaper than another scan of a long text.
const keptOccurrences = 64

// shift moves the first occurrences right by k bytes: from where
// prefix+exact starts to where exact starts.
func shift(o search.Occurrences, k int) search.Occurrences {
	for i, f := range o.First {
		if f >= 0 {
			o.First[i] = f + k
		}
	}
	return o
}

// matchStarts returns the first two (at most) search.Occurrences as code point indexes.
func matchStarts(x *indexedText, o search.Occurrences) []int {
	starts := make([]int, 0, 2)
	for _, f := range o.First[:min(o.Count, 2)] {
		starts = append(starts, x.CodePointAt(f))
	}
	return starts
}
