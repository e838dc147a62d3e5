// Package report draws citecheck's results as text a person reads in a
// terminal: for each failing citation, what it claimed, why it failed in
// plain words, the source around the failure with the differing character
// marked, and a hint from [citecheck.Hint] that saves searching the source.
// [AppendHTML] draws the same for a browser: one self-contained page of a
// [Page] the quotes, annotations and run adapters fill
// (docs/report-html.md).
//
// The report is for people; its wording may change between releases.
// Programs read the JSON ([citecheck.AppendEnvelope],
// [citecheck.AppendAllEnvelope]). Positions in a report count code points
// from 0, as everywhere in citecheck; spans are written [start, end).
package report

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
)

// Options say how a report is drawn.
type Options struct {
	// Color adds ANSI colour and emphasis. The caller decides: the CLI sets
	// it when standard output is a terminal and NO_COLOR is not set, so
	// that piped reports carry no escape codes.
	Color bool
}

// labelCols is the width of the label column ("claim", "source", …),
// indent included; excerpts and carets start after it.
const labelCols = 10

// AppendResult appends the report of a contract result: the failing
// citation, if any (the check stops at the first failure), and a closing
// verdict line. req is the request res was checked from.
func AppendResult(dst []byte, req *citecheck.Request, res *citecheck.Result, o Options) []byte {
	r := newRenderer(dst, req, o)
	if res.Valid {
		r.verdictOK(res.CitationsChecked)
		return r.dst
	}
	d := res.FirstDiscrepancy
	r.citation(d)
	r.style(styleFail, "✗ invalid")
	r.printf(": citation %d failed (%s); %d of %d citations checked", d.CitationIndex, res.Reason, res.CitationsChecked, len(req.Citations))
	if res.CitationsChecked < len(req.Citations) {
		r.printf(", the check stops at the first failure (--all checks every one)")
	}
	r.printf("\n")
	return r.dst
}

// AppendAll appends the report of every failing citation of all, in order,
// and a closing verdict with the failures counted by reason.
func AppendAll(dst []byte, req *citecheck.Request, all *citecheck.AllResult, o Options) []byte {
	return newRenderer(dst, req, o).all(all)
}

// all draws every failing citation of all and the closing verdict.
func (r *renderer) all(all *citecheck.AllResult) []byte {
	if all.Valid {
		r.verdictOK(len(all.Citations))
		return r.dst
	}
	var counts [16]int
	for k := range all.Citations {
		c := &all.Citations[k]
		if !c.Valid() {
			r.citation(c.Discrepancy())
			counts[c.Reason]++
		}
	}
	r.style(styleFail, "✗ invalid")
	r.printf(": %d of %d citations failed", all.Failed, len(all.Citations))
	sep := ": "
	for _, reason := range citecheck.Reasons() {
		if counts[reason] > 0 {
			r.printf("%s%s %d", sep, reason, counts[reason])
			sep = ", "
		}
	}
	r.printf("\n")
	return r.dst
}

// AppendError appends one line for a request that was refused: the error
// code, where, and the message.
func AppendError(dst []byte, e *citecheck.Error, o Options) []byte {
	r := newRenderer(dst, nil, o)
	r.style(styleFail, "✗ error "+e.Code)
	where := "the body"
	if e.Path != "" {
		where = e.Path
	}
	r.printf(" at %s: %s\n", where, e.Message)
	return r.dst
}

// AppendCitation appends the report of one failing citation: d, from
// checking req.
func AppendCitation(dst []byte, req *citecheck.Request, d *citecheck.Discrepancy, o Options) []byte {
	r := newRenderer(dst, req, o)
	r.citation(d)
	return r.dst
}

// renderer appends one report. It keeps each source's code point index so
// that a request with many failures in one long text indexes it once.
type renderer struct {
	dst   []byte
	o     Options
	req   *citecheck.Request
	texts map[int]*citecheck.Text // by source index
	// explain, when not nil, adds each failing citation's findings and
	// fix to its block (AppendExplanation).
	explain *citecheck.Explanation
	// quoted: the block is a quotation's (AppendQuote), which says its
	// own fix in the terms of its input, not as a request's citation.
	quoted bool
}

func newRenderer(dst []byte, req *citecheck.Request, o Options) *renderer {
	return &renderer{dst: dst, o: o, req: req, texts: map[int]*citecheck.Text{}}
}

