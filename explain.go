package citecheck

import (
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/citecheck/citecheck/internal/fold"
	"github.com/citecheck/citecheck/internal/search"
	"github.com/citecheck/citecheck/internal/utext"
)

// FindingKind says under which reading a failing citation would hold. The
// kinds are a closed list, in the order findings are listed (spec §5).
type FindingKind uint8

const (
	// FindingElsewhere: the claimed text occurs exactly at other positions.
	FindingElsewhere FindingKind = iota
	// FindingOffsetUnits: the citation's numbers are right when read as
	// UTF-16 code units or UTF-8 bytes instead of code points.
	FindingOffsetUnits
	// FindingNormalized: the claim holds when both sides are read under
	// some folds.
	FindingNormalized
	// FindingElided: the claim joins passages with an ellipsis, and the
	// passages occur in the source in that order, exactly or under folds.
	FindingElided
	// FindingDisambiguate: a prefix or suffix, read from the source, that
	// leaves one match of an ambiguous anchor.
	FindingDisambiguate
	// FindingPartial: none of the above; the longest leading part of the
	// claim that occurs.
	FindingPartial
	findingKindCount
)

var findingKindNames = [findingKindCount]string{
	"elsewhere", "offset_units", "normalized", "elided", "disambiguate", "partial",
}

// String returns the kind's name as the JSON writes it.
func (k FindingKind) String() string {
	if k < findingKindCount {
		return findingKindNames[k]
	}
	return "kind(invalid)"
}

// FindingKinds lists every kind in order.
func FindingKinds() []FindingKind {
	ks := make([]FindingKind, findingKindCount)
	for k := range ks {
		ks[k] = FindingKind(k)
	}
	return ks
}

// Span is a range of code points [Start, End) of a source text.
type Span struct{ Start, End int }

// Finding is one reading under which a failing citation would hold: the
// claim holds at T[Start:End] (code points) of the cited source under the
// reading Kind names. The claim is what the citation says the source reads
// there, contiguously: a position citation's quote, a quote citation's
// prefix+exact+suffix. Which other fields are set depends on Kind.
type Finding struct {
	Kind       FindingKind
	Start, End int
	// Occurrences (elsewhere): how often the claim occurs exactly,
	// overlapping search.Occurrences counted. At most MaxHintStarts elsewhere
	// findings are listed, the first ones.
	Occurrences int
	// Units (offset_units): the units the citation's numbers count.
	Units Units
	// Folds (normalized, elided): a minimal fold set under which the
	// claim holds; for elided, under which every passage reads as its
	// part of the source, and empty when they occur exactly.
	Folds Folds
	// SourceText (normalized, elided): what the source really has at the
	// span, for the caller to decide whether the claim says that.
	SourceText string
	// Parts (elided): where each passage between the ellipses occurs.
	Parts []Span
	// Prefix or Suffix (disambiguate, one of them): the context that leaves
	// this match only, the other member as the citation has it.
	Prefix, Suffix *string
	// Length (partial): the code points of the claim's leading part found.
	Length int
	// NotSearched (partial): the kinds of finding that were not looked
	// for, or not to the end, because the request's work budget ran out
	// (see search.Budget), in kind order. Unless FindingPartial is among
	// them, the finding is the leading part found as well; else it has
	// Length 0 and the span [0, 0), and says only that the search
	// stopped. nil when every kind was searched.
	NotSearched []FindingKind
}

// Explanation is [CheckAll]'s outcome with, for every citation, what the
// source says about it: the findings and, when they determine one, a fix.
type Explanation struct {
	All       *AllResult
	Citations []CitationExplanation // parallel to All.Citations
}

// CitationExplanation explains one citation's outcome. A citation that
// holds has no findings and no fix.
type CitationExplanation struct {
	Findings []Finding // in kind order
	// Fix is the corrected citation when the findings determine exactly
	// one that holds exactly, else nil. It has the same citation_id,
	// source_id, version, quote and exact; only selector numbers, the
	// claimed_start or an added prefix or suffix differ.
	Fix *Citation
}

// normalizedListed is how many normalized findings a citation gets at most.
const normalizedListed = 2

// normalizedProbed is how many search.Occurrences of a long claim's first piece
// are kept to be compared with the whole claim, rather than looking for
// it afresh.
const normalizedProbed = 8

