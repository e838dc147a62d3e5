package quotes

import (
	"bytes"
	"context"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
)

// Source is a text quotations are checked against.
type Source struct {
	ID   string // what a marker, a source_id or a document_index names, compared exactly
	Text string // valid UTF-8
	// Blocks (an Anthropic content document) are the code point offsets
	// of its blocks in Text, as Document.Blocks; nil for other sources.
	Blocks []int
	// Path (a request's document) is the JSON Pointer in the request of
	// what carries its text, as Document.Path, so that a limit on the
	// source points there: "/messages/0/content/1/source/data". "" for
	// other sources.
	Path string
}

// Sources returns the documents whose text the request carries, as
// sources.
func Sources(docs []Document) []Source {
	var out []Source
	for _, d := range docs {
		if d.HasText {
			out = append(out, Source{ID: d.ID, Text: d.Text, Blocks: d.Blocks, Path: d.Path})
		}
	}
	return out
}

// Options say how quotations are checked.
type Options struct {
	// Limits: a quotation longer than QuoteBytes is not checked, nor one
	// whose check would take the call's scan past ScanUnits (each
	// quotation counts what it may scan, see QuotationUnits); a call with
	// more than Citations quotations is refused. The zero value is
	// citecheck.DefaultLimits(), the contract's.
	Limits citecheck.Limits
	// Explain adds to each failing result the fix the checks determine,
	// when they determine one.
	Explain bool
	// Documents are the documents of the Messages request an Anthropic
	// response answered (ReadRequest); those with text are the caller's
	// to pass as sources (Sources). A quotation whose marker names one
	// without text (a PDF, a URL, a file), and no source, is not_checked
	// with the document's NoText() as its Why, not no_source: the request
	// supplies the document, only not as text. A source of its id makes
	// it checked as usual.
	Documents []Document
}

// Limit is the limit a quotation that is not checked is over.
type Limit struct {
	Name        string // the contract's name: max_quote_bytes or max_scan_units
	Max, Actual int    // bytes of the quotation, or scan units the call would reach
}

// Fix is what a failing quotation would be verbatim with: the marker to
// give instead (elsewhere), the numbers of the Anthropic location
// (moved), or the source's words (near, under one fold set). Only the
// members that change are set.
type Fix struct {
	Marker     *string
	Start, End *int
	Quote      *string
}

// Result is what checking one quotation found.
type Result struct {
	Index int // its place among the quotations checked, from 0
	Quotation
	Outcome Outcome
	// Source is the index in the sources of the source the outcome
	// names, -1 for none (no_source, not_checked, not_found without a
	// marker).
	Source int
	// Span is where the quotation stands exactly in Source (verbatim,
	// moved, elsewhere: its first occurrence; for an Anthropic verbatim
	// citation, its own span), in code points; nil otherwise.
	Span *citecheck.Span
	// Findings are the engine's diagnosis (spec §5.8) of the quotation in
	// Source: for near, the readings under which it holds; for moved, why
	// the span does not read as cited_text; for not_found in a marked
	// source, the longest leading part found.
	Findings []citecheck.Finding
	Limit    *Limit // not_checked over a limit
	Why      string // not_checked for another reason
	Fix      *Fix   // with Options.Explain, when the checks determine one
	drawn    *job   // the failing check the text report draws
}

// Answer is what checking an input found.
type Answer struct {
	Shape   Shape
	Sources []Source
	Results []Result
	// Explain: the results were checked with Options.Explain, so that
	// each failing one's JSON line ends with its Message.
	Explain bool
}

// Verbatim reports whether every quotation checked is verbatim (true when
// there is none): the exit status 0 of the command.
func (a *Answer) Verbatim() bool {
	for i := range a.Results {
		if a.Results[i].Outcome != Verbatim {
			return false
		}
	}
	return true
}

// Count returns how many results have outcome o.
func (a *Answer) Count(o Outcome) int {
	n := 0
	for i := range a.Results {
		if a.Results[i].Outcome == o {
			n++
		}
	}
	return n
}