func (r *renderer) printf(format string, args ...any) {
	r.dst = fmt.Appendf(r.dst, format, args...)
}

// style appends s in the ANSI style, or plain without colour.
func (r *renderer) style(style, s string) {
	if r.o.Color && style != "" {
		r.dst = append(r.dst, "\x1b["...)
		r.dst = append(r.dst, style...)
		r.dst = append(r.dst, 'm')
		r.dst = append(r.dst, s...)
		r.dst = append(r.dst, "\x1b[0m"...)
		return
	}
	r.dst = append(r.dst, s...)
}

// label starts a labelled line: "  claim   ".
func (r *renderer) label(name string) {
	r.dst = append(r.dst, "  "...)
	style := styleLabel
	if name == "hint" {
		style = styleHint
	}
	r.style(style, name)
	r.dst = append(r.dst, strings.Repeat(" ", labelCols-2-len(name))...)
}

func (r *renderer) line(name, format string, args ...any) {
	r.label(name)
	r.printf(format, args...)
	r.dst = append(r.dst, '\n')
}

func (r *renderer) verdictOK(n int) {
	r.style(styleOK, "✓ valid")
	noun := "citations hold"
	if n == 1 {
		noun = "citation holds"
	}
	r.printf(": %d %s (the quotes match their sources; authenticity is not checked)\n", n, noun)
}

// excerptLine appends a labelled excerpt line.
func (r *renderer) excerptLine(name string, l excerptLine) {
	r.label(name)
	for _, c := range l.cells {
		r.style(c.style, c.s)
	}
	r.dst = append(r.dst, '\n')
}

func (r *renderer) caret(col, w, firstW int) {
	line := caretLine(labelCols, col, w, firstW)
	pad := len(line) - w
	r.dst = append(r.dst, line[:pad]...)
	r.style(styleMark, line[pad:])
	r.dst = append(r.dst, '\n')
}

// source returns the index of the text citation cit cites.
func (r *renderer) source(cit *citecheck.Citation) *citecheck.Text {
	for j, s := range r.req.Sources {
		if s.SourceID == cit.SourceID && s.Version == cit.Version {
			if r.texts[j] == nil {
				r.texts[j] = citecheck.NewText(s.Text)
			}
			return r.texts[j]
		}
	}
	return citecheck.NewText("")
}

// mark draws the source around code points [from, to) with a caret line.
func (r *renderer) mark(x *citecheck.Text, from, to int) {
	l := excerpt(x.String(), x.ByteOffset(from), x.ByteOffset(to))
	r.excerptLine("source", l)
	r.caret(l.markCol, l.markW, l.firstW)
}

// compare draws the source and a claimed text one above the other, aligned
// on the first character where they part: the source at code point srcAt,
// the claim at code point claimAt. Where one has ended, its mark is empty.
func (r *renderer) compare(x *citecheck.Text, srcAt int, name, claimed string, claimAt int) {
	a := x.ByteOffset(srcAt)
	src := excerpt(x.String(), a, nextRuneEnd(x.String(), a))
	b := runeOffset(claimed, claimAt)
	cl := excerpt(claimed, b, nextRuneEnd(claimed, b))
	alignAt(&src, src.markCol, &cl, cl.markCol)
	r.excerptLine("source", src)
	r.excerptLine(name, cl)
	w := max(src.markW, cl.markW)
	r.caret(src.markCol, w, w)
}

// citation appends the block for one failing citation.
func (r *renderer) citation(d *citecheck.Discrepancy) {
	r.style(styleBold, fmt.Sprintf("citation %d %s", d.CitationIndex, quote(d.CitationID, quotedCols)))
	r.dst = append(r.dst, ": "...)
	r.style(styleFail, d.Reason.String())
	r.dst = append(r.dst, '\n')
	r.citationBody(d, true)
	r.dst = append(r.dst, '\n') // a blank line after each block
}