// Explain checks every citation of req, as [CheckAll] does, and explains
// each failing one (spec §5). req must come from [Decode] or satisfy the
// same rules. The verdicts are CheckAll's, unchanged.
//
// Cost: CheckAll's, plus what the diagnoses do, bounded by one work
// budget a request (search.Budget): at most explainWorkPerKiB units (about
// KMP byte steps) a KiB of the failing claims and the sources they cite
// (at least explainWorkMin), plus one step (maxStepWork), plus work
// linear in each claim (docs/explain.md#the-bound). A citation whose diagnosis the budget
// cannot pay for gets a partial finding listing what was not searched
// (NotSearched) and no fix; the verdicts never change, and the charges,
// so the cuts, depend on the request alone. Within the budget, a failing
// citation asks its source a few questions: the claim's occurrences, one
// search of the folded source, the elided passages (exactly, then, when
// they do not all occur so, folded in the folded source), a leading part read
// at the search.Occurrences of a shorter one (else O(log m) questions for a claim
// of m bytes), an ambiguous anchor's contexts read at its search.Occurrences
// (else O(log max_context_bytes) per match). A source's first questions
// are scans, linear in text and claim; once they have done work worth a
// quarter of a scan of it, the source is indexed (linear, once per
// request) and a question costs about its pattern (see search.Searcher). The
// folded reading of a source is built once per request and only when a
// failing citation needs it, its map back to code points only when a
// claim is found in it; fold sets are compared over the candidate span
// and the claim only, most of them over the pieces that differ (see
// fold.Minimal). A source costly to fold is first read as its skeleton
// (linear, with a cache a code point), which proves a claim that holds
// under no fold such without the folding (internal/fold/skeleton.go).
func Explain(req *Request) *Explanation {
	ex, _ := explain(context.Background(), req, true, explainWorkMin, explainWorkPerKiB)
	return ex
}

// ExplainContext is [Explain] that stops when ctx is done: it looks at
// ctx between citations of the check (every checkPollBytes of text and
// claims they read) and every pollEvery units of the diagnosis's work, so
// it returns within one step of ctx's end (a check citation's scans of
// one source, one question, or one source's folding: at most about 10 ms
// at the contract's limits), with nil and ctx.Err() as it is
// (context.Canceled or context.DeadlineExceeded). It starts no goroutine
// and keeps nothing. With a ctx that is never done it returns what
// Explain does and a nil error.
func ExplainContext(ctx context.Context, req *Request) (*Explanation, error) {
	return explain(ctx, req, true, explainWorkMin, explainWorkPerKiB)
}

// explain is ExplainContext, with or without the skeletons (see
// skeletonFirst), which change its cost and nothing else: the tests
// compare the two; the budget is perKiB units a KiB of failingBytes,
// at least minUnits (explainWorkPerKiB and explainWorkMin; the tests
// set others).
func explain(ctx context.Context, req *Request, skeletons bool, minUnits, perKiB int) (*Explanation, error) {
	ex, _, err := explainBudgeted(ctx, req, skeletons, minUnits, perKiB)
	return ex, err
}

// explainBudgeted is explain that also returns its budget, what it
// spent on what: for the tests that hold the bound.
func explainBudgeted(ctx context.Context, req *Request, skeletons bool, minUnits, perKiB int) (*Explanation, *search.Budget, error) {
	e := newExplainer(req)
	if skeletons {
		e.skeletons = make([]*skeletonSearch, len(req.Sources))
	}
	all, err := checkAllContext(ctx, e.c)
	if err != nil {
		return nil, nil, err
	}
	ex := &Explanation{All: all, Citations: make([]CitationExplanation, len(req.Citations))}
	e.budget = search.NewBudget(ctx, max(minUnits, perKiB*e.failingBytes(all)/1024))
	e.countShortQuotes(all)
	left := all.Failed
	for k := range all.Citations {
		if o := &all.Citations[k]; !o.Valid() {
			ex.Citations[k] = e.citation(o, left)
			left--
		}
	}
	if e.budget.Poll(); e.budget.Err() != nil {
		return nil, e.budget, e.budget.Err()
	}
	return ex, e.budget, nil
}

// failingBytes is what the budget is proportional to: the bytes of the
// failing citations' claims and of the sources they cite, each source
// once. At most the request's size.
func (e *explainer) failingBytes(all *AllResult) int {
	n := 0
	cited := make([]bool, len(e.req.Sources))
	for k := range all.Citations {
		o := &all.Citations[k]
		if o.Valid() {
			continue
		}
		cit := &e.req.Citations[o.CitationIndex]
		n += len(claimOf(cit))
		if j, _ := e.c.lookup(cit); j >= 0 && !cited[j] {
			cited[j] = true
			n += len(e.req.Sources[j].Text)
		}
	}
	return n
}

// shortQuotesAtOnce is how many short quotes (see shortPattern) of one
// source's failing position citations make Explain count them all in one
// pass over the source before it explains them (search.Searcher.CountAll): each
// would otherwise be counted by a scan that stops at every occurrence, and
// the pass costs about as much as a few of those (BenchmarkCountShort).
const shortQuotesAtOnce = 8

// countShortQuotes counts the short quotes of the failing position
// citations of each source in one pass, for a source that has
// shortQuotesAtOnce of them or more: position() asks where each occurs.
func (e *explainer) countShortQuotes(all *AllResult) {
	quotes := make(map[int][]string)
	for k := range all.Citations {
		o := &all.Citations[k]
		cit := &e.req.Citations[o.CitationIndex]
		switch o.Reason {
		case ReasonSpanReversed, ReasonSpanOutOfRange, ReasonQuoteMismatch:
			if j, _ := e.c.lookup(cit); j >= 0 && search.ShortPattern(cit.Quote) {
				quotes[j] = append(quotes[j], cit.Quote)
			}
		}
	}
	for j, qs := range quotes {
		if len(qs) >= shortQuotesAtOnce {
			// What countAll adds to the searcher's work, admitted whole.
			if e.budget.Grant(len(e.req.Sources[j].Text) + 64*len(qs)) {
				e.searcher(j).CountAll(qs, MaxHintStarts)
			}
		}
	}
}

