package quotes

import (
	"fmt"
	"strings"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/report"
)

// AppendText appends the report a person reads (`--format text`): each
// quotation that is not verbatim, where it is and why, with the source
// around its nearest match, then a verdict line. Verbatim quotations are
// counted, not listed. Its wording is not a contract.
//
// Cost: linear in the sources drawn (each is indexed once) and the
// results.
func (a *Answer) AppendText(dst []byte, o report.Options) []byte {
	dst = a.AppendTextResults(dst, o)
	counts := make([]int, outcomeCount)
	for i := range a.Results {
		counts[a.Results[i].Outcome]++
	}
	return AppendTextVerdict(dst, counts, o)
}

// AppendTextResults appends AppendText's blocks, without the verdict
// line: what a caller that checks batch by batch writes for each batch.
func (a *Answer) AppendTextResults(dst []byte, o report.Options) []byte {
	text := a.texts()
	for i := range a.Results {
		r := &a.Results[i]
		if r.Outcome == Verbatim {
			continue
		}
		q := &report.Quote{Head: a.head(r), Outcome: r.Outcome.String(), Text: r.Text, Why: a.why(r)}
		if r.Marked {
			q.Marker = &r.Marker
		}
		if j := r.drawn; j != nil && j.ex != nil && j.ex.All.Citations[j.k].Reason != citecheck.ReasonNone {
			q.Req, q.Ex, q.K = j.req, j.ex, j.k
		}
		// The places the HTML report shows too (AppendHTMLItems); the
		// cited span and the longest part found are in q.Ex's words.
		for _, pl := range a.places(r) {
			switch pl.kind {
			case placeFound:
				q.Marks = append(q.Marks, report.Mark{Label: "found", Text: text(pl.src), Start: pl.start, End: pl.end})
			case placeNearest:
				q.Marks = append(q.Marks, report.Mark{Label: "near", Text: text(pl.src), Start: pl.start, End: pl.end})
			}
		}
		q.Fix = fixWords(r)
		dst = report.AppendQuote(dst, q, o)
	}
	return dst
}

// AppendTextVerdict appends the text report's verdict line, for counts
// of results per outcome (indexed by Outcome).
func AppendTextVerdict(dst []byte, counts []int, o report.Options) []byte {
	total, failing := 0, 0
	var words []string
	for _, oc := range Outcomes() {
		n := counts[oc]
		total += n
		if n > 0 && oc != Verbatim {
			failing += n
			words = append(words, fmt.Sprintf("%d %s", n, oc))
		}
	}
	return report.AppendQuotesVerdict(dst, total, failing, strings.Join(words, ", "), o)
}

// head says where a result's quotation is.
func (a *Answer) head(r *Result) string {
	switch {
	case a.Shape == Report && r.Blockquote:
		return fmt.Sprintf("quotation %d, line %d (blockquote)", r.Index, r.Line)
	case a.Shape == Report:
		return fmt.Sprintf("quotation %d, line %d, column %d", r.Index, r.Line, r.Column)
	case r.Location != nil:
		return fmt.Sprintf("citation %d (content block %d, %s)", r.Index, r.Location.Block, r.Location.Type)
	}
	return fmt.Sprintf("citation %d", r.Index)
}

// why says a result's outcome in words.
func (a *Answer) why(r *Result) string {
	src := func() string {
		if r.Source < 0 {
			return "(none)"
		}
		return report.Quoted(a.Sources[r.Source].ID, 30)
	}
	switch r.Outcome {
	case NoSource:
		ids := make([]string, 0, min(len(a.Sources), 6))
		for i, s := range a.Sources {
			if i == 5 {
				ids = append(ids, fmt.Sprintf("… (%d in all)", len(a.Sources)))
				break
			}
			ids = append(ids, report.Quoted(s.ID, 20))
		}
		if len(ids) == 0 {
			return "no source is supplied"
		}
		return fmt.Sprintf("no source has id %s; the sources are %s", report.Quoted(r.Marker, 30), strings.Join(ids, ", "))
	case NotChecked:
		switch {
		case r.Limit != nil && r.Limit.Name == citecheck.LimitQuoteBytes:
			return fmt.Sprintf("not checked: %d bytes, longer than %s (%d)", r.Limit.Actual, r.Limit.Name, r.Limit.Max)
		case r.Limit != nil:
			return fmt.Sprintf("not checked: checking it would scan %d units of text, over %s (%d)", r.Limit.Actual, r.Limit.Name, r.Limit.Max)
		}
		return "not checked: " + r.Why
	case Moved:
		return fmt.Sprintf("the span %s of document %s does not read as cited_text, which stands exactly at %s", spanWords(r.Location), src(), span(r.Span))
	case Elsewhere:
		return fmt.Sprintf("not in source %s; it stands exactly in source %s at %s", report.Quoted(r.Marker, 30), src(), span(r.Span))
	case Near:
		return fmt.Sprintf("not exactly in source %s; it stands there only read under a fold or as an elision", src())
	case NotFound:
		if r.Marked {
			return fmt.Sprintf("not in source %s, exactly or under a fold, nor exactly in another source", src())
		}
		why := fmt.Sprintf("in none of the %d sources, exactly or under a fold", len(a.Sources))
		if r.drawn != nil {
			why += "; its longest leading part is in source " + report.Quoted(a.Sources[r.drawn.src].ID, 30)
		}
		return why
	}
	return ""
}

func span(s *citecheck.Span) string { return fmt.Sprintf("[%d, %d)", s.Start, s.End) }

// spanWords names an Anthropic location's span as the response gives it.
func spanWords(l *Location) string {
	if l.Type == ContentBlockLocation {
		return fmt.Sprintf("blocks [%d, %d)", l.Start, l.End)
	}
	return fmt.Sprintf("[%d, %d)", l.Start, l.End)
}

// fixWords says a result's fix in words, "" for none.
func fixWords(r *Result) string {
	f := r.Fix
	switch {
	case f == nil:
		return ""
	case f.Marker != nil:
		return "mark it " + report.Quoted(*f.Marker, 30)
	case f.Start != nil && r.Location.Type == ContentBlockLocation:
		return fmt.Sprintf("start_block_index %d, end_block_index %d", *f.Start, *f.End)
	case f.Start != nil:
		return fmt.Sprintf("start_char_index %d, end_char_index %d", *f.Start, *f.End)
	}
	return "quote the source's words: " + report.Quoted(*f.Quote, 60)
}
