package citecheck

import (
	"context"

	"github.com/citecheck/citecheck/internal/search"
)

// ExplainEachContext is ExplainContext with each failing citation diagnosed as if
// it were alone in a request with its source: on a budget of its own, linear in its
// claim and its source (explainWorkPerKiB units a KiB of the two, at least
// explainWorkMin, plus the source's folding and its other once-per-source linear
// passes, always granted), so its findings never depend on the other
// citations of req. It is for callers that batch independent items (quotations,
// annotations) into one request: an item's outcome is then what it would be
// alone.
//
// The verdicts are CheckAll's on req, unchanged; the findings' offsets count
// code points of the cited source, as ExplainContext's do.
//
// Cost: CheckAll's, plus, for each failing citation of a claim of m bytes
// citing a source of n bytes, what its diagnosis as a request of that
// citation and its source alone does (docs/explain.md#the-bound): its
// questions, charged at most max(2(m + n), 256 Ki) units plus
// maxStepWork(n, m), and the indexes its searchers build, under 5 units a
// byte of each reading of the source; plus, once per call for each cited
// source, the readings every citation of it shares (sourceReadings): its
// folding (at most 52 units a byte), its skeleton (a quarter of that) and
// its UTF-16 offsets (a pass). Each citation is charged the shared
// readings as if it built them, so its cuts are what they would be alone.
// All linear in Σ over the failing citations of claim + cited source, so
// a caller that admits work by that sum bounds it. Memory: one source's
// readings at a time (the citations are explained source by source): its
// folded reading and its skeleton, at most about 11 bytes a byte of it
// (about 2 on real text), and a citation's searchers and their indexes
// (2 bytes a byte of a reading), dropped after it. ctx is
// looked at as ExplainContext looks at it; stopped, it returns nil and
// ctx.Err().
func ExplainEachContext(ctx context.Context, req *Request) (*Explanation, error) {
	ex, _, err := explainEach(ctx, req, true)
	return ex, err
}

// explainEach is ExplainEachContext, which shares each source's readings
// (sourceReadings) between its citations when share is true; false
// explains each citation in a request of its own, rebuilding them, as
// the tests and benchmarks it is compared with do. It also returns how
// many readings it built.
func explainEach(ctx context.Context, req *Request, share bool) (*Explanation, *readingsBuilt, error) {
	c := NewChecker(req)
	all, err := checkAllContext(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	ex := &Explanation{All: all, Citations: make([]CitationExplanation, len(req.Citations))}
	// Source by source, so that one source's readings are held at a time:
	// each citation is explained alone, so the order changes nothing.
	bySource := make([][]int, len(req.Sources))
	for k := range all.Citations {
		o := &all.Citations[k]
		if o.Valid() {
			continue
		}
		j, _ := c.lookup(&req.Citations[o.CitationIndex])
		if j < 0 { // unknown_source, version_mismatch: no text to read
			ex.Citations[k] = CitationExplanation{Findings: []Finding{}}
			continue
		}
		bySource[j] = append(bySource[j], k)
	}
	built := new(readingsBuilt)
	for j, ks := range bySource {
		var r *sourceReadings
		var x *indexedText // the check's code point index of the source, when shared
		if share {
			r, x = new(sourceReadings), c.text(j)
		}
		for _, k := range ks {
			if !share {
				r = new(sourceReadings)
			}
			o := &all.Citations[k]
			ce, err := explainAlone(ctx, &req.Sources[j], x, r, built, &req.Citations[o.CitationIndex], o)
			if err != nil {
				return nil, nil, err
			}
			ex.Citations[k] = ce
		}
	}
	return ex, built, nil
}

// explainAlone explains failing citation cit, whose outcome o the whole
// request's check gave, as the one citation of a request holding it and
// its source src alone, on that request's budget: with src's readings r
// and, unless x is nil, x's code point index of src, which neither
// change what it finds nor what it is charged (see sourceReadings); what
// searches learn of src, which changes what they cost, is its own.
func explainAlone(ctx context.Context, src *Source, x *indexedText, r *sourceReadings, built *readingsBuilt, cit *Citation, o *CitationOutcome) (CitationExplanation, error) {
	sub := &Request{Sources: []Source{*src}, Citations: []Citation{*cit}}
	e := &explainer{req: sub, c: NewChecker(sub), folded: make([]*foldedSearch, 1),
		skeletons: make([]*skeletonSearch, 1), readings: []*sourceReadings{r}, built: built}
	if x != nil {
		// A request of one citation plans no index of its text (a plan
		// of one anchor decides nothing: search.NewText).
		e.c.index[0] = &indexedText{Index: x.Index, Text: search.NewText(src.Text, search.Plan{})}
	}
	e.budget = search.NewBudget(ctx, max(explainWorkMin, explainWorkPerKiB*(len(claimOf(cit))+len(src.Text))/1024))
	alone := *o
	alone.CitationIndex = 0
	ce := e.citation(&alone, 1)
	if e.budget.Poll(); e.budget.Err() != nil {
		return CitationExplanation{}, e.budget.Err()
	}
	return ce, nil
}