// Check reads input (a report, a structured answer or an Anthropic
// response, by Detect) and checks every quotation it has against sources
// (spec §5.13). For an Anthropic response, sources are its request's
// documents (Sources(ReadRequest(…))) and any others the caller has. The
// error is a *citecheck.Error: invalid_input for input that is not one of
// the shapes and for sources that are not distinct or not UTF-8,
// limit_exceeded for more than Options.Limits.Citations quotations, and
// overloaded once ctx is done.
//
// Cost: reading is linear in len(input); checking is CheckQuotations'.
// Reading stops at the first quotation over Options.Limits.Citations
// (the error's Actual is then the bound plus one), and looks at ctx at
// least every 64 KiB of input (pollSteps; for a JSON input, plus the
// token or the citation being read whole). Each phase that
// follows looks at ctx before each request to the engine, which looks
// at it every 64 KiB it reads, so a check returns within a few
// milliseconds of ctx's end.
func Check(ctx context.Context, input []byte, sources []Source, opts Options) (*Answer, error) {
	if err := stopped(ctx); err != nil {
		return nil, err
	}
	rd := &reading{ctx: ctx, max: opts.limits().Citations}
	sh, err := rd.read(input)
	if err != nil {
		return nil, err
	}
	res, err := CheckQuotations(ctx, rd.qs, sources, opts)
	if err != nil {
		return nil, err
	}
	return &Answer{Shape: sh, Sources: sources, Results: res, Explain: opts.Explain}, nil
}

// reading collects an input's quotations, up to max of them, looking at
// ctx as it goes.
type reading struct {
	ctx context.Context
	max int
	qs  []Quotation
}

// read detects input's shape (Detect) and reads its quotations as Read
// does, looking at ctx before the first step and at least every
// pollSteps steps (64 KiB of input; for a JSON input, plus the token or
// the citation being read), and refusing the first quotation over max as
// soon as it is read, not after the rest.
func (rd *reading) read(input []byte) (Shape, error) {
	poll := func() error { return stopped(rd.ctx) }
	keep := func(q Quotation) error {
		if len(rd.qs) == rd.max {
			return overQuotations(rd.max, rd.max+1, true)
		}
		rd.qs = append(rd.qs, q)
		return nil
	}
	w := &workCounter{poll: poll}
	sh, top, err := detect(input, w)
	switch {
	case err != nil:
		return 0, err
	case sh == Structured:
		err = readStructured(top, keep)
	case sh == Anthropic:
		err = readAnthropic(top, keep)
	default:
		b := bytes.TrimPrefix(input, bom)
		err = extractChecked(b, len(input)-len(b), keep, poll)
	}
	if err == nil {
		err = poll()
	}
	return sh, err
}

// stopped is the overloaded error of a done ctx, nil otherwise.
func stopped(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return citecheck.StoppedError("check", err)
	}
	return nil
}

// overQuotations is the error of n quotations to check, over max; early,
// when the reading stopped at the first over the bound (n is then max+1,
// the count read).
func overQuotations(max, n int, early bool) *citecheck.Error {
	count := strconv.Itoa(n)
	if early {
		count = "more than " + strconv.Itoa(max)
	}
	return &citecheck.Error{Code: citecheck.CodeLimitExceeded, Limit: citecheck.LimitCitations,
		Max: int64(max), Actual: int64(n),
		Message: count + " quotations to check, over " + citecheck.LimitCitations + " " + strconv.Itoa(max) + "; check the draft in parts"}
}

// limits are the Options' limits, the contract's when they are zero.
func (o *Options) limits() citecheck.Limits {
	if o.Limits == (citecheck.Limits{}) {
		return citecheck.DefaultLimits()
	}
	return o.Limits
}

// CheckQuotations checks each quotation against sources and returns one
// result each, in order: a Checker's batches, one after the other. More
// than opts.Limits.Citations quotations are refused (limit_exceeded,
// max_citations) before any is checked, which bounds the answer.
//
// Cost: the Checker's, per batch. The results hold, beyond the
// quotations, at most ResultBytes a quotation plus its findings; the
// batch being checked at most BatchBytes more.
func CheckQuotations(ctx context.Context, qs []Quotation, sources []Source, opts Options) ([]Result, error) {
	c, err := NewChecker(sources, opts)
	if err != nil {
		return nil, err
	}
	if len(qs) > c.lim.Citations {
		return nil, overQuotations(c.lim.Citations, len(qs), false)
	}
	res := make([]Result, 0, len(qs))
	for len(qs) > 0 {
		n := min(len(qs), BatchQuotations)
		batch, err := c.Check(ctx, qs[:n])
		if err != nil {
			return nil, err
		}
		res = append(res, batch...)
		qs = qs[n:]
	}
	return res, nil
}