// citationBody draws a failing citation under its head: the claim (when
// claim), the reason, the source around the failure, the hint and, when
// the report explains, the findings and fix.
func (r *renderer) citationBody(d *citecheck.Discrepancy, claimed bool) {
	cit := &r.req.Citations[d.CitationIndex]
	det, reason := &d.Detail, d.Reason
	h := citecheck.Hint(r.req, d)
	defer r.explained(d.CitationIndex)
	if claimed {
		r.line("claim", "%s", claim(cit))
	}

	switch reason {
	case citecheck.ReasonUnknownSource:
		r.line("reason", "no source has source_id %s", quote(cit.SourceID, quotedCols))
		r.line("hint", "the sources supplied are %s", quoteList(h.SourceIDs))
		return
	case citecheck.ReasonVersionMismatch:
		r.line("reason", "source %s is supplied, but not in version %s", quote(cit.SourceID, quotedCols), quote(cit.Version, quotedCols))
		r.line("hint", "the versions supplied are %s", quoteList(det.AvailableVersions))
		return
	}

	x := r.source(cit)
	if d.SelectorType == citecheck.PositionSelector {
		r.positionReason(reason, cit, det, h, x)
	} else {
		r.quoteReason(reason, cit, det, h, x)
	}
}

// positionReason draws the reasons of a position citation whose source was found.
func (r *renderer) positionReason(reason citecheck.Reason, cit *citecheck.Citation, det *citecheck.Detail, h *citecheck.Suggestion, x *citecheck.Text) {
	sel := &cit.Selector
	switch reason {
	case citecheck.ReasonSpanReversed:
		r.line("reason", "the span is reversed: it starts at %d, after its end at %d", sel.Start, sel.End)
		r.mark(x, sel.End, sel.Start)
		r.quoteFound(h, "quote", cit.Quote)
	case citecheck.ReasonSpanOutOfRange:
		what, at := "ends", sel.End
		if sel.Start > x.Len() {
			what, at = "starts", sel.Start
		}
		r.line("reason", "the span %s at %d, past the end of the text (%d code points)", what, at, x.Len())
		r.mark(x, min(sel.Start, x.Len()), x.Len())
		r.quoteFound(h, "quote", cit.Quote)
	case citecheck.ReasonQuoteMismatch:
		i, at := *det.QuoteOffset, *det.SourceOffset
		switch {
		case det.ExpectedChar == nil:
			r.line("reason", "the quote is longer than the span: at its offset %d, where the span ends, it goes on with %s", i, char(*det.ClaimedChar))
		case det.ClaimedChar == nil:
			r.line("reason", "the quote is shorter than the span: it ends at its offset %d, where the source goes on with %s", i, char(*det.ExpectedChar))
		default:
			r.line("reason", "the quote differs from the source at its offset %d (position %d): the source has %s, the quote %s", i, at, char(*det.ExpectedChar), char(*det.ClaimedChar))
		}
		r.compare(x, at, "quote", cit.Quote, i)
		r.quoteFound(h, "quote", cit.Quote)
	}
}