// explainer holds what explaining one request builds at most once per
// source, by source, on first use: the searchers of the folded readings
// and the skeletons, on the request's budget, and the readings
// themselves (readings), which ExplainEachContext shares between the
// explainers of one call.
type explainer struct {
	req       *Request
	c         *Checker // the check's verdicts and its sources' indexes
	folded    []*foldedSearch
	skeletons []*skeletonSearch
	readings  []*sourceReadings
	budget    *search.Budget // shared by every searcher below
	// built counts the readings built, for the tests that hold that
	// ExplainEachContext builds each once per call.
	built *readingsBuilt
}

func newExplainer(req *Request) *explainer {
	e := &explainer{req: req, c: NewChecker(req), folded: make([]*foldedSearch, len(req.Sources)),
		readings: make([]*sourceReadings, len(req.Sources)), built: new(readingsBuilt)}
	for j := range e.readings {
		e.readings[j] = new(sourceReadings)
	}
	return e
}

// sourceReadings is what explaining builds of one source from its text
// alone, on first use, and never changes after: its reading under every
// fold, its skeleton, its UTF-16 offsets and what plainBytes says of it.
// The work each costs is granted or charged by the explainer that asks
// for it as if it built it (sourceFoldWork and its quarter, functions of
// the text alone), whoever built it, so the explainers that share them
// (ExplainEachContext's, one a citation) charge, and are cut, exactly as
// if each had built its own. The searchers of these readings are not
// here: when they index depends on the questions asked before.
type sourceReadings struct {
	folded   *fold.Source
	skeleton *skeletonReading
	utf16    *utext.UTF16Index
	plain    *plainText
}

// skeletonReading is a source's skeleton (internal/fold/skeleton.go) and
// the skeletonizer for the claims, which shares the source's cache.
type skeletonReading struct {
	text string
	k    *fold.Skeletonizer
}

// readingsBuilt counts the readings built (sourceReadings) of the
// explainers that share them: for the tests.
type readingsBuilt struct{ folds, skeletons, utf16 int }

// plainText is what plainBytes said of a text.
type plainText struct {
	set   byteSet
	plain bool
}

// byteSet is a set of byte values.
type byteSet [4]uint64

// plainBytes is plainBytes of source j, once per request.
func (e *explainer) plainBytes(j int) (byteSet, bool) {
	r := e.readings[j]
	if r.plain == nil {
		// Not charged: once per source, a byte at a time, and it stops
		// at the first space (most text at once).
		set, ok := plainBytes(e.req.Sources[j].Text)
		r.plain = &plainText{set, ok}
	}
	return r.plain.set, r.plain.plain
}

// plainBytes returns the bytes s is made of, and whether they are all
// plain: ASCII that every fold reads a byte at a time, by asciiFolded's
// table (not white space, which the white space fold joins and trims).
// A claim and a text of plain bytes read, folded, as their bytes mapped
// one by one. Linear in the plain bytes s starts with.
func plainBytes(s string) (byteSet, bool) {
	var set byteSet
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || fold.IsWhiteSpace(rune(c)) {
			return set, false // most text stops at its first space
		}
		set[c>>6] |= 1 << (c & 63)
	}
	return set, true
}

// foldsApart reports whether every fold at once (the reading normalized
// searches under) reads the plain bytes of a and b as distinct bytes (no
// two of them as one, as case folding reads 'a' and 'A', or typography
// the backtick and the apostrophe): then a folded claim occurs in a
// folded text exactly where the claim occurs in the text. 128 steps.
func foldsApart(a, b byteSet) bool {
	var seen [256]bool
	t := fold.ASCII()
	for c := range utf8.RuneSelf {
		if (a[c>>6]|b[c>>6])&(1<<(c&63)) == 0 {
			continue
		}
		if seen[t[c]] {
			return false
		}
		seen[t[c]] = true
	}
	return true
}

// searcher returns source j's searcher, on the request's budget.
func (e *explainer) searcher(j int) *search.Searcher {
	s := e.c.text(j).Searcher()
	s.Budget = e.budget
	return s
}

// skeletonSearch is a source's skeleton (see internal/fold/skeleton.go) and its
// searcher, with the skeletonizer for the claims, which shares the
// source's cache. Made once per request, only for a source that is costly
// to fold (see skeletonFirst).
type skeletonSearch struct {
	k *fold.Skeletonizer
	*search.Searcher
}