// BatchQuotations is how many quotations a Checker is best given at
// once: enough that the engine's requests are full (max_citations
// citations), few enough that what a batch holds while it is checked
// (BatchBytes) stays small.
const BatchQuotations = 256

// Memory constants, in bytes, held by TestMemoryIsLinearInTheInput.
// ResultBytes is what a Result holds beyond its quotation's text and its
// findings (which hold their source_text, up to the span of the source
// they read); BatchBytes bounds what checking a batch holds until it
// returns, per quotation of the batch against up to max_sources sources
// (the jobs, the engine's requests, outcomes and findings), beyond one
// diagnosis's working set, which is linear in its source (docs/explain.md).
const (
	ResultBytes = 256
	BatchBytes  = 32 << 10
)

// QuotationUnits is what one quotation counts against max_scan_units
// beyond the text it scans: the engine's fixed work for each citation it
// runs (the outcome, the request it rides in) and the result, as much as
// scanning this many UTF-16 code units costs. A quotation checked against
// sources S counts Σ over S of (units of the source + units of the
// quotation), plus QuotationUnits: the exact search and the diagnosis
// each scan a source with the quotation, and a quotation without a
// marker, or not in its marked source, is looked for in every source.
const QuotationUnits = 4096

// A Checker checks quotations against one set of sources, a batch at a
// time, so that a caller can write each batch's results and drop them
// (the command streams so). The scan spent is counted across its batches
// against Options.Limits.ScanUnits; Limits.Citations is CheckQuotations'
// bound, not the Checker's. A Checker is not safe for concurrent use.
type Checker struct {
	sources []Source
	byID    map[string]int
	noText  map[string]string // a textless document's id: its NoText()
	lim     citecheck.Limits
	explain bool
	units   int // the sources' UTF-16 units, summed
	used    int // scan units counted so far
	next    int // the index of the next quotation
}

// NewChecker returns a Checker of sources: invalid_input when two have
// the same id or one is not UTF-8. Cost: linear in the sources.
func NewChecker(sources []Source, opts Options) (*Checker, error) {
	c := &Checker{sources: sources, byID: make(map[string]int, len(sources)), lim: opts.limits(), explain: opts.Explain}
	for i := range opts.Documents {
		if d := &opts.Documents[i]; !d.HasText {
			if c.noText == nil {
				c.noText = map[string]string{}
			}
			c.noText[d.ID] = d.NoText()
		}
	}
	for i, s := range sources {
		if _, dup := c.byID[s.ID]; dup {
			return nil, invalid("source " + citecheck.Echo(s.ID).Quoted() + " is supplied twice")
		}
		if !utf8.ValidString(s.Text) {
			return nil, invalid("source " + citecheck.Echo(s.ID).Quoted() + " is not UTF-8")
		}
		c.byID[s.ID] = i
		c.units += utf16Len(s.Text)
	}
	return c, nil
}

// cost is what quotation text counts against max_scan_units (see
// QuotationUnits), saturating at NoLimit.
func (c *Checker) cost(text string) int {
	per := utf16Len(text)
	if n := len(c.sources); n > 0 && per > (citecheck.NoLimit-c.units-QuotationUnits)/n {
		return citecheck.NoLimit
	}
	return c.units + len(c.sources)*per + QuotationUnits
}

