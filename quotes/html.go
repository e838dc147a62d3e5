package quotes

import (
	"strconv"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/report"
)

// The HTML report of `citecheck quotes --format html` (docs/report-html.md):
// this file fills report.Page; package report renders it.

// tones are the outcomes' tones on the page: the right words in the wrong
// place, or nearly the right words, are near; a quotation with no source
// to check it against is not checked.
var tones = [outcomeCount]report.Tone{NoSource: report.ToneNotChecked, Verbatim: report.TonePass, Moved: report.ToneNear,
	Elsewhere: report.ToneNear, Near: report.ToneNear, NotFound: report.ToneFail, NotChecked: report.ToneNotChecked}

// NewHTMLPage is the page of a run over input, named name, whose shape is
// shape: its title, kind, the outcomes its summary counts and, for a
// report, the report itself as the document each quotation is marked in
// (Result's [Offset, End)). A structured answer or an Anthropic response
// has no document: its citations are listed alone (their quotes, and the
// sources' passages), since a JSON answer's text is not what a person
// reads, and an Anthropic response's text blocks would need their own
// offsets. Add the items with Answer.AppendHTMLItems.
func NewHTMLPage(name string, shape Shape, input []byte) *report.Page {
	p := &report.Page{Title: "citecheck quotes: " + name, Kind: "quotes"}
	for _, o := range Outcomes() {
		p.Outcomes = append(p.Outcomes, report.Outcome{Name: o.String(), Tone: tones[o]})
	}
	if shape == Report {
		p.Document = &report.Document{Name: name, Text: string(input)}
	}
	return p
}

// AppendHTMLItems appends one report.Item per result, in order (the order
// of the JSON lines): where it is, its outcome, what it quotes, the
// source id the outcome names, its range in the report, the outcome and
// the fix in words, and the passages of the sources it is shown against
// (places: the ones the text report draws, and the ones its explanation
// block states in words). Cost: each source drawn is indexed once per
// answer; each passage copies at most report.ExcerptContext code points
// on each side of its place.
func (a *Answer) AppendHTMLItems(dst []report.Item) []report.Item {
	texts := a.texts()
	for i := range a.Results {
		r := &a.Results[i]
		it := report.Item{
			ID:      "q" + strconv.Itoa(r.Index),
			Head:    a.head(r),
			Outcome: r.Outcome.String(),
			Text:    r.Text,
			Why:     a.why(r),
			Fix:     fixWords(r),
		}
		if r.Source >= 0 {
			it.Source = a.Sources[r.Source].ID
		}
		if a.Shape == Report {
			it.Range = &report.ByteRange{Start: r.Offset, End: r.End}
		}
		for _, pl := range a.places(r) {
			it.Passages = append(it.Passages, report.NewPassage(pl.kind.label(), texts(pl.src), pl.start, pl.end, pl.kind == placeNearest))
		}
		dst = append(dst, it)
	}
	return dst
}

// texts returns a function giving source i's citecheck.Text, built once
// for the answer, when first asked for.
func (a *Answer) texts() func(int) *citecheck.Text {
	texts := map[int]*citecheck.Text{}
	return func(i int) *citecheck.Text {
		if texts[i] == nil {
			texts[i] = citecheck.NewText(a.Sources[i].Text)
		}
		return texts[i]
	}
}

// placeKind is what a place of a source is to a result.
type placeKind uint8

const (
	placeMatch   placeKind = iota // verbatim: where the quotation stands
	placeFound                    // moved, elsewhere: where it stands exactly
	placeCited                    // moved: the span the citation names
	placeNearest                  // near: the reading under a fold, or as an elision
	placePartial                  // not_found: the longest leading part found
)

// label is the place's label in the HTML report.
func (k placeKind) label() string {
	return [...]string{"match", "found", "cited span", "nearest reading", "longest part found"}[k]
}

// place is a passage of source src, [start, end) in code points, that a
// report shows a result against.
type place struct {
	kind            placeKind
	src, start, end int
}

// places are the passages of the sources result r is shown against, in
// the order they are shown: the text report draws the found and nearest
// ones as excerpts (and states the cited span and the longest part in its
// explanation block); the HTML report shows them all.
func (a *Answer) places(r *Result) []place {
	var out []place
	if r.Span != nil && r.Source >= 0 {
		k := placeFound
		if r.Outcome == Verbatim {
			k = placeMatch
		}
		out = append(out, place{k, r.Source, r.Span.Start, r.Span.End})
	}
	switch r.Outcome {
	case Moved:
		if r.Source >= 0 {
			if s, e, ok := spanOf(r.Location, &a.Sources[r.Source]); ok && s <= e && e <= len([]rune(a.Sources[r.Source].Text)) {
				out = append(out, place{placeCited, r.Source, s, e})
			}
		}
	case Near:
		for _, f := range r.Findings {
			if f.Kind == citecheck.FindingNormalized || f.Kind == citecheck.FindingElided {
				out = append(out, place{placeNearest, r.Source, f.Start, f.End})
				break
			}
		}
	case NotFound:
		if j := r.drawn; j != nil && j.src >= 0 {
			for _, f := range j.findings {
				if f.Kind == citecheck.FindingPartial && f.Length > 0 {
					out = append(out, place{placePartial, j.src, f.Start, f.End})
					break
				}
			}
		}
	}
	return out
}