// skeletonFirst reports whether source j is worth a skeleton before its
// folding: more than half its code points take two bytes or more (a
// skeleton costs about what folding costs on ASCII and the plain blocks,
// and a fraction of it on letters with marks and other scripts), and no
// claim has made Explain fold it yet.
func (e *explainer) skeletonFirst(j int) bool {
	x := e.c.text(j)
	return e.skeletons != nil && e.folded[j] == nil && 2*len(x.String()) > 3*x.Len()
}

// mayHoldFolded reports whether claim may hold under the folds somewhere in
// source j: false when the claim's skeleton is not in the source's, which
// proves that its folding is not in the source's folding (internal/fold/skeleton.go),
// without folding the source.
func (e *explainer) mayHoldFolded(j int, claim string) bool {
	if !e.skeletonFirst(j) {
		return true
	}
	sk := e.skeletons[j]
	if sk == nil {
		// Granted whether built here or shared (sourceReadings).
		if !e.budget.Grant(e.sourceFoldWork(j) / 4) { // a quarter of the folding (internal/fold/skeleton.go)
			return false // and the citation is cut
		}
		r := e.readings[j]
		if r.skeleton == nil {
			text := e.req.Sources[j].Text
			src := fold.NewSkeletonizer(len(text))
			r.skeleton = &skeletonReading{text: src.Of(text), k: src.Sharing()}
			e.built.skeletons++
		}
		sk = &skeletonSearch{k: r.skeleton.k, Searcher: search.NewSearcher(r.skeleton.text, e.budget)}
		e.skeletons[j] = sk
	}
	// A claim of marks alone has an empty skeleton, which proves nothing.
	ks := sk.k.Of(claim)
	return ks == "" || sk.First(ks, 0, 1).Count > 0
}

// foldedSource returns source j read under every fold, and its searcher,
// built once per request (the reading once per sourceReadings); nil, the
// citation cut, once the context is done.
func (e *explainer) foldedSource(j int) *foldedSearch {
	if e.folded[j] == nil {
		// Granted whether folded here or shared (sourceReadings).
		if !e.budget.Grant(e.sourceFoldWork(j)) {
			return nil
		}
		r := e.readings[j]
		if r.folded == nil {
			r.folded = fold.NewSource(e.req.Sources[j].Text)
			e.built.folds++
		}
		e.folded[j] = &foldedSearch{Source: r.folded, Searcher: search.NewSearcher(r.folded.Folded(), e.budget)}
	}
	return e.folded[j]
}

// foldedSearch is a folded source and its searcher, so that the
// matcher's prefilter picks bytes rare in the folded text itself, and many
// failing citations of one source get its index.
type foldedSearch struct {
	*fold.Source
	*search.Searcher
}

// foldWork is what folding s is charged, in the budget's unit: a table
// a byte on ASCII (four units a byte), a cached lookup a code point
// elsewhere (about 48 a byte of it beyond ASCII: measured at 2–3 ns a
// unit-pair on random code points below U+0800, marks among them, the
// binary family of BenchmarkExplainHostile, where the unit is 1–2 ns
// elsewhere). At most 52 units a byte. Linear in s, at memory speed.
func foldWork(s string) int { return foldWorkOf(len(s), utext.RuneCount(s)) }

// foldWorkOf is foldWork of a string of n bytes and cps code points.
func foldWorkOf(n, cps int) int { return 4*n + 48*(n-cps) }

// sourceFoldWork is foldWork of source j, from its index: O(1).
func (e *explainer) sourceFoldWork(j int) int {
	x := e.c.text(j)
	return foldWorkOf(len(x.String()), x.Len())
}

// byteAt returns the byte offset v counted in units u stands for in source
// j, and false when v falls inside a code point or past the end.
func (e *explainer) byteAt(j int, x *indexedText, u Units, v int) (int, bool) {
	if u == UnitsUTF8 {
		return v, utext.Boundary(x.String(), v)
	}
	r := e.readings[j]
	if r.utf16 == nil {
		r.utf16 = utext.NewUTF16(x.String())
		e.built.utf16++
	}
	return r.utf16.ByteAt(v)
}

// claimOf returns what the citation says the source reads, contiguously.
func claimOf(cit *Citation) string {
	if cit.Selector.Type == PositionSelector {
		return cit.Quote
	}
	s := &cit.Selector
	return s.Prefix + s.Exact + s.Suffix
}