// Check checks a batch of quotations, the next ones after those of the
// Checker's earlier batches (their Index goes on from there), and
// returns one result each, in order. The error is invalid_input for a
// quotation that is not UTF-8 and overloaded once ctx is done.
//
// Cost: each quotation checked costs at most a few linear scans of each
// source (an exact search in its marked source, then in the others; the
// diagnosis, in each source it is looked for in, on a budget of its own
// linear in the quotation and that source, about 10× a check: spec
// §5.8), which its count against ScanUnits stands for. Memory: the
// results, and while the batch runs BatchBytes a quotation beyond them.
func (c *Checker) Check(ctx context.Context, qs []Quotation) ([]Result, error) {
	sources := c.sources
	res := make([]Result, len(qs))
	var plans []*plan
	var stageA []*job
	for i, q := range qs {
		r := &res[i]
		*r = Result{Index: c.next + i, Quotation: q, Source: -1, Outcome: NotChecked}
		if loc := q.Location; loc != nil && loc.Type != CharLocation && loc.Type != PageLocation && loc.Type != ContentBlockLocation {
			r.Why = "a " + loc.Type + " citation points into no document of the request"
			continue
		}
		p := &plan{r: r, primary: -1}
		if q.Marked {
			si, ok := c.byID[q.Marker]
			if !ok {
				if why, ok := c.noText[q.Marker]; ok {
					r.Why = why // not_checked: the document is there, its text is not
				} else {
					r.Outcome = NoSource
				}
				continue
			}
			p.primary = si
		}
		switch {
		case !utf8.ValidString(q.Text):
			return nil, invalid("quotation " + strconv.Itoa(c.next+i) + " is not UTF-8")
		case q.Text == "":
			r.Why = emptyWhy
			continue
		case len(q.Text) > c.lim.QuoteBytes:
			r.Limit = &Limit{citecheck.LimitQuoteBytes, c.lim.QuoteBytes, len(q.Text)}
			continue
		}
		if cost := c.cost(q.Text); cost > c.lim.ScanUnits-c.used {
			r.Limit = &Limit{citecheck.LimitScanUnits, c.lim.ScanUnits, satAdd(c.used, cost)}
			continue
		} else {
			c.used += cost
		}
		if p.primary >= 0 {
			if start, end, ok := spanOf(q.Location, &sources[p.primary]); ok {
				cit := citecheck.Citation{Selector: citecheck.Selector{Type: citecheck.PositionSelector, Start: start, End: end}, Quote: q.Text}
				p.span = &job{r: r, src: p.primary, cit: cit}
				stageA = append(stageA, p.span)
			}
			p.exact = append(p.exact, exactJob(r, p.primary, q.Text))
		} else {
			for si := range sources {
				p.exact = append(p.exact, exactJob(r, si, q.Text))
			}
		}
		stageA = append(stageA, p.exact...)
		plans = append(plans, p)
	}
	c.next += len(qs)
	run := &runner{sources: sources}
	if err := run.run(ctx, stageA, false); err != nil {
		return nil, err
	}
	// Stage B: a marked quotation not in its source, in the others.
	var stageB []*job
	for _, p := range plans {
		if p.primary < 0 || p.settledExactly() {
			continue
		}
		for si := range sources {
			if si != p.primary {
				j := exactJob(p.r, si, p.r.Text)
				p.exact = append(p.exact, j)
				stageB = append(stageB, j)
			}
		}
	}
	if err := run.run(ctx, stageB, false); err != nil {
		return nil, err
	}
	// Stage C: the diagnosis, in the marked source (any source without a
	// marker), and of a moved span; each on a budget of its own, so that
	// a quotation's outcome is what it would be alone.
	var stageC []*job
	for _, p := range plans {
		if p.span != nil && p.span.reason != citecheck.ReasonNone {
			// Why the span does not read as cited_text; moved, when
			// cited_text is in the document, needs nothing more.
			j := &job{r: p.r, src: p.primary, cit: p.span.cit}
			p.explain = append(p.explain, j)
			stageC = append(stageC, j)
		}
		if p.foundAnywhere() || p.span != nil && p.span.reason == citecheck.ReasonNone {
			continue
		}
		targets := []int{p.primary}
		if p.primary < 0 {
			targets = targets[:0]
			for si := range sources {
				targets = append(targets, si)
			}
		}
		for _, si := range targets {
			j := diagnosisJob(p.r, si, p.r.Text)
			p.explain = append(p.explain, j)
			stageC = append(stageC, j)
		}
	}
	if err := run.run(ctx, stageC, true); err != nil {
		return nil, err
	}
	for _, p := range plans {
		p.settle(sources, c.explain)
	}
	return res, nil
}

// satAdd is a + b for a, b ≥ 0, saturating at NoLimit.
func satAdd(a, b int) int {
	if a > citecheck.NoLimit-b {
		return citecheck.NoLimit
	}
	return a + b
}

