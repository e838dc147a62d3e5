package report

import (
	"github.com/citecheck/citecheck"
)

// Quote is one quotation that is not verbatim, as AppendQuote draws it
// (`citecheck quotes --format text`): where it is, what it quotes, the
// outcome in words, and the source around its nearest match.
type Quote struct {
	Head    string  // where the quotation is: "quotation 2, line 14, column 3"
	Outcome string  // its outcome's name
	Text    string  // the quotation
	Marker  *string // the source id its marker names, nil without one
	Why     string  // the outcome in words
	// Req, Ex and K are the failing citation whose block is drawn: the
	// source around where the quotation parts from it, the hint, and the
	// findings in words. Req is nil when no check is drawn.
	Req *citecheck.Request
	Ex  *citecheck.Explanation
	K   int
	// Marks are passages where the quotation, or a reading of it, stands,
	// each drawn with the source around it.
	Marks []Mark
	Fix   string // the fix in words, "" for none
}

// Mark is a passage of a source that a quote report points at.
type Mark struct {
	Label      string // "found", "near"
	Text       *citecheck.Text
	Start, End int // code points
}

// AppendQuote appends the block of one quotation that is not verbatim.
func AppendQuote(dst []byte, q *Quote, o Options) []byte {
	r := newRenderer(dst, q.Req, o)
	r.explain, r.quoted = q.Ex, true
	r.style(styleBold, q.Head)
	r.dst = append(r.dst, ": "...)
	r.style(styleFail, q.Outcome)
	r.dst = append(r.dst, '\n')
	r.line("quote", "%s", quote(q.Text, quotedCols))
	if q.Marker != nil {
		r.line("marker", "%s", quote(*q.Marker, quotedCols))
	}
	r.line("why", "%s", q.Why)
	for _, m := range q.Marks {
		l := excerpt(m.Text.String(), m.Text.ByteOffset(m.Start), m.Text.ByteOffset(m.End))
		r.excerptLine(m.Label, l)
		r.caret(l.markCol, l.markW, l.firstW)
	}
	if q.Req != nil {
		r.citationBody(q.Ex.All.Citations[q.K].Discrepancy(), false)
	}
	if q.Fix != "" {
		r.line("fix", "%s", q.Fix)
	}
	r.dst = append(r.dst, '\n')
	return r.dst
}

// AppendQuotesVerdict appends the closing line of a quote report: every
// one of checked quotations verbatim, or how many are not, by outcome
// (counts as "1 near, 2 not_found").
func AppendQuotesVerdict(dst []byte, checked, failing int, counts string, o Options) []byte {
	r := newRenderer(dst, nil, o)
	if failing == 0 {
		r.style(styleOK, "✓ verbatim")
		noun := "quotations are"
		if checked == 1 {
			noun = "quotation is"
		}
		r.printf(": %d %s verbatim in their sources\n", checked, noun)
		return r.dst
	}
	r.style(styleFail, "✗ not verbatim")
	r.printf(": %d of %d quotations: %s\n", failing, checked, counts)
	return r.dst
}

// Quoted writes s between double quotes for a sentence, as the report
// quotes a claim: invisible characters as stand-ins, cut at about maxCols
// columns with its length said.
func Quoted(s string, maxCols int) string { return quote(s, maxCols) }
