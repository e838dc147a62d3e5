package annotation

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/report"
)

// The items of `citecheck annotations --format html` (docs/report-html.md):
// one report.Item per item of the input, in the order of the JSON lines,
// drawn from the same report the text and JSON are.

// HTMLOutcomes are the outcomes an annotations page counts, in the order
// its summary lists them: the closed enum (Outcomes), then "error".
func HTMLOutcomes() []report.Outcome {
	var out []report.Outcome
	for _, o := range Outcomes() {
		out = append(out, report.Outcome{Name: o.String(), Tone: tones[o]})
	}
	return append(out, report.ErrorOutcome)
}

// tones are the outcomes' tones on the page: an annotation whose text is
// there but not where it says is near; one that could not be checked is
// not checked.
var tones = [outcomeCount]report.Tone{Anchored: report.TonePass, Moved: report.ToneNear, Ambiguous: report.ToneNear,
	Orphaned: report.ToneFail, Unchecked: report.ToneNotChecked, NoSource: report.ToneNotChecked}

// HTMLItems builds the HTML report's items of the annotations a Checker
// checks: it reads the checker's sources, each indexed once (its code
// points) when a passage of it is first drawn. Not safe for concurrent
// use.
type HTMLItems struct {
	c     *Checker
	texts map[string]*citecheck.Text
}

// HTMLItems returns a builder of the HTML report's items for reports of c.
func (c *Checker) HTMLItems() *HTMLItems {
	return &HTMLItems{c: c, texts: map[string]*citecheck.Text{}}
}

// text is the source named iri, indexed; nil when it was not supplied or
// could not be read.
func (h *HTMLItems) text(iri string) *citecheck.Text {
	if x, ok := h.texts[iri]; ok {
		return x
	}
	var x *citecheck.Text
	if s := h.c.sources[iri]; s != nil && s.Err == nil {
		x = citecheck.NewText(s.Text)
	}
	h.texts[iri] = x
	return x
}

// Append appends the item of it, as Stream hands it on: r its report, nil
// for an item that is not an annotation (an error item). The item's ID is
// "a{index}", its Outcome the JSON line's outcome ("error" for an error
// item), Pass whether it is anchored; Text, Source and Passages are of
// its most severe target (the first whose outcome is the annotation's):
// its first TextQuoteSelector's exact, its source IRI, and
//   - anchored: where the quote stands (the match);
//   - moved: where the quote stands (the match: the repair, or the
//     resolved start) and where the position selectors point (the stored
//     position, compared with the exact);
//   - ambiguous: each match the detail and findings name, and the stored
//     position;
//   - orphaned: for exact_not_found, the nearest reading the selector's
//     findings give (report.NearestReading, compared); for a prefix or
//     suffix that fails, the exact where it stands;
//   - unchecked, no_source: none.
//
// Why is the text report's lines for the annotation (AppendText), or
// "anchored" and where; Fix says each repair --fix would write.
//
// Cost: per item, its report's size; per anchored quote without a
// position, one scan of its source; per source, its code point index once.
func (h *HTMLItems) Append(dst []report.Item, it Item, r *Report) []report.Item {
	if r == nil || r.Err != nil {
		return append(dst, h.errorItem(it, r))
	}
	a := r.Annotation
	item := report.Item{
		ID:      "a" + strconv.Itoa(it.Index),
		Head:    head(it.Index, a.Value, a.Pointer, a.ID),
		Outcome: r.Outcome.String(),
	}
	j := r.mainTarget()
	if j < 0 {
		item.Why = "no target: nothing to check"
		return append(dst, item)
	}
	t, tr := &a.Targets[j], &r.Targets[j]
	item.Source = t.Source
	if q := t.first(TextQuote); q != nil {
		item.Text = q.Exact
	} else {
		for k := range a.Targets { // the main target has none: any target's
			if q := a.Targets[k].first(TextQuote); q != nil {
				item.Text = q.Exact
				break
			}
		}
	}
	if r.Outcome == Anchored {
		item.Why = "anchored: every checked selector holds"
	} else {
		lines := strings.Split(strings.TrimSuffix(string(r.AppendText(nil, it.Index)), "\n"), "\n")[1:]
		for i, l := range lines {
			lines[i] = strings.TrimLeft(l, " ")
		}
		item.Why = strings.Join(lines, "\n")
	}
	if x := h.text(t.Source); x != nil {
		item.Passages = passages(x, t, tr)
	}
	var fixes []string
	for k := range r.Targets {
		if rp := r.Targets[k].Repair; rp != nil {
			fixes = append(fixes, fmt.Sprintf("target %s: --fix writes start %d, end %d", a.Targets[k].Pointer, rp.Start, rp.End))
		}
	}
	item.Fix = printable(strings.Join(fixes, "; "))
	return append(dst, item)
}