// citation explains failing citation o, the first of left still to
// explain, within its share of the budget. A step of the diagnosis that
// had a question refused is dropped whole, and the citation gets, beside
// the findings of the other steps, a partial finding that lists the
// kinds not searched, and no fix: what the steps found is sure, but not
// that nothing else is there.
func (e *explainer) citation(o *CitationOutcome, left int) CitationExplanation {
	cit := &e.req.Citations[o.CitationIndex]
	j, _ := e.c.lookup(cit)
	if j < 0 { // unknown_source, version_mismatch: no text to read
		return CitationExplanation{Findings: []Finding{}}
	}
	e.budget.Begin(left)
	x := e.c.text(j)
	e.searcher(j)
	claim := claimOf(cit)
	var ce CitationExplanation
	var cut []FindingKind // the kinds not searched, once a step is cut
	switch o.Reason {
	case ReasonSpanReversed, ReasonSpanOutOfRange, ReasonQuoteMismatch:
		if ce = e.position(j, x, cit); e.budget.Refused() {
			ce, cut = CitationExplanation{}, []FindingKind{FindingElsewhere, FindingOffsetUnits, FindingNormalized, FindingElided, FindingPartial}
		}
	case ReasonPositionMismatch:
		ce = e.misplaced(j, x, cit, *o.Detail.ResolvedStart)
	case ReasonAmbiguousAnchor:
		if ce = e.ambiguous(j, x, cit, o.Detail.MatchStarts); e.budget.Refused() {
			ce.Fix, cut = nil, []FindingKind{FindingDisambiguate}
		}
	}
	// The text findings, for a claim that occurs nowhere exactly (exact
	// not found, a prefix or suffix that fails, a quote found nowhere).
	// Each step is tried even when one before it was cut (a source too
	// dear to fold still has its elided passages and its leading part).
	var part *Finding
	if cut == nil && len(ce.Findings) == 0 && o.Reason != ReasonAmbiguousAnchor {
		if e.budget.Step(); true {
			if fs := e.normalized(j, x, claim); e.budget.Refused() {
				cut = append(cut, FindingNormalized)
			} else {
				ce.Findings = append(ce.Findings, fs...)
			}
		}
		if e.budget.Step(); true {
			if f := e.elided(j, x, claim); e.budget.Refused() {
				cut = append(cut, FindingElided)
			} else if f != nil {
				ce.Findings = append(ce.Findings, *f)
			}
		}
		if len(ce.Findings) == 0 {
			e.budget.Step()
			if p := longestLeadingPart(x, claim); e.budget.Refused() {
				cut = append(cut, FindingPartial)
			} else if p.Length > 0 {
				part = &Finding{Kind: FindingPartial, Start: p.Start, End: p.At, Length: p.Length}
			}
		}
	}
	if cut != nil {
		// The leading part, when it was found, carries what was not
		// searched; else an empty one does.
		ce.Fix = nil
		if part == nil {
			part = &Finding{Kind: FindingPartial}
		}
		part.NotSearched = cut
	}
	if part != nil {
		ce.Findings = append(ce.Findings, *part)
	}
	if ce.Findings == nil {
		ce.Findings = []Finding{}
	}
	slices.SortStableFunc(ce.Findings, func(a, b Finding) int { return int(a.Kind) - int(b.Kind) })
	return ce
}

// position explains a position citation whose span does not read as its
// quote: where the quote occurs, and whether start and end count other
// units. The fix is the one span the findings determine: the one a unit
// reading gives, else the occurrence that starts at start or ends at end,
// else the only occurrence.
func (e *explainer) position(j int, x *indexedText, cit *Citation) CitationExplanation {
	var ce CitationExplanation
	q, m := cit.Quote, utext.RuneCount(cit.Quote)
	total, starts := occurrenceStarts(x, q, 0)
	for _, s := range starts {
		ce.Findings = append(ce.Findings, Finding{Kind: FindingElsewhere, Start: s, End: s + m, Occurrences: total})
	}
	if total == 0 {
		return ce
	}
	start, end := cit.Selector.Start, cit.Selector.End
	var read []Span // distinct spans a unit reading gives
	if !x.ASCII() { // in ASCII every unit counts alike
		for u := range unitsCount {
			bs, ok1 := e.byteAt(j, x, u, start)
			be, ok2 := e.byteAt(j, x, u, end)
			if !ok1 || !ok2 || bs > be || x.String()[bs:be] != q {
				continue
			}
			sp := Span{x.CodePointAt(bs), x.CodePointAt(be)}
			ce.Findings = append(ce.Findings, Finding{Kind: FindingOffsetUnits, Start: sp.Start, End: sp.End, Units: u})
			if !slices.Contains(read, sp) {
				read = append(read, sp)
			}
		}
	}
	if len(read) == 0 {
		// Compared, not summed, with the text's length: a Request built by
		// hand may hold any int (Decode bounds them to ±2^53).
		var at []Span
		if 0 <= start && start <= x.Len()-m {
			at = append(at, Span{start, start + m})
		}
		if m <= end && end <= x.Len() {
			at = append(at, Span{end - m, end})
		}
		for _, sp := range at {
			if x.Slice(sp.Start, sp.End) == q && !slices.Contains(read, sp) {
				read = append(read, sp)
			}
		}
	}
	if len(read) == 0 && total == 1 {
		read = append(read, Span{starts[0], starts[0] + m})
	}
	if len(read) == 1 {
		fix := *cit
		fix.Selector.Start, fix.Selector.End = read[0].Start, read[0].End
		ce.Fix = &fix
	}
	return ce
}

// anchorSpan is the span of the claim (prefix+exact+suffix) of an anchor
// whose exact starts at p.
func anchorSpan(sel *Selector, p int) Span {
	return Span{p - utext.RuneCount(sel.Prefix), p + utext.RuneCount(sel.Exact) + utext.RuneCount(sel.Suffix)}
}

