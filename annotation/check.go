package annotation

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
)

// Source is a text annotations are checked against: the text an annotation
// client counts positions over (for an HTML page, its body's textContent).
type Source struct {
	IRI     string // as the annotations' target source names it, compared exactly
	Version string // optional: reported with each target checked against it
	Text    string // valid UTF-8
	// Err, when set, says why the source could not be read (its text is
	// then empty): every annotation with a target on it is an error,
	// with this reason, and the others are checked as usual.
	Err *citecheck.Error
}

// Outcome is what checking an annotation, or one of its targets, found.
type Outcome uint8

// The outcomes, in the order of the table. An annotation with
// several targets takes the most severe of theirs (see [Outcome.worse]).
const (
	Anchored  Outcome = iota // every checked selector holds, and they agree
	Moved                    // the quote anchors once, but not at the stored position
	Ambiguous                // the quote anchors several times; the position does not say which
	Orphaned                 // the quote (with its prefix and suffix) is nowhere
	Unchecked                // no TextQuoteSelector to check
	NoSource                 // the target's source was not supplied
	outcomeCount
)

var outcomeNames = [outcomeCount]string{"anchored", "moved", "ambiguous", "orphaned", "unchecked", "no_source"}

// String returns the outcome's name as the output writes it.
func (o Outcome) String() string { return outcomeNames[o] }

// Outcomes lists every outcome in order.
func Outcomes() []Outcome {
	out := make([]Outcome, outcomeCount)
	for i := range out {
		out[i] = Outcome(i)
	}
	return out
}

// severity ranks outcomes for an annotation with several targets: a target
// whose text is lost outweighs one that moved, which outweighs one that
// could not be checked.
var severity = [outcomeCount]int{Anchored: 0, Unchecked: 1, NoSource: 2, Moved: 3, Ambiguous: 4, Orphaned: 5}

func (o Outcome) worse(p Outcome) bool { return severity[o] > severity[p] }

// Report is what checking one annotation found.
type Report struct {
	Annotation *Annotation
	Outcome    Outcome // the most severe of the targets' (Unchecked when it has none)
	Targets    []TargetReport
	// Err is set when a target's source could not be read: the annotation
	// is not checked as a whole, and is reported as an error item with
	// this reason (its path the target's pointer).
	Err *citecheck.Error
}

// TargetReport is what checking one target found.
type TargetReport struct {
	Outcome   Outcome
	Version   string          // the supplied source's version, if it has one
	Checked   []SelectorCheck // the engine's verdict on each checked selector, in selector order
	Unchecked []Skipped       // the selectors not checked, and why
	// Repair is where the target's quote anchors when that differs from its
	// stored position, or when it has none (then only with Locate); nil
	// when nothing is to be repaired or nothing says where. Every repair
	// has been re-checked: the target with it in place, run through the
	// same check, anchors.
	Repair *Repair
	// Rejected is a repair the results pointed to that did not anchor when
	// re-checked in place; it is not given, nor written.
	Rejected *Repair
	err      *citecheck.Error // the source could not be read
}

// SelectorCheck is the engine's verdict on one selector, as a citation:
// a TextQuoteSelector with the position selector's start as claimed_start,
// a TextPositionSelector with the quote selector's exact as its quote.
type SelectorCheck struct {
	Pointer string
	Type    citecheck.SelectorType
	Reason  citecheck.Reason  // ReasonNone when the selector holds
	Detail  *citecheck.Detail // nil when it holds
	// Findings are the engine's readings under which a failing selector
	// would hold (an offset_units finding with units utf16 is a position
	// counted as Hypothesis counts); empty when it holds.
	Findings []citecheck.Finding
	sel      int // index in the target's selectors
}

// Skipped is a selector that was not checked.
type Skipped struct {
	Pointer, Type, Why string
}

// Checker checks annotations against a set of sources. It is not safe for
// concurrent use.
type Checker struct {
	sources map[string]*Source
	lim     citecheck.Limits
	// Locate, when set, finds where the quote of a target without a
	// position anchors, so that a rewrite can add the position: one more
	// scan of the source per such target.
	Locate bool
}

