package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
)

// The items of `citecheck run --format html`: one per citation of a
// request (or of each request of --jsonl), built from the same hints and
// findings the text report draws (AppendAll, AppendExplanation), so that
// the page and the terminal show the same places and say the same words.

// RunOutcomes are the outcomes a run's page counts, in the order its
// summary lists them: "valid", then the contract's reasons in their enum
// order (citecheck.Reasons), then "error" for a refused request.
func RunOutcomes() []Outcome {
	out := []Outcome{{Name: "valid", Tone: TonePass}}
	for _, r := range citecheck.Reasons() {
		out = append(out, Outcome{Name: r.String(), Tone: ToneFail})
	}
	return append(out, ErrorOutcome)
}

// AppendRunItems appends one Item per citation of req, in the request's
// order (the order of the {"all": …} answer's citations): all is
// CheckAll's result for req (or ex.All), ex its explanation or nil.
// line is the request's line in a --jsonl input, from 1; 0 for a run of
// one request. An item's ID is "r{line}c{index}", its Head "request
// {line}, citation {index} "{id}"" ("citation {index} "{id}"" for one
// request), its Outcome "valid" or the reason's name.
//
// The passages: a valid citation's cited span; a failing one's cited
// span (compared with its quote) and, from citecheck.Hint, where what it
// claims stands (each match, the match elsewhere, the resolved start), and
// the nearest reading (with ex, a normalized or elided finding; else the
// longest leading part the source has), compared character by character.
// Why is the text report's block for the citation in words; Fix the fix
// of ex in words.
//
// Cost: per failing citation, its hint (citecheck.Checker.Hint, through
// one Checker: each source indexed once per request); per valid quote
// citation without a claimed start, a scan of its source up to its
// anchor; each source's code point index built once per request.
// BenchmarkRunItems measures the page: 1,000 citations over 16
// sources of 512 KiB.
func AppendRunItems(dst []Item, req *citecheck.Request, all *citecheck.AllResult, ex *citecheck.Explanation, line int) []Item {
	r := newRenderer(nil, req, Options{})
	r.explain, r.words = ex, true
	for k := range all.Citations {
		dst = append(dst, r.runItem(all, k, line))
	}
	return dst
}

// RunErrorItem is the item of a refused request: its outcome "error",
// the error's message, at line (0 for a run of one request).
func RunErrorItem(e *citecheck.Error, line int) Item {
	head := "the request"
	if line > 0 {
		head = "request " + strconv.Itoa(line)
	}
	where := "the body"
	if e.Path != "" {
		where = e.Path
	}
	return Item{
		ID:      "r" + strconv.Itoa(line),
		Head:    head,
		Outcome: ErrorOutcome.Name,
		Why:     fmt.Sprintf("refused: %s at %s", e.Code, where),
		Error:   e.Message,
	}
}

func (r *renderer) runItem(all *citecheck.AllResult, k, line int) Item {
	cit := &r.req.Citations[k]
	o := &all.Citations[k]
	head := fmt.Sprintf("citation %d %s", k, quote(cit.CitationID, quotedCols))
	if line > 0 {
		head = fmt.Sprintf("request %d, %s", line, head)
	}
	it := Item{
		ID:      "r" + strconv.Itoa(line) + "c" + strconv.Itoa(k),
		Head:    head,
		Outcome: "valid",
		Text:    claimText(cit),
		Source:  cit.SourceID,
	}
	if o.Valid() {
		x := r.source(cit)
		start, end := validSpan(x, cit)
		it.Why = "holds: " + claim(cit)
		if start >= 0 {
			it.Passages = []Passage{NewPassage("cited span", x, start, end, false)}
		}
		return it
	}
	it.Outcome = o.Reason.String()
	d := o.Discrepancy()
	r.dst = r.dst[:0]
	r.line("claim", "%s", claim(cit))
	r.citationBody(d, false)
	it.Why = strings.TrimSuffix(string(r.dst), "\n")
	it.Passages = distinct(r.runPassages(d))
	if r.explain != nil {
		if fix := r.explain.Citations[k].Fix; fix != nil {
			it.Fix = FixWords(cit, fix)
		}
	}
	return it
}

// claimText is what a citation claims its source reads: a position
// citation's quote, a quote citation's exact.
func claimText(cit *citecheck.Citation) string {
	if cit.Selector.Type == citecheck.PositionSelector {
		return cit.Quote
	}
	return cit.Selector.Exact
}