// job is one citation run for a quotation, and the engine's verdict.
type job struct {
	r        *Result
	src      int
	cit      citecheck.Citation
	reason   citecheck.Reason
	detail   *citecheck.Detail
	findings []citecheck.Finding
	// req, ex and k (explained jobs) are the request the job ran in, its
	// explanation and the job's citation index: what the report draws.
	req *citecheck.Request
	ex  *citecheck.Explanation
	k   int
}

// found reports whether a quote job found its exact text, and where it
// first starts: the job claims start 0, so the engine names the start
// when it is elsewhere.
func (j *job) found() (int, bool) {
	switch j.reason {
	case citecheck.ReasonNone:
		return 0, true
	case citecheck.ReasonPositionMismatch:
		return *j.detail.ResolvedStart, true
	case citecheck.ReasonAmbiguousAnchor:
		return j.detail.MatchStarts[0], true
	}
	return 0, false
}

// once reports whether a found quote occurs exactly once.
func (j *job) once() bool { return j.reason != citecheck.ReasonAmbiguousAnchor }

// plan is one quotation on its way through the checks.
type plan struct {
	r       *Result
	primary int  // the marked source, -1 without a marker
	span    *job // an Anthropic location's span, as a position citation; nil when it names no span
	exact   []*job
	explain []*job
}

func exactJob(r *Result, src int, text string) *job {
	cit := citecheck.Citation{Selector: citecheck.Selector{Type: citecheck.QuoteSelector, Exact: text}, HasClaimedStart: true}
	return &job{r: r, src: src, cit: cit}
}

func diagnosisJob(r *Result, src int, text string) *job {
	return &job{r: r, src: src, cit: citecheck.Citation{Selector: citecheck.Selector{Type: citecheck.QuoteSelector, Exact: text}}}
}

// settledExactly reports whether the first checks decided: the span
// holds, or the quotation is in its marked source.
func (p *plan) settledExactly() bool {
	if p.span != nil && p.span.reason == citecheck.ReasonNone {
		return true
	}
	_, ok := p.exact[0].found()
	return ok
}

func (p *plan) foundAnywhere() bool {
	for _, j := range p.exact {
		if _, ok := j.found(); ok {
			return true
		}
	}
	return false
}

// spanOf returns the code point span an Anthropic location names in
// source s: char_location's numbers as they are, content_block_location's
// blocks [start, end) of a content document (past the text's end for
// blocks it does not have); false for a report's quotation and a
// page_location, which are checked by their text alone.
func spanOf(loc *Location, s *Source) (int, int, bool) {
	switch {
	case loc == nil:
		return 0, 0, false
	case loc.Type == CharLocation && safeIndex(loc.Start) && safeIndex(loc.End):
		// The engine reads any pair of integers in [0, 2^53) as a span,
		// as its decoder admits them: out of range or reversed ones are
		// failing checks, not errors. The reader bounds them so; a
		// library caller's Location may hold any int.
		return loc.Start, loc.End, true
	case loc.Type == CharLocation || loc.Type == ContentBlockLocation:
		if loc.Type == ContentBlockLocation && s.Blocks != nil && 0 <= loc.Start && loc.Start <= loc.End && loc.End < len(s.Blocks) {
			return s.Blocks[loc.Start], s.Blocks[loc.End], true
		}
		// Blocks the document does not have (or a document without
		// blocks), or code points no span has: a span past its end, which
		// the engine reports as out of range. n is at most the text's
		// length, so n+1 cannot wrap.
		n := utf8.RuneCountInString(s.Text)
		return n, n + 1, true
	}
	return 0, 0, false
}

// safeIndex reports whether v is an integer the engine takes as a
// position: 0 to 2^53−1, I-JSON's safe integers, as its decoder admits.
func safeIndex(v int) bool { return 0 <= v && v <= 1<<53-1 }

// settle decides the outcome from the jobs' verdicts; the result then
// holds only what it shows (see job.alone).
func (p *plan) settle(sources []Source, explain bool) {
	p.decide(sources, explain)
	if r := p.r; r.drawn != nil {
		r.drawn = r.drawn.alone()
	}
}