// quoteReason draws the reasons of a quote citation whose source was found.
func (r *renderer) quoteReason(reason citecheck.Reason, cit *citecheck.Citation, det *citecheck.Detail, h *citecheck.Suggestion, x *citecheck.Text) {
	sel := &cit.Selector
	switch reason {
	case citecheck.ReasonExactNotFound:
		r.line("reason", "exact does not occur anywhere in the source")
		if p := h.Partial; p.Length > 0 {
			r.compare(x, p.At, "exact", sel.Exact, p.Length)
		} else {
			l := excerpt(sel.Exact, 0, nextRuneEnd(sel.Exact, 0))
			r.excerptLine("exact", l)
			r.caret(l.markCol, l.markW, l.firstW)
		}
		r.partial(h.Partial, "exact", sel.Exact, h.Length)
	case citecheck.ReasonPrefixMismatch:
		r.line("reason", "exact occurs %s, but never right after the prefix", times(*det.ExactMatches))
		// The observed text ends where exact starts; it is shorter than the
		// prefix only at the start of the text. Compare them right-aligned,
		// from exact leftwards: the mismatch nearest exact is what breaks it.
		obs, p := []rune(*h.Observed), []rune(sel.Prefix)
		lead := len(p) - len(obs)
		j := len(p) - 1
		for j >= lead && p[j] == obs[j-lead] {
			j--
		}
		if j >= lead {
			r.compare(x, h.ObservedStart+j-lead, "prefix", sel.Prefix, j)
		} else {
			// The prefix reaches back before the text: mark what overhangs.
			src := excerpt(x.String(), 0, 0)
			cl := excerpt(sel.Prefix, 0, runeOffset(sel.Prefix, lead))
			alignAt(&src, src.markCol, &cl, cl.markCol+cl.markW)
			r.excerptLine("source", src)
			r.excerptLine("prefix", cl)
			r.caret(cl.markCol, cl.markW, cl.markW)
		}
		r.line("hint", "before exact at %d the source has %s (at %s)", det.MatchStarts[0], quote(*h.Observed, quotedCols), span(h.ObservedStart, h.ObservedStart+len(obs)))
	case citecheck.ReasonSuffixMismatch:
		after := ""
		if sel.Prefix != "" {
			after = " after the prefix"
		}
		n := *det.ExactMatches
		if det.PrefixMatches != nil {
			n = *det.PrefixMatches
		}
		r.line("reason", "exact occurs %s%s, but never right before the suffix", times(n), after)
		i := firstDiff(*h.Observed, sel.Suffix)
		r.compare(x, h.ObservedStart+i, "suffix", sel.Suffix, i)
		r.line("hint", "after exact at %d the source has %s (at %s)", det.MatchStarts[0], quote(*h.Observed, quotedCols), span(h.ObservedStart, h.ObservedStart+len([]rune(*h.Observed))))
	case citecheck.ReasonAmbiguousAnchor:
		r.line("reason", "the anchor matches %s, so it does not say which one is meant", places(h.Occurrences))
		first := h.Starts[0]
		r.mark(x, first, first+h.Length)
		r.label("hint")
		r.printf("it matches at %s", startsList(h.Starts, h.Occurrences))
		switch {
		case h.UniquePrefix != nil && h.UniqueSuffix != nil:
			r.printf("; prefix %s or suffix %s would leave only the match at %d\n", quote(*h.UniquePrefix, quotedCols/2), quote(*h.UniqueSuffix, quotedCols/2), first)
		case h.UniquePrefix != nil:
			r.printf("; prefix %s would leave only the match at %d\n", quote(*h.UniquePrefix, quotedCols), first)
		case h.UniqueSuffix != nil:
			r.printf("; suffix %s would leave only the match at %d\n", quote(*h.UniqueSuffix, quotedCols), first)
		default:
			r.printf("; no prefix or suffix within %d bytes tells the match at %d apart\n", citecheck.MaxContextBytes, first)
		}
	case citecheck.ReasonPositionMismatch:
		resolved := *h.ResolvedStart
		r.line("reason", "exact starts at %d, not at %d", resolved, cit.ClaimedStart)
		i := firstDiff(*h.Observed, sel.Exact)
		r.compare(x, h.ObservedStart+i, "exact", sel.Exact, i)
		r.line("hint", "exact really starts at %d (%s): claimed_start %d would match", resolved, offBy(cit.ClaimedStart, resolved), resolved)
	}
}

// quoteFound is the hint for a position citation: where its quote really
// is, or, when nowhere, how much of it the source has.
func (r *renderer) quoteFound(h *citecheck.Suggestion, what, claimed string) {
	if h.Occurrences == 0 {
		r.partial(h.Partial, what, claimed, h.Length)
		return
	}
	if h.Occurrences == 1 {
		s := h.Starts[0]
		r.line("hint", "the %s occurs exactly at %s: start %d, end %d would match", what, span(s, s+h.Length), s, s+h.Length)
		return
	}
	spans := make([]string, len(h.Starts))
	for i, s := range h.Starts {
		spans[i] = span(s, s+h.Length)
	}
	more := ""
	if h.Occurrences > len(h.Starts) {
		more = fmt.Sprintf(", … (%d more)", h.Occurrences-len(h.Starts))
	}
	r.line("hint", "the %s occurs exactly %s: at %s%s", what, places(h.Occurrences), strings.Join(spans, ", "), more)
}