// anchorAt reports whether the whole anchor stands with its exact at code
// point p. O(anchor) after the index.
func anchorAt(x *indexedText, sel *Selector, p int) bool {
	if p < 0 || p > x.Len() {
		return false
	}
	b := x.ByteAt(p)
	return b >= len(sel.Prefix) && x.String()[b-len(sel.Prefix):b] == sel.Prefix &&
		strings.HasPrefix(x.String()[b:], sel.Exact+sel.Suffix)
}

// claimedReadings returns, for each unit under which claimed_start c names
// another code point where the whole anchor stands, an offset_units
// finding.
func (e *explainer) claimedReadings(j int, x *indexedText, sel *Selector, c int) []Finding {
	var fs []Finding
	if x.ASCII() {
		return nil
	}
	for u := range unitsCount {
		b, ok := e.byteAt(j, x, u, c)
		if !ok {
			continue
		}
		if p := x.CodePointAt(b); p != c && anchorAt(x, sel, p) {
			sp := anchorSpan(sel, p)
			fs = append(fs, Finding{Kind: FindingOffsetUnits, Start: sp.Start, End: sp.End, Units: u})
		}
	}
	return fs
}

// misplaced explains a position_mismatch: the anchor is unique at resolved,
// and the fix is claimed_start = resolved.
func (e *explainer) misplaced(j int, x *indexedText, cit *Citation, resolved int) CitationExplanation {
	sel := &cit.Selector
	sp := anchorSpan(sel, resolved)
	ce := CitationExplanation{Findings: []Finding{{Kind: FindingElsewhere, Start: sp.Start, End: sp.End, Occurrences: 1}}}
	ce.Findings = append(ce.Findings, e.claimedReadings(j, x, sel, cit.ClaimedStart)...)
	fix := *cit
	fix.ClaimedStart = resolved
	ce.Fix = &fix
	return ce
}

// ambiguous explains an ambiguous_anchor: for the match claimed_start picks
// (as code points, else under the one unit reading that picks one), or
// else for each match in match_starts, the shortest prefix and suffix that
// leave that match only. Only a picked match is fixed, with the shorter of
// the two contexts (the prefix when they are as long).
func (e *explainer) ambiguous(j int, x *indexedText, cit *Citation, matchStarts []int) CitationExplanation {
	var ce CitationExplanation
	sel := &cit.Selector
	picked := -1
	if cit.HasClaimedStart {
		if anchorAt(x, sel, cit.ClaimedStart) {
			picked = cit.ClaimedStart
		} else {
			ce.Findings = e.claimedReadings(j, x, sel, cit.ClaimedStart)
			var at []int
			for _, f := range ce.Findings {
				if p := f.Start + utext.RuneCount(sel.Prefix); !slices.Contains(at, p) {
					at = append(at, p)
				}
			}
			if len(at) == 1 {
				picked = at[0]
			}
		}
	}
	matches := matchStarts
	if picked >= 0 {
		matches = []int{picked}
	}
	for _, p := range matches {
		sp := anchorSpan(sel, p)
		prefix, suffix := uniqueContext(x, sel, p)
		if e.budget.Refused() { // this match's contexts are not sure; the ones before are
			break
		}
		if prefix != nil {
			ce.Findings = append(ce.Findings, Finding{Kind: FindingDisambiguate, Start: sp.Start, End: sp.End, Prefix: prefix})
		}
		if suffix != nil {
			ce.Findings = append(ce.Findings, Finding{Kind: FindingDisambiguate, Start: sp.Start, End: sp.End, Suffix: suffix})
		}
		if picked < 0 || prefix == nil && suffix == nil {
			continue
		}
		fix := *cit
		fix.ClaimedStart = picked
		// Each context extends the citation's own: compare what is added.
		if suffix == nil || prefix != nil && utext.RuneCount(*prefix)-utext.RuneCount(sel.Prefix) <= utext.RuneCount(*suffix)-utext.RuneCount(sel.Suffix) {
			fix.Selector.Prefix = *prefix
		} else {
			fix.Selector.Suffix = *suffix
		}
		ce.Fix = &fix
	}
	return ce
}