// validSpan is where a citation that holds reads its claim, in code
// points: a position citation's span; a quote citation's exact (AnchorSpan).
func validSpan(x *citecheck.Text, cit *citecheck.Citation) (int, int) {
	sel := &cit.Selector
	if sel.Type == citecheck.PositionSelector {
		return sel.Start, sel.End
	}
	claimed := -1
	if cit.HasClaimedStart {
		claimed = cit.ClaimedStart
	}
	return AnchorSpan(x, sel.Exact, sel.Prefix, sel.Suffix, claimed)
}

// runPassages are the places of the source a failing citation is shown
// against, from the same hint its text block draws.
func (r *renderer) runPassages(d *citecheck.Discrepancy) []Passage {
	cit := &r.req.Citations[d.CitationIndex]
	if d.Reason == citecheck.ReasonUnknownSource || d.Reason == citecheck.ReasonVersionMismatch {
		return nil
	}
	x := r.source(cit)
	h := r.hint(d)
	sel := &cit.Selector
	var ps []Passage
	if sel.Type == citecheck.PositionSelector {
		switch d.Reason {
		case citecheck.ReasonSpanReversed:
			ps = append(ps, NewPassage("cited span", x, sel.End, sel.Start, false))
		case citecheck.ReasonSpanOutOfRange:
			ps = append(ps, NewPassage("cited span", x, min(sel.Start, x.Len()), x.Len(), true))
		case citecheck.ReasonQuoteMismatch:
			ps = append(ps, NewPassage("cited span", x, sel.Start, sel.End, true))
		}
		for _, s := range h.Starts {
			ps = append(ps, NewPassage("found elsewhere", x, s, s+h.Length, false))
		}
		if h.Occurrences == 0 {
			ps = r.nearest(ps, x, d.CitationIndex, h)
		}
		return ps
	}
	n := utf8.RuneCountInString(sel.Exact)
	switch d.Reason {
	case citecheck.ReasonExactNotFound:
		ps = r.nearest(ps, x, d.CitationIndex, h)
	case citecheck.ReasonPrefixMismatch, citecheck.ReasonSuffixMismatch:
		// exact stands; its context does not (Why says what the source has).
		m := d.Detail.MatchStarts[0]
		ps = append(ps, NewPassage("match", x, m, m+n, false))
	case citecheck.ReasonAmbiguousAnchor:
		for _, s := range h.Starts {
			ps = append(ps, NewPassage("match", x, s, s+n, false))
		}
	case citecheck.ReasonPositionMismatch:
		s := *h.ResolvedStart
		ps = append(ps, NewPassage("match", x, s, s+n, false),
			NewPassage("cited span", x, cit.ClaimedStart, cit.ClaimedStart+n, true))
	}
	return ps
}

// nearest appends the nearest reading of a claim the source does not hold
// exactly: with an explanation, the reading its findings give
// (NearestReading); else the longest leading part the hint says the
// source holds, carried on for the claim's length, so that the page marks
// where the two part. Nothing when the source holds not even its first
// character.
func (r *renderer) nearest(ps []Passage, x *citecheck.Text, k int, h *citecheck.Suggestion) []Passage {
	cit := &r.req.Citations[k]
	if r.explain != nil {
		if p, ok := NearestReading(x, cit, r.explain.Citations[k].Findings); ok {
			return append(ps, p)
		}
	}
	if p := h.Partial; p != nil && p.Length > 0 {
		n := utf8.RuneCountInString(claimText(cit))
		return append(ps, NewPassage("nearest reading", x, p.Start, p.Start+n, true))
	}
	return ps
}