// partial is the hint for a claimed text the source does not contain: the
// longest leading part it does contain, and where they part.
func (r *renderer) partial(p *citecheck.PartialMatch, what, claimed string, length int) {
	if p.Length == 0 {
		r.line("hint", "the %s occurs nowhere; not even its first character, %s, occurs in the source", what, char(p.Claimed))
		return
	}
	lead := claimed[:runeOffset(claimed, p.Length)]
	then := fmt.Sprintf("there the text ends, and the %s goes on with %s", what, char(p.Claimed))
	if p.Source != nil {
		then = fmt.Sprintf("there the source goes on with %s, the %s with %s", char(*p.Source), what, char(p.Claimed))
	}
	leadQ, _ := quoteCut(lead, quotedCols/2)
	r.line("hint", "the %s occurs nowhere; its longest leading part in the source, %s (%d of %d code points), is at %s; %s",
		what, leadQ, p.Length, length, span(p.Start, p.At), then)
}

// claim says in one line what citation cit claims.
func claim(cit *citecheck.Citation) string {
	where := "in " + quote(cit.SourceID, quotedCols/3) + " version " + quote(cit.Version, quotedCols/3)
	sel := &cit.Selector
	if sel.Type == citecheck.PositionSelector {
		return fmt.Sprintf("%s %s reads %s", span(sel.Start, sel.End), where, quote(cit.Quote, quotedCols))
	}
	var b strings.Builder
	b.WriteString("exact " + quote(sel.Exact, quotedCols))
	if sel.Prefix != "" {
		b.WriteString(" after prefix " + quote(sel.Prefix, quotedCols/2))
	}
	if sel.Suffix != "" {
		b.WriteString(" before suffix " + quote(sel.Suffix, quotedCols/2))
	}
	b.WriteString(" " + where)
	if cit.HasClaimedStart {
		b.WriteString(", starting at " + strconv.Itoa(cit.ClaimedStart))
	}
	return b.String()
}

// quote writes s between double quotes for a sentence, its control and
// invisible characters as their stand-ins, " and \ escaped, cut to about
// maxCols columns with the length said when it is cut.
func quote(s string, maxCols int) string {
	q, cut := quoteCut(s, maxCols)
	if cut {
		q += fmt.Sprintf(" (%d code points)", utf8.RuneCountInString(s))
	}
	return q
}

// quoteCut is quote without the length: for a sentence that says it.
func quoteCut(s string, maxCols int) (string, bool) {
	var b strings.Builder
	b.WriteByte('"')
	var st widthState
	w, cut := 0, false
	for _, r := range s {
		var out string
		var rw int
		if g, gw, esc := glyph(r); esc {
			out, rw, st = g, gw, widthState{}
		} else {
			out = string(r)
			rw, _ = st.next(r)
			if r == '"' || r == '\\' {
				out, rw = `\`+out, 2
			}
		}
		if w+rw > maxCols {
			cut = true
			break
		}
		b.WriteString(out)
		w += rw
	}
	if cut {
		b.WriteString("…")
	}
	b.WriteByte('"')
	return b.String(), cut
}

// char names one code point for a sentence: "g" (U+0067). A combining
// mark is shown on a dotted circle, as Unicode charts do.
func char(c string) string {
	r := []rune(c)[0]
	shown := c
	if g, _, esc := glyph(r); esc {
		shown = g
	} else if isZeroWidth(r) {
		shown = "◌" + c
	}
	if r == '"' || r == '\\' {
		shown = `\` + c
	}
	return `"` + shown + `" (` + strings.Trim(codePoint(r), "<>") + ")"
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = quote(s, quotedCols/3)
	}
	return strings.Join(q, ", ")
}

func span(start, end int) string { return fmt.Sprintf("[%d, %d)", start, end) }

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return strconv.Itoa(n) + " times"
}

func places(n int) string {
	if n == 1 {
		return "1 place"
	}
	return strconv.Itoa(n) + " places"
}

func startsList(starts []int, total int) string {
	s := make([]string, len(starts))
	for i, p := range starts {
		s[i] = strconv.Itoa(p)
	}
	out := strings.Join(s, ", ")
	if total > len(starts) {
		out += fmt.Sprintf(", … (%d in all)", total)
	}
	return out
}

func offBy(claimed, resolved int) string {
	if claimed < resolved {
		return fmt.Sprintf("%d later than claimed", resolved-claimed)
	}
	return fmt.Sprintf("%d earlier than claimed", claimed-resolved)
}

// firstDiff returns the first code point index where a and b differ, or the
// shorter length when one is a prefix of the other.
func firstDiff(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	i := 0
	for i < len(ra) && i < len(rb) && ra[i] == rb[i] {
		i++
	}
	return i
}