// normalized finds where the claim holds under folds: the claim, read
// under every fold, is looked for in the source read under every fold
// (built once per request), its first piece first; each of the first
// normalizedListed candidates is mapped back to code points, confirmed
// there, and given its minimal fold set. Candidates where the source reads
// exactly as the claim are elsewhere findings, not these.
func (e *explainer) normalized(j int, x *indexedText, claim string) []Finding {
	if src, ok := e.plainBytes(j); ok { // the claim's pass, once, is not charged
		if cl, ok := plainBytes(claim); ok && foldsApart(src, cl) {
			// The claim occurs nowhere exactly, and the folds read the
			// bytes of both one for one, telling them apart: it occurs
			// nowhere folded.
			return nil
		}
	}
	if !e.mayHoldFolded(j, claim) {
		return nil
	}
	ft := e.foldedSource(j)
	if ft == nil {
		return nil
	}
	// A long claim's first piece, folded, is looked for before the rest
	// is folded: what a folder has written is final, so a claim whose
	// first piece does not occur does not either, and a fabricated claim
	// (of the source's own words, reordered) costs one piece. Where the
	// piece occurs a few times, the claim can only occur there.
	w := fold.NewFolder(fold.All, len(claim))
	i := w.Piece(claim, 0)
	var at search.Occurrences
	if i < len(claim) {
		if at = ft.Find(w.Written(), 0, make([]int, 0, normalizedProbed)); at.Count == 0 {
			return nil
		}
	}
	if !e.budget.Admit() {
		return nil
	}
	e.budget.Charge(foldWork(claim[i:]))
	w.Fold(claim[i:])
	fc := w.Done()
	if fc == "" || fc == claim && ft.Same() {
		// A claim and a source that read as they are under every fold,
		// the claim occurring nowhere exactly: nowhere folded either.
		return nil
	}
	var o search.Occurrences
	if i < len(claim) && at.Complete() {
		o = at.Filter(func(b int) bool { return strings.HasPrefix(ft.Folded()[b:], fc) })
	} else {
		o = ft.First(fc, 0, 2)
	}
	var fs []Finding
	for _, b := range o.First[:min(o.Count, 2)] {
		from, to := ft.Span(b, b+len(fc))
		sp := Span{from, to}
		if len(fs) == normalizedListed || len(fs) > 0 && fs[len(fs)-1].Start == sp.Start && fs[len(fs)-1].End == sp.End {
			continue
		}
		src := x.Slice(sp.Start, sp.End)
		if src == claim {
			continue
		}
		if !e.budget.Admit() {
			return nil
		}
		e.budget.Charge(foldWork(src) + foldWork(claim))
		if set, ok := fold.Minimal(src, claim); ok {
			fs = append(fs, Finding{Kind: FindingNormalized, Start: sp.Start, End: sp.End, Folds: Folds(set), SourceText: src})
		}
	}
	return fs
}

// elidedByIndex is the length of the shortest passage elided asks the
// searcher for; shorter ones strings.Index finds with SIMD.
const elidedByIndex = 64

// elisionWorkPerByte is what splitting a claim at its ellipses is
// charged a byte, in the budget's unit (measured on claims of a thousand
// short passages, the elided family of BenchmarkExplainHostile: the
// trimming of each passage costs most).
const elisionWorkPerByte = 6

// ellipses are the marks that join passages, longest first so that "[...]"
// is one mark, not "[" and "...".
var ellipses = []string{"[...]", "[…]", "...", "…"}

// elisionParts splits claim at its ellipses into passages, white space
// around them dropped, and returns nil when the claim has no ellipsis or
// nothing around it. Linear in the claim.
func elisionParts(claim string) []string {
	// Every mark holds "..." or "…": most claims have neither.
	if !strings.Contains(claim, "...") && !strings.Contains(claim, "…") {
		return nil
	}
	var parts []string
	found, from := false, 0
	cut := func(to int) {
		if p := strings.TrimFunc(claim[from:to], fold.IsWhiteSpace); p != "" {
			parts = append(parts, p)
		}
	}
	for i := 0; i < len(claim); {
		// Every mark starts with '[', '.' or the lead byte of "…".
		if c := claim[i]; c != '[' && c != '.' && c != 0xE2 {
			i++
			continue
		}
		n := 0
		for _, mark := range ellipses {
			if strings.HasPrefix(claim[i:], mark) {
				n = len(mark)
				break
			}
		}
		if n == 0 {
			i++
			continue
		}
		found = true
		cut(i)
		i += n
		from = i
	}
	cut(len(claim))
	if !found {
		return nil
	}
	return parts
}

// elided finds the passages of an elided claim in order in source j,
// each at its first occurrence after the one before: exactly, else read
// under every fold in the source read under every fold, as normalized
// reads the whole claim (spec §5.8: a claim whose passages were not
// searched under the folds is not said to be absent). Each search starts
// where the last one ended, so the searches of each reading cover it
// about once.
//
// Splitting the claim is charged to the budget (elisionWorkPerByte), its
// questions by the searchers, each short passage's search as the
// searcher's (QuestionWork/8 plus the bytes it reads), and under the
// folds each passage's folding, each occurrence's mapping back
// (spanWork) and comparison, and the fold set's, as normalized's are.
func (e *explainer) elided(j int, x *indexedText, claim string) *Finding {
	b := e.budget
	if !strings.Contains(claim, "...") && !strings.Contains(claim, "…") {
		return nil // elisionParts' own first test, at memory speed
	}
	if !b.Admit() {
		return nil
	}
	b.Charge(elisionWorkPerByte * len(claim))
	parts := elisionParts(claim)
	if parts == nil {
		return nil
	}
	spans := make([]Span, 0, len(parts))
	at := 0
	for _, p := range parts {
		found := e.passage(x.String(), e.searcher(j), p, at)
		if found < 0 {
			// A source costly to fold is folded only when the skeleton
			// of the passage not found exactly occurs in its skeleton.
			if b.Refused() || e.foldsApart(j, parts) || !e.mayHoldFolded(j, p) {
				return nil // nothing is said of a question refused
			}
			return e.elidedFolded(j, x, parts)
		}
		at = found + len(p)
		spans = append(spans, Span{x.CodePointAt(found), x.CodePointAt(at)})
	}
	start, end := spans[0].Start, spans[len(spans)-1].End
	return &Finding{Kind: FindingElided, Start: start, End: end, Parts: spans, SourceText: x.Slice(start, end)}
}