// NewChecker returns a Checker for sources, whose IRIs must be distinct.
// The engine is run on requests of at most lim.Citations citations and
// lim.Sources sources (the contract's, from citecheck.DefaultLimits);
// texts, quotes and contexts may be of any size.
func NewChecker(sources []Source, lim citecheck.Limits) (*Checker, error) {
	c := &Checker{sources: make(map[string]*Source, len(sources)), lim: lim}
	for i := range sources {
		s := &sources[i]
		if _, dup := c.sources[s.IRI]; dup {
			return nil, errors.New("source " + strconv.Quote(s.IRI) + " is supplied twice")
		}
		c.sources[s.IRI] = s
	}
	return c, nil
}

// job is one citation to run for a target, and what it stands for.
type job struct {
	target *plan
	role   role
	sel    int // index in the target's selectors (quote and position roles)
	cit    citecheck.Citation
	reason citecheck.Reason
	detail *citecheck.Detail
	// findings are the engine's for a failing selector (spec §5); probes
	// are only checked.
	findings []citecheck.Finding
}

type role uint8

const (
	roleQuote    role = iota // a TextQuoteSelector, as a quote citation
	rolePosition             // a TextPositionSelector, as a position citation
	roleContext              // probe: prefix+exact+suffix at a stored position
	roleLocate               // probe: where a position-less quote anchors
)

// plan is one target on its way through the checks.
type plan struct {
	t      *Target
	r      *TargetReport
	src    *Source
	quotes []int // indexes of its TextQuoteSelectors
	posns  []int // of its TextPositionSelectors
	jobs   []*job
	locate bool // find where a quote anchors when no position says
}

// claimedStart is the start every position selector of the target names,
// false when it has none or they disagree: a quote is then checked
// without a claimed start, and each position on its own.
func (p *plan) claimedStart() (int, bool) {
	if len(p.posns) == 0 {
		return 0, false
	}
	start := p.t.Selectors[p.posns[0]].Start
	for _, i := range p.posns[1:] {
		if p.t.Selectors[i].Start != start {
			return 0, false
		}
	}
	return start, true
}