// alone is the job as the text report draws it, holding its own request
// of one citation and source and that citation's explanation, so that a
// result does not hold the request and explanation of its whole batch.
func (j *job) alone() *job {
	if j.ex == nil {
		return &job{src: j.src}
	}
	o := j.ex.All.Citations[j.k]
	o.CitationIndex = 0
	cit := j.req.Citations[j.k]
	var src []citecheck.Source
	for _, s := range j.req.Sources {
		if s.SourceID == cit.SourceID {
			src = append(src, s)
		}
	}
	return &job{
		src: j.src, reason: j.reason, detail: j.detail, findings: j.findings,
		req: &citecheck.Request{Sources: src, Citations: []citecheck.Citation{cit}},
		ex: &citecheck.Explanation{All: &citecheck.AllResult{Failed: 1, Citations: []citecheck.CitationOutcome{o}},
			Citations: []citecheck.CitationExplanation{j.ex.Citations[j.k]}},
	}
}

// decide decides the outcome from the jobs' verdicts.
func (p *plan) decide(sources []Source, explain bool) {
	r := p.r
	at := func(j *job) {
		start, _ := j.found()
		r.Source = j.src
		r.Span = &citecheck.Span{Start: start, End: start + utf8.RuneCountInString(r.Text)}
	}
	if p.span != nil && p.span.reason == citecheck.ReasonNone {
		r.Outcome, r.Source = Verbatim, p.primary
		r.Span = &citecheck.Span{Start: p.span.cit.Selector.Start, End: p.span.cit.Selector.End}
		return
	}
	var first *job // the first exact job that found the quotation
	for _, j := range p.exact {
		if _, ok := j.found(); ok {
			first = j
			break
		}
	}
	var spanEx *job
	if p.span != nil && len(p.explain) > 0 {
		spanEx = p.explain[0]
	}
	switch {
	case first != nil && p.span != nil && first.src == p.primary:
		r.Outcome = Moved
		at(first)
		r.Findings, r.drawn = spanEx.findings, spanEx
		if explain && first.once() {
			p.movedFix(&sources[p.primary])
		}
		return
	case first != nil && (p.primary < 0 || first.src == p.primary):
		r.Outcome = Verbatim
		at(first)
		return
	case first != nil:
		r.Outcome = Elsewhere
		at(first)
		r.drawn = p.diagnosed(p.primary)
		if explain {
			id := sources[first.src].ID
			r.Fix = &Fix{Marker: &id}
		}
		return
	}
	for _, j := range p.explain {
		if j == spanEx || !near(j.findings) {
			continue
		}
		r.Outcome, r.Source, r.Findings, r.drawn = Near, j.src, j.findings, j
		if explain {
			r.Fix = nearFix(j.findings)
		}
		return
	}
	if j, kinds := p.cut(); j != nil {
		// Not near as far as the diagnosis went, but it did not go to the
		// end: not_found would claim what was not searched.
		r.Outcome, r.Source, r.Findings, r.drawn = NotChecked, p.primary, j.findings, j
		names := make([]string, len(kinds))
		for i, k := range kinds {
			names[i] = k.String()
		}
		r.Why = "not exactly in any source, and the search for it under folds and elisions in source " + citecheck.Echo(sources[j.src].ID).Quoted() +
			" was cut by the work budget (not searched: " + strings.Join(names, ", ") + ")"
		return
	}
	r.Outcome = NotFound
	if p.primary >= 0 {
		r.Source = p.primary
		if j := p.diagnosed(p.primary); j != nil {
			r.Findings, r.drawn = j.findings, j
		}
		return
	}
	// Without a marker no source is named; the text report draws the one
	// with the longest leading part, the nearest match there is.
	best := -1
	for _, j := range p.explain {
		for _, f := range j.findings {
			if f.Kind == citecheck.FindingPartial && f.Length > best {
				best, r.drawn = f.Length, j
			}
		}
	}
}

// cut returns the first quote diagnosis whose search for near readings
// was cut by its work budget, with the kinds it did not search (those of
// normalized and elided among them), or nil.
func (p *plan) cut() (*job, []citecheck.FindingKind) {
	for _, j := range p.explain {
		if j.cit.Selector.Type != citecheck.QuoteSelector {
			continue
		}
		for _, f := range j.findings {
			if slices.Contains(f.NotSearched, citecheck.FindingNormalized) || slices.Contains(f.NotSearched, citecheck.FindingElided) {
				return j, f.NotSearched
			}
		}
	}
	return nil, nil
}