// errorItem is the item of an error item (r nil), or of an annotation
// whose source could not be read (r.Err).
func (h *HTMLItems) errorItem(it Item, r *Report) report.Item {
	e, value, ptr, id, off := it.Err, it.Value, "", it.ID, it.Offset
	if e != nil {
		ptr = e.Path
	}
	if r != nil {
		a := r.Annotation
		e, value, ptr, id, off = r.Err, a.Value, a.Pointer, a.ID, a.Offset
	}
	return report.Item{
		ID:      "a" + strconv.Itoa(it.Index),
		Head:    head(it.Index, value, ptr, id),
		Outcome: report.ErrorOutcome.Name,
		Why:     fmt.Sprintf("error at byte %d: %s", off, e.Code),
		Error:   printable(e.Message),
	}
}

// head names an item for the page: "annotation 1 "id" (value 0 at
// /rows/1)", escaped as the text report escapes.
func head(index, value int, ptr, id string) string {
	s := "annotation " + strconv.Itoa(index) + " "
	if id == "" {
		s += "(no id)"
	} else {
		s += strconv.Quote(id)
	}
	s += fmt.Sprintf(" (value %d", value)
	if ptr != "" {
		s += " at " + ptr
	}
	return printable(s + ")")
}

// printable is s as the text report writes it: every character that is
// not printable escaped (appendLine).
func printable(s string) string {
	return strings.TrimSuffix(string(appendLine(nil, "%s", s)), "\n")
}

// mainTarget is the index of the first target whose outcome is the
// annotation's, -1 when it has none.
func (r *Report) mainTarget() int {
	for j := range r.Targets {
		if r.Targets[j].Outcome == r.Outcome {
			return j
		}
	}
	if len(r.Targets) > 0 {
		return 0
	}
	return -1
}

// first is the target's first selector of type typ (TextQuote,
// TextPosition), nil for none.
func (t *Target) first(typ string) *Selector {
	for i := range t.Selectors {
		if t.Selectors[i].Type == typ {
			return &t.Selectors[i]
		}
	}
	return nil
}

// quoteCheck is the verdict on the target's first quote selector, nil
// when it was not checked.
func quoteCheck(tr *TargetReport) *SelectorCheck {
	for i := range tr.Checked {
		if tr.Checked[i].Type == citecheck.QuoteSelector {
			return &tr.Checked[i]
		}
	}
	return nil
}

// passages are the places of x a target is shown against (see Append).
func passages(x *citecheck.Text, t *Target, tr *TargetReport) []report.Passage {
	q, pos, qc := t.first(TextQuote), t.first(TextPosition), quoteCheck(tr)
	if q == nil || qc == nil {
		return nil
	}
	n := len([]rune(q.Exact))
	var ps []report.Passage
	add := func(label string, start, end int, compare bool) {
		for _, p := range ps {
			if p.Start == start && p.End == end {
				return
			}
		}
		ps = append(ps, report.NewPassage(label, x, start, end, compare))
	}
	stored := func() {
		if pos != nil {
			add("stored position", pos.Start, pos.End, true)
		}
	}
	switch tr.Outcome {
	case Anchored:
		claimed := -1
		if pos != nil {
			claimed = pos.Start
		}
		if start, end := report.AnchorSpan(x, q.Exact, q.Prefix, q.Suffix, claimed); start >= 0 {
			add("match", start, end, false)
		}
	case Moved:
		switch {
		case tr.Repair != nil:
			add("match", tr.Repair.Start, tr.Repair.End, false)
		case qc.Detail != nil && qc.Detail.ResolvedStart != nil:
			add("match", *qc.Detail.ResolvedStart, *qc.Detail.ResolvedStart+n, false)
		}
		stored()
	case Ambiguous:
		if qc.Detail != nil {
			for _, s := range qc.Detail.MatchStarts {
				add("match", s, s+n, false)
			}
		}
		for _, f := range qc.Findings {
			if f.Kind == citecheck.FindingDisambiguate {
				add("match", f.Start, f.End, false)
			}
		}
		stored()
	case Orphaned:
		switch qc.Reason {
		case citecheck.ReasonExactNotFound:
			cit := &citecheck.Citation{SourceID: t.Source, Selector: citecheck.Selector{Type: citecheck.QuoteSelector, Exact: q.Exact, Prefix: q.Prefix, Suffix: q.Suffix}}
			if p, ok := report.NearestReading(x, cit, qc.Findings); ok {
				ps = append(ps, p)
			}
		case citecheck.ReasonPrefixMismatch, citecheck.ReasonSuffixMismatch:
			if qc.Detail != nil && len(qc.Detail.MatchStarts) > 0 {
				s := qc.Detail.MatchStarts[0]
				add("match", s, s+n, false)
			}
		}
	}
	return ps
}