// starts lists the distinct starts of the target's position selectors,
// in selector order.
func (p *plan) starts() []int {
	var out []int
	for _, i := range p.posns {
		if s := p.t.Selectors[i].Start; !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Check checks the annotations and returns one report each, in order. The
// citations of all of them are run in batches within the checker's limits,
// but each annotation's outcome is what it would be alone: the verdicts
// are per citation, and each failing selector is diagnosed on a budget of
// its own, linear in its quote and its source
// (citecheck.ExplainEachContext), so its findings never depend on the
// other annotations checked with it.
//
// Cost: per selector, the engine's check and, when it fails, its
// explanation (a few linear scans of the source); per ambiguous anchor,
// one position check per distinct stored start; one more scan per quote
// whose position is not stated (with Locate) or not agreed on; and per
// repaired target, its check again with the repair in place (no
// explanation).
func (c *Checker) Check(anns []*Annotation) []Report {
	reports, _ := c.CheckContext(context.Background(), anns)
	return reports
}

// CheckContext is Check, stopping once ctx is done (the engine looks at it
// as citecheck.ExplainContext does): it then returns nil and ctx.Err().
func (c *Checker) CheckContext(ctx context.Context, anns []*Annotation) ([]Report, error) {
	reports := make([]Report, len(anns))
	var plans []*plan
	for i, a := range anns {
		reports[i] = Report{Annotation: a, Outcome: Unchecked, Targets: make([]TargetReport, len(a.Targets))}
		for j := range a.Targets {
			if p := c.plan(&a.Targets[j], &reports[i].Targets[j], c.Locate); p != nil {
				plans = append(plans, p)
			}
		}
	}
	if err := c.settleAll(ctx, plans, true); err != nil {
		return nil, err
	}
	if err := c.recheck(ctx, plans); err != nil {
		return nil, err
	}
	for i := range reports {
		reports[i].Outcome = reports[i].worst(false)
		for j := range reports[i].Targets {
			if e := reports[i].Targets[j].err; e != nil && reports[i].Err == nil {
				reports[i].Err = e
			}
		}
	}
	return reports, nil
}

// settleAll runs the plans' citations, then the probes their verdicts ask
// for, and settles each target; with explain, failing selectors get the
// engine's findings.
func (c *Checker) settleAll(ctx context.Context, plans []*plan, explain bool) error {
	var first []*job
	for _, p := range plans {
		first = append(first, p.jobs...)
	}
	if err := c.run(ctx, first, explain); err != nil {
		return err
	}
	var probes []*job
	for _, p := range plans {
		probes = append(probes, c.judge(p)...)
	}
	if err := c.run(ctx, probes, false); err != nil {
		return err
	}
	for _, p := range plans {
		c.settle(p)
	}
	return nil
}

// recheck runs every target that has a repair through the same check
// again, with the repair in place as a rewrite writes it (the numbers of
// each position selector replaced, or a position selector added), and
// withdraws each repair that does not then anchor. Cost: one more check of
// each repaired target's selectors, without findings.
func (c *Checker) recheck(ctx context.Context, plans []*plan) error {
	var again []*plan
	var of []*plan
	for _, p := range plans {
		if p.r.Repair == nil {
			continue
		}
		t := p.t.repaired(*p.r.Repair)
		if q := c.plan(&t, &TargetReport{}, false); q != nil {
			again, of = append(again, q), append(of, p)
		}
	}
	if err := c.settleAll(ctx, again, false); err != nil {
		return err
	}
	for k, q := range again {
		if q.r.Outcome != Anchored {
			r := of[k].r
			r.Rejected, r.Repair = r.Repair, nil
		}
	}
	return nil
}

// repaired is the target as a rewrite with the repair leaves it.
func (t *Target) repaired(rp Repair) Target {
	u := *t
	u.Selectors = slices.Clone(t.Selectors)
	positioned := false
	for i := range u.Selectors {
		if s := &u.Selectors[i]; s.Type == TextPosition {
			s.Start, s.End, positioned = rp.Start, rp.End, true
		}
	}
	if !positioned {
		u.Selectors = append(u.Selectors, Selector{Type: TextPosition, Start: rp.Start, End: rp.End,
			Pointer: t.Pointer + "/selector/" + strconv.Itoa(len(t.Selectors))})
	}
	return u
}

// worst is the most severe of the targets' outcomes, Unchecked when there
// are none; with repaired, a target with a repair counts as anchored.
func (r *Report) worst(repaired bool) Outcome {
	if len(r.Targets) == 0 {
		return Unchecked
	}
	w := Anchored
	for _, t := range r.Targets {
		o := t.Outcome
		if repaired && t.Repair != nil {
			o = Anchored
		}
		if o.worse(w) {
			w = o
		}
	}
	return w
}

// plan lists a target's citations, or settles it at once when there is
// nothing to check (nil).
func (c *Checker) plan(t *Target, r *TargetReport, locate bool) *plan {
	p := &plan{t: t, r: r, locate: locate}
	for i := range t.Selectors {
		s := &t.Selectors[i]
		switch s.Type {
		case TextQuote:
			p.quotes = append(p.quotes, i)
		case TextPosition:
			p.posns = append(p.posns, i)
		case "IRI":
			r.Unchecked = append(r.Unchecked, Skipped{s.Pointer, s.Type, "a selector given by reference only"})
		case "":
			r.Unchecked = append(r.Unchecked, Skipped{s.Pointer, s.Type, "a selector without a type"})
		default:
			r.Unchecked = append(r.Unchecked, Skipped{s.Pointer, s.Type, "not a text selector the engine checks"})
		}
		for in, ref := s, s.RefinedBy; ref != nil; in, ref = ref, ref.RefinedBy {
			why := "refines the segment of the " + typeName(in.Type) + " it is in; refinements are not checked"
			if ref.RefinedBy == nil && ref.Refinements > 0 { // the chain goes deeper than is kept
				why += " (nor the " + strconv.Itoa(ref.Refinements) + " more within it, not listed)"
			}
			r.Unchecked = append(r.Unchecked, Skipped{ref.Pointer, ref.Type, why})
		}
	}
	if len(t.Selectors) == 0 {
		r.Unchecked = append(r.Unchecked, Skipped{t.Pointer, "", "the target has no selector: it is the whole resource"})
	}
	if len(p.quotes) == 0 {
		for _, i := range p.posns {
			r.Unchecked = append(r.Unchecked, Skipped{t.Selectors[i].Pointer, TextPosition, "no TextQuoteSelector beside it says what it should read"})
		}
		r.Outcome = Unchecked
		return nil
	}
	if p.src = c.sources[t.Source]; p.src == nil {
		r.Outcome = NoSource
		return nil
	}
	if e := p.src.Err; e != nil {
		r.Outcome = NoSource
		r.err = &citecheck.Error{Code: e.Code, Path: t.Pointer, Message: t.Pointer + ": its source " + strconv.Quote(t.Source) + " could not be read: " + e.Message}
		return nil
	}
	r.Version = p.src.Version
	for _, i := range p.quotes {
		q := &t.Selectors[i]
		cit := c.citation(p, citecheck.Selector{Type: citecheck.QuoteSelector, Exact: q.Exact, Prefix: q.Prefix, Suffix: q.Suffix})
		if start, ok := p.claimedStart(); ok {
			cit.ClaimedStart, cit.HasClaimedStart = start, true
		}
		p.jobs = append(p.jobs, &job{target: p, role: roleQuote, sel: i, cit: cit})
	}
	for _, i := range p.posns {
		if len(p.quotes) != 1 {
			r.Unchecked = append(r.Unchecked, Skipped{t.Selectors[i].Pointer, TextPosition, "several TextQuoteSelectors beside it: which one it should read is not said"})
			continue
		}
		s := &t.Selectors[i]
		cit := c.citation(p, citecheck.Selector{Type: citecheck.PositionSelector, Start: s.Start, End: s.End})
		cit.Quote = t.Selectors[p.quotes[0]].Exact
		p.jobs = append(p.jobs, &job{target: p, role: rolePosition, sel: i, cit: cit})
	}
	return p
}

func typeName(t string) string {
	if t == "" {
		return "selector"
	}
	return t
}

func (c *Checker) citation(p *plan, sel citecheck.Selector) citecheck.Citation {
	return citecheck.Citation{SourceID: p.src.IRI, Version: p.src.Version, Selector: sel}
}

// judge records the first verdicts and returns the probes that decide
// what they leave open, for a target with one quote:
//   - an ambiguous quote: at each stored start, whether the whole anchor
//     stands there (a probe per distinct start);
//   - a quote that anchors once without a claimed start (no position, with
//     Locate; or positions that disagree): where it anchors.
func (c *Checker) judge(p *plan) []*job {
	for _, j := range p.jobs {
		p.r.Checked = append(p.r.Checked, SelectorCheck{Pointer: p.t.Selectors[j.sel].Pointer,
			Type: j.cit.Selector.Type, Reason: j.reason, Detail: j.detail, Findings: j.findings, sel: j.sel})
	}
	slices.SortFunc(p.r.Checked, func(a, b SelectorCheck) int { return a.sel - b.sel })
	if len(p.quotes) != 1 {
		return nil
	}
	q := p.jobs[0]
	_, claimed := p.claimedStart()
	var probes []*job
	switch {
	case q.reason == citecheck.ReasonAmbiguousAnchor:
		for _, start := range p.starts() {
			if probe := c.contextProbe(p, start); probe != nil {
				probes = append(probes, probe)
			}
		}
	case q.reason == citecheck.ReasonNone && !claimed && (len(p.posns) > 0 || p.locate):
		cit := c.citation(p, q.cit.Selector)
		cit.HasClaimedStart = true // at 0: the engine then says where it really starts
		probes = append(probes, &job{target: p, role: roleLocate, cit: cit})
	}
	return probes
}

// contextProbe is a position citation of prefix+exact+suffix around a
// stored start: it holds when the whole anchor stands there. nil when the
// prefix cannot fit before start.
func (c *Checker) contextProbe(p *plan, start int) *job {
	q := &p.t.Selectors[p.quotes[0]]
	np := utf8.RuneCountInString(q.Prefix)
	if np > start {
		return nil
	}
	anchor := q.Prefix + q.Exact + q.Suffix
	cit := c.citation(p, citecheck.Selector{Type: citecheck.PositionSelector, Start: start - np, End: start - np + utf8.RuneCountInString(anchor)})
	cit.Quote = anchor
	return &job{target: p, role: roleContext, cit: cit, sel: start}
}

// settle decides the target's outcome from the verdicts and probes, and
// the repair: the one position where the quote anchors, when the verdicts
// determine it and the stored positions do not all name it.
func (c *Checker) settle(p *plan) {
	r := p.r
	r.Outcome = Anchored
	if len(p.quotes) != 1 {
		// Several quotes: each is judged alone; the worst decides.
		for _, j := range p.jobs {
			if o := quoteOutcome(j.reason); j.role == roleQuote && o.worse(r.Outcome) {
				r.Outcome = o
			}
		}
		return
	}
	q := p.jobs[0]
	exactLen := utf8.RuneCountInString(q.cit.Selector.Exact)
	claim, claimed := p.claimedStart()
	var holding []int // the stored starts where the whole anchor stands
	var located *job
	for _, j := range p.jobs {
		switch {
		case j.role == roleContext && j.reason == citecheck.ReasonNone:
			holding = append(holding, j.sel)
		case j.role == roleLocate:
			located = j
		}
	}
	at := -1 // where the quote anchors, when the verdicts say
	r.Outcome = quoteOutcome(q.reason)
	switch {
	case q.reason == citecheck.ReasonPositionMismatch:
		at = *q.detail.ResolvedStart
	case q.reason == citecheck.ReasonNone && claimed:
		at = claim
	case q.reason == citecheck.ReasonNone && located != nil:
		at = 0 // the probe claimed 0: it holds there, or says where instead
		if located.detail != nil {
			at = *located.detail.ResolvedStart
		}
	case q.reason == citecheck.ReasonAmbiguousAnchor && len(holding) == 1:
		at = holding[0] // the whole anchor stands at one stored start: it says which match
	case q.reason == citecheck.ReasonAmbiguousAnchor && claimed:
		// The engine reads claimed_start in other units (spec §5): when one
		// reading puts the whole anchor at one of the matches, the stored
		// position counts those units and says which match is meant.
		if u, ok := unitsReading(q); ok {
			at = u
		}
	}
	if at < 0 {
		return
	}
	if len(p.posns) == 0 {
		if p.locate {
			r.Repair = &Repair{Start: at, End: at + exactLen}
		}
		return
	}
	for _, i := range p.posns {
		if s := &p.t.Selectors[i]; s.Start != at || s.End != at+exactLen {
			r.Outcome = Moved
			r.Repair = &Repair{Start: at, End: at + exactLen}
			return
		}
	}
	r.Outcome = Anchored // every stored position names the one anchor
}

// unitsReading returns where the exact of an ambiguous quote citation
// starts when its claimed_start, read in UTF-16 code units or UTF-8 bytes,
// names one of its matches: the engine's offset_units findings, which span
// the whole anchor, all at one place.
func unitsReading(q *job) (int, bool) {
	at := -1
	for _, f := range q.findings {
		if f.Kind != citecheck.FindingOffsetUnits {
			continue
		}
		p := f.Start + utf8.RuneCountInString(q.cit.Selector.Prefix)
		if at >= 0 && p != at {
			return 0, false
		}
		at = p
	}
	return at, at >= 0
}

// quoteOutcome is what a quote citation's verdict alone means.
func quoteOutcome(reason citecheck.Reason) Outcome {
	switch reason {
	case citecheck.ReasonNone:
		return Anchored
	case citecheck.ReasonPositionMismatch:
		return Moved
	case citecheck.ReasonAmbiguousAnchor:
		return Ambiguous
	}
	return Orphaned // exact_not_found, prefix_mismatch, suffix_mismatch
}

// run checks the jobs' citations in requests of at most lim.Citations
// citations on at most lim.Sources sources, and records each verdict and,
// with explain, the engine's findings on those that fail, each found on
// its own budget (citecheck.ExplainEachContext): a request only groups
// the calls, it never shares their budget.
func (c *Checker) run(ctx context.Context, jobs []*job, explain bool) error {
	for len(jobs) > 0 {
		req := &citecheck.Request{}
		seen := map[*Source]bool{}
		n := 0
		for ; n < len(jobs) && n < c.lim.Citations; n++ {
			src := jobs[n].target.src
			if !seen[src] {
				if len(req.Sources) == c.lim.Sources {
					break
				}
				seen[src] = true
				req.Sources = append(req.Sources, citecheck.Source{SourceID: src.IRI, Version: src.Version, Text: src.Text})
			}
			cit := jobs[n].cit
			cit.CitationID = strconv.Itoa(n)
			req.Citations = append(req.Citations, cit)
		}
		if explain { // the selectors themselves
			ex, err := citecheck.ExplainEachContext(ctx, req)
			if err != nil {
				return err
			}
			for k := range ex.All.Citations {
				o := &ex.All.Citations[k]
				jobs[k].reason, jobs[k].detail, jobs[k].findings = o.Reason, o.Detail, ex.Citations[k].Findings
			}
		} else { // probes: only their verdict counts
			all, err := citecheck.CheckAllContext(ctx, req)
			if err != nil {
				return err
			}
			for k := range all.Citations {
				o := &all.Citations[k]
				jobs[k].reason, jobs[k].detail = o.Reason, o.Detail
			}
		}
		for _, j := range jobs[:n] {
			if j.role >= roleContext {
				j.target.jobs = append(j.target.jobs, j)
			}
		}
		jobs = jobs[n:]
	}
	return nil
}