// diagnosed returns the quote job explained in source src, or nil.
func (p *plan) diagnosed(src int) *job {
	for _, j := range p.explain {
		if j.src == src && j.cit.Selector.Type == citecheck.QuoteSelector {
			return j
		}
	}
	if p.span != nil && len(p.explain) > 0 {
		return p.explain[0]
	}
	return nil
}

// near reports whether the diagnosis found the quotation under a fold or
// as an elision.
func near(fs []citecheck.Finding) bool {
	for _, f := range fs {
		if f.Kind == citecheck.FindingNormalized || f.Kind == citecheck.FindingElided {
			return true
		}
	}
	return false
}

// nearFix is the source's words, when one normalized reading says them
// and no elision competes.
func nearFix(fs []citecheck.Finding) *Fix {
	var text *string
	for i := range fs {
		switch fs[i].Kind {
		case citecheck.FindingElided:
			return nil
		case citecheck.FindingNormalized:
			if text != nil && *text != fs[i].SourceText {
				return nil
			}
			text = &fs[i].SourceText
		}
	}
	if text == nil {
		return nil
	}
	return &Fix{Quote: text}
}

// movedFix gives a moved citation the numbers of the one place its
// cited_text stands: code points for char_location, the blocks that
// hold exactly that text for content_block_location (none when it does
// not start and end at block boundaries).
func (p *plan) movedFix(s *Source) {
	r := p.r
	start, end := r.Span.Start, r.Span.End
	if r.Location.Type == ContentBlockLocation {
		bs, be := -1, -1
		for i, off := range s.Blocks {
			if off == start && bs < 0 {
				bs = i
			}
			if off == end && bs >= 0 && i > bs {
				be = i
				break
			}
		}
		if bs < 0 || be < 0 {
			return
		}
		start, end = bs, be
	}
	r.Fix = &Fix{Start: &start, End: &end}
}

// runner runs jobs through the engine.
type runner struct{ sources []Source }

// batch bounds: the contract's, so that each request the engine runs is
// one the contract allows in count (texts may be longer).
const (
	batchCitations = citecheck.MaxCitations
	batchSources   = citecheck.MaxSources
)

// run checks the jobs' citations in requests of at most batchCitations
// citations on at most batchSources sources, and records each verdict
// and, with explain, the engine's findings and what the report draws.
func (c *runner) run(ctx context.Context, jobs []*job, explain bool) error {
	for len(jobs) > 0 {
		if err := stopped(ctx); err != nil {
			return err
		}
		req := &citecheck.Request{}
		seen := map[int]bool{}
		n := 0
		for ; n < len(jobs) && n < batchCitations; n++ {
			j := jobs[n]
			if !seen[j.src] {
				if len(req.Sources) == batchSources {
					break
				}
				seen[j.src] = true
				req.Sources = append(req.Sources, citecheck.Source{SourceID: c.sources[j.src].ID, Text: c.sources[j.src].Text})
			}
			cit := j.cit
			cit.CitationID = strconv.Itoa(n)
			cit.SourceID = c.sources[j.src].ID
			req.Citations = append(req.Citations, cit)
		}
		if explain {
			ex, err := citecheck.ExplainEachContext(ctx, req)
			if err != nil {
				return citecheck.StoppedError("check", err)
			}
			for k := range ex.All.Citations {
				o := &ex.All.Citations[k]
				j := jobs[k]
				j.reason, j.detail, j.findings = o.Reason, o.Detail, ex.Citations[k].Findings
				j.req, j.ex, j.k = req, ex, k
			}
		} else {
			all, err := citecheck.CheckAllContext(ctx, req)
			if err != nil {
				return citecheck.StoppedError("check", err)
			}
			for k := range all.Citations {
				o := &all.Citations[k]
				jobs[k].reason, jobs[k].detail = o.Reason, o.Detail
			}
		}
		jobs = jobs[n:]
	}
	return nil
}

// utf16Len counts s in UTF-16 code units, the contract's scan unit.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n
}