// foldsApart reports whether source j and the passages are plain bytes
// that every fold reads one for one, telling them apart (see normalized):
// then the passages occur under the folds exactly where they occur as
// they are. The passages' pass, once, is not charged, as the claim's is
// not in normalized.
func (e *explainer) foldsApart(j int, parts []string) bool {
	src, ok := e.plainBytes(j)
	if !ok {
		return false
	}
	var set byteSet
	for _, p := range parts {
		ps, ok := plainBytes(p)
		if !ok {
			return false
		}
		for i := range set {
			set[i] |= ps[i]
		}
	}
	return foldsApart(src, set)
}

// elidedFolded finds the passages of an elided claim in order in source
// j read under every fold: each passage folded as normalized folds the
// claim, looked for from where the one before ended, its occurrence
// mapped back to code points and compared there under every fold (an
// occurrence that starts or ends inside what one code point reads as, a
// ligature's second letter, or that shares a code point with the passage
// before, is passed over for the next). The finding's Folds are the
// first minimal set (fold.MinimalEach) under which every passage reads as
// its stretch of the source. nil when a passage does not occur so, or a
// question was refused.
func (e *explainer) elidedFolded(j int, x *indexedText, parts []string) *Finding {
	b := e.budget
	if b.Refused() {
		return nil
	}
	ft := e.foldedSource(j)
	if ft == nil {
		return nil
	}
	n := len(x.String())
	spanWork := spanMapFactor * e.sourceFoldWork(j) * min(fold.SpanBytes, n) / max(n, 1)
	spans := make([]Span, 0, len(parts))
	texts := make([]string, 0, len(parts))
	at, prev := 0, 0 // where the last passage ended, in the folded reading and in code points
	work := 0        // the folds compared: what fold.MinimalEach is charged
	for _, p := range parts {
		if !b.Admit() {
			return nil
		}
		b.Charge(foldWork(p))
		w := fold.NewFolder(fold.All, len(p))
		w.Fold(p)
		fp := w.Done()
		if fp == "" {
			return nil // a passage of what the folds drop has no place
		}
		for {
			found := e.passage(ft.Folded(), ft.Searcher, fp, at)
			if found < 0 {
				return nil
			}
			// Two steps, each within maxStepWork.
			if !b.Admit() {
				return nil
			}
			b.Charge(spanWork)
			from, to := ft.Span(found, found+len(fp))
			src := x.Slice(from, to)
			if !b.Admit() {
				return nil
			}
			b.Charge(foldWork(src) + foldWork(p))
			if from >= prev && fold.Equal(src, p, fold.All) {
				spans, texts = append(spans, Span{from, to}), append(texts, src)
				at, prev = found+len(fp), to
				work += foldWork(src) + foldWork(p)
				break
			}
			at = found + 1
		}
	}
	if !b.Admit() {
		return nil
	}
	b.Charge(work)
	set, ok := fold.MinimalEach(texts, parts)
	if !ok {
		return nil
	}
	if slices.Equal(texts, parts) {
		set = 0 // unreachable: the exact search would have found them
	}
	start, end := spans[0].Start, spans[len(spans)-1].End
	return &Finding{Kind: FindingElided, Start: start, End: end, Parts: spans, Folds: Folds(set), SourceText: x.Slice(start, end)}
}

// spanMapFactor is what folding with the map (fold.Source.Span) costs
// beside folding alone.
const spanMapFactor = 3

// passage returns the first occurrence of p in text (a source or a
// reading of it, whose searcher s is) at or after byte at, and -1 when
// there is none or the question was refused.
func (e *explainer) passage(text string, s *search.Searcher, p string, at int) int {
	b := e.budget
	if len(p) >= elidedByIndex {
		o := s.First(p, at, 1)
		if o.Count == 0 {
			return -1
		}
		return o.First[0]
	}
	// A short passage by strings.Index from where the last one ended
	// (SIMD for needles this short): the passages' searches cover the
	// text about once, a fraction of what a question of the searcher
	// costs each.
	if !b.Admit() {
		return -1
	}
	i := strings.Index(text[at:], p)
	read := len(text) - at
	if i >= 0 {
		read = i + len(p)
	}
	b.Charge(search.QuestionWork/8 + read/search.IndexBytesPerStep)
	if i < 0 {
		return -1
	}
	return at + i
}