// NearestReading is the passage of x, labelled "nearest reading", that a
// failing citation's findings (citecheck.Explain's, or an annotation
// selector's) put nearest its claim: the first normalized or elided
// finding; else a partial finding's leading part, carried on for the
// claim's length so that the page marks where the two part. A finding
// spans the whole claim, a quote citation's prefix, exact and suffix: the
// passage is cut to the exact when the span is as long as the claim (else
// it is the whole span, not compared). false when no finding places it.
func NearestReading(x *citecheck.Text, cit *citecheck.Citation, findings []citecheck.Finding) (Passage, bool) {
	for _, f := range findings {
		if f.Kind == citecheck.FindingNormalized || f.Kind == citecheck.FindingElided {
			start, end, exact := findingSpan(cit, f.Start, f.End)
			return NewPassage("nearest reading", x, start, end, exact), true
		}
	}
	for _, f := range findings {
		if f.Kind != citecheck.FindingPartial || f.Length == 0 {
			continue
		}
		np := 0
		if cit.Selector.Type == citecheck.QuoteSelector {
			np = utf8.RuneCountInString(cit.Selector.Prefix)
		}
		if f.Length <= np { // only (part of) the prefix was found
			return Passage{}, false
		}
		start := f.Start + np
		return NewPassage("nearest reading", x, start, start+utf8.RuneCountInString(claimText(cit)), true), true
	}
	return Passage{}, false
}

// findingSpan cuts a finding's span, which covers the citation's whole
// claim (a quote citation's prefix, exact and suffix), to the part that
// reads as the item's text, and says whether it can be compared with it:
// when the span is as long as the claim, prefix and suffix are cut off by
// their lengths; otherwise the whole span is shown, not compared unless
// the claim is the text alone.
func findingSpan(cit *citecheck.Citation, start, end int) (int, int, bool) {
	sel := &cit.Selector
	if sel.Type == citecheck.PositionSelector || sel.Prefix == "" && sel.Suffix == "" {
		return start, end, true
	}
	np, ns := utf8.RuneCountInString(sel.Prefix), utf8.RuneCountInString(sel.Suffix)
	if end-start == np+utf8.RuneCountInString(sel.Exact)+ns {
		return start + np, end - ns, true
	}
	return start, end, false
}

// AnchorSpan is where a quote selector that holds reads its exact, in
// code points: at claimed when claimed >= 0, else where its whole anchor
// (prefix, exact, suffix) first stands (a scan of x up to it, and
// O(log n) lookups of x's index). -1, -1 when it stands nowhere.
func AnchorSpan(x *citecheck.Text, exact, prefix, suffix string, claimed int) (int, int) {
	n := utf8.RuneCountInString(exact)
	if claimed >= 0 {
		return claimed, claimed + n
	}
	i := strings.Index(x.String(), prefix+exact+suffix)
	if i < 0 {
		return -1, -1
	}
	// The code point at byte i: x's index answers the other way round.
	start := sort.Search(x.Len(), func(cp int) bool { return x.ByteOffset(cp) >= i }) + utf8.RuneCountInString(prefix)
	return start, start + n
}

// FixWords says in words what a fix changes in a citation (an
// explanation's Fix for cit): the span, the claimed start, an added or
// extended prefix or suffix.
func FixWords(cit, fix *citecheck.Citation) string {
	var parts []string
	a, b := &cit.Selector, &fix.Selector
	if a.Type == citecheck.PositionSelector {
		if a.Start != b.Start || a.End != b.End {
			parts = append(parts, fmt.Sprintf("set start %d and end %d (they are %d and %d)", b.Start, b.End, a.Start, a.End))
		}
	} else {
		switch {
		case fix.HasClaimedStart && !cit.HasClaimedStart:
			parts = append(parts, fmt.Sprintf("add claimed_start %d", fix.ClaimedStart))
		case fix.HasClaimedStart && fix.ClaimedStart != cit.ClaimedStart:
			parts = append(parts, fmt.Sprintf("set claimed_start to %d (it is %d)", fix.ClaimedStart, cit.ClaimedStart))
		}
		parts = contextWords(parts, "prefix", a.Prefix, b.Prefix)
		parts = contextWords(parts, "suffix", a.Suffix, b.Suffix)
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "; ") + ": the fixed citation holds"
}

func contextWords(parts []string, name, was, is string) []string {
	switch {
	case was == is:
		return parts
	case was == "":
		return append(parts, fmt.Sprintf("add %s %s", name, quote(is, quotedCols)))
	}
	return append(parts, fmt.Sprintf("set %s to %s (it is %s)", name, quote(is, quotedCols), quote(was, quotedCols)))
}

// distinct drops each passage at the same place as one before it (a
// nearest reading that is the cited span itself), keeping the first.
func distinct(ps []Passage) []Passage {
	out := ps[:0]
	for _, p := range ps {
		seen := false
		for _, q := range out {
			seen = seen || q.Start == p.Start && q.End == p.End
		}
		if !seen {
			out = append(out, p)
		}
	}
	return out
}
