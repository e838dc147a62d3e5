package annotation

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/jsonenc"
)

// AppendJSON appends the report as one compact JSON object, members in a
// fixed order so that equal reports are equal bytes:
//
//	{"index":0,"value":0,"pointer":"/rows/0","id":"…","outcome":"moved",
//	 "targets":[{"pointer":"/rows/0/target/0","source":"…","version":null,
//	   "outcome":"moved","selectors":[{"pointer":"…","selector_type":
//	   "TextQuoteSelector","valid":false,"reason":"position_mismatch",
//	   "detail":{…},"findings":[{"kind":"offset_units","start":118,
//	   "end":130,"units":"utf16"}]}],"unchecked":[{"pointer":"…",
//	   "type":"RangeSelector","why":"…"}],"repair":{"start":118,"end":130}}]}
//
// A selector's reason and detail are the engine's, exactly as the
// contract writes them for a citation, and its findings are the engine's
// explanation's (spec §5). index is the item's position in
// the input; value the top-level JSON value it is in (a line of JSON
// Lines); pointer its place in that value.
func (r *Report) AppendJSON(dst []byte, index int) []byte {
	a := r.Annotation
	dst = appendHead(dst, index, a.Value, a.Pointer, a.ID)
	if r.Err != nil { // an error item, at the annotation, pointing at the target
		dst = append(dst, `,"outcome":"error","error":`...)
		dst = r.Err.AppendJSON(dst)
		return append(dst, '}')
	}
	dst = append(dst, `,"outcome":`...)
	dst = jsonenc.AppendString(dst, r.Outcome.String())
	dst = append(dst, `,"targets":[`...)
	for j := range r.Targets {
		if j > 0 {
			dst = append(dst, ',')
		}
		dst = r.Targets[j].appendJSON(dst, &a.Targets[j])
	}
	return append(dst, "]}"...)
}

// appendHead opens an item's object: where it is, and its id (null when
// it has none), alike for reports and error items.
func appendHead(dst []byte, index, value int, ptr, id string) []byte {
	dst = append(dst, `{"index":`...)
	dst = strconv.AppendInt(dst, int64(index), 10)
	dst = append(dst, `,"value":`...)
	dst = strconv.AppendInt(dst, int64(value), 10)
	dst = append(dst, `,"pointer":`...)
	dst = jsonenc.AppendString(dst, ptr)
	dst = append(dst, `,"id":`...)
	if id == "" {
		return append(dst, "null"...)
	}
	return jsonenc.AppendString(dst, id)
}

func (r *TargetReport) appendJSON(dst []byte, t *Target) []byte {
	dst = append(dst, `{"pointer":`...)
	dst = jsonenc.AppendString(dst, t.Pointer)
	dst = append(dst, `,"source":`...)
	dst = jsonenc.AppendString(dst, t.Source)
	dst = append(dst, `,"version":`...)
	if r.Version == "" {
		dst = append(dst, "null"...)
	} else {
		dst = jsonenc.AppendString(dst, r.Version)
	}
	dst = append(dst, `,"outcome":`...)
	dst = jsonenc.AppendString(dst, r.Outcome.String())
	dst = append(dst, `,"selectors":[`...)
	for i, c := range r.Checked {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"pointer":`...)
		dst = jsonenc.AppendString(dst, c.Pointer)
		dst = append(dst, `,"selector_type":`...)
		dst = jsonenc.AppendString(dst, c.Type.String())
		dst = append(dst, `,"valid":`...)
		dst = strconv.AppendBool(dst, c.Reason == citecheck.ReasonNone)
		if c.Reason == citecheck.ReasonNone {
			dst = append(dst, `,"reason":null,"detail":null,"findings":[]}`...)
			continue
		}
		dst = append(dst, `,"reason":`...)
		dst = jsonenc.AppendString(dst, c.Reason.String())
		dst = append(dst, `,"detail":`...)
		dst = c.Detail.AppendJSON(dst, c.Type)
		dst = append(dst, `,"findings":[`...)
		for i := range c.Findings {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = c.Findings[i].AppendJSON(dst)
		}
		dst = append(dst, "]}"...)
	}
	dst = append(dst, `],"unchecked":[`...)
	for i, s := range r.Unchecked {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"pointer":`...)
		dst = jsonenc.AppendString(dst, s.Pointer)
		dst = append(dst, `,"type":`...)
		if s.Type == "" {
			dst = append(dst, "null"...)
		} else {
			dst = jsonenc.AppendString(dst, s.Type)
		}
		dst = append(dst, `,"why":`...)
		dst = jsonenc.AppendString(dst, s.Why)
		dst = append(dst, '}')
	}
	dst = append(dst, `],"repair":`...)
	if r.Repair == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, `{"start":`...)
		dst = strconv.AppendInt(dst, int64(r.Repair.Start), 10)
		dst = append(dst, `,"end":`...)
		dst = strconv.AppendInt(dst, int64(r.Repair.End), 10)
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// AppendError appends an error item as one JSON object: the same head as
// a report (its id that of the object refused, null when it has none),
// "outcome":"error", and the error object every interface uses.
func AppendError(dst []byte, it Item) []byte {
	dst = appendHead(dst, it.Index, it.Value, it.Err.Path, it.ID)
	dst = append(dst, `,"outcome":"error","error":`...)
	dst = it.Err.AppendJSON(dst)
	return append(dst, '}')
}

// AppendText appends the report for people: nothing for an anchored
// annotation; otherwise a line naming it and its outcome, then a line per
// target that is not anchored and per selector that failed. What the
// input brings (ids, IRIs, type names, member names in pointers) is
// written with every character that is not printable escaped as Go
// writes it (\x1b, \n, \u202e), so that an id cannot move a terminal's
// cursor or forge a line.
func (r *Report) AppendText(dst []byte, index int) []byte {
	a := r.Annotation
	if r.Err != nil {
		return appendLine(dst, "error     %s%s  (%s, byte %d)", idWords(a.ID), r.Err.Message, place(index, a.Value, a.Pointer), a.Offset)
	}
	if r.Outcome == Anchored {
		return dst
	}
	// Quoted as an error item's is, so that an id with spaces or ": " in
	// it reads as one.
	id := "(no id)"
	if a.ID != "" {
		id = strconv.Quote(a.ID)
	}
	dst = appendLine(dst, "%-9s %s  (%s)", r.Outcome, id, place(index, a.Value, a.Pointer))
	for j := range r.Targets {
		t, tr := &a.Targets[j], &r.Targets[j]
		if tr.Outcome == Anchored {
			continue
		}
		dst = appendLine(dst, "  target %s: %s on %s", t.Pointer, tr.Outcome, quoteIRI(t.Source))
		for _, c := range tr.Checked {
			if c.Reason != citecheck.ReasonNone {
				dst = appendLine(dst, "    %s %s: %s%s", c.Type, c.Pointer, c.Reason, detailWords(c))
				for _, f := range c.Findings {
					dst = appendLine(dst, "      %s", findingWords(&f))
				}
			}
		}
		if tr.Outcome == Unchecked {
			for _, s := range tr.Unchecked {
				dst = appendLine(dst, "    %s %s: not checked: %s", typeName(s.Type), s.Pointer, s.Why)
			}
		}
		if tr.Repair != nil {
			dst = appendLine(dst, "    repair: start %d, end %d (--fix writes it)", tr.Repair.Start, tr.Repair.End)
		}
		if tr.Rejected != nil {
			dst = appendLine(dst, "    no repair: start %d, end %d would not anchor, re-checked in place", tr.Rejected.Start, tr.Rejected.End)
		}
	}
	return dst
}

// AppendErrorText appends an error item for people, escaped as AppendText
// escapes.
func AppendErrorText(dst []byte, it Item) []byte {
	return appendLine(dst, "error     %s%s  (%s, byte %d)", idWords(it.ID), it.Err.Message, place(it.Index, it.Value, it.Err.Path), it.Offset)
}

// appendLine appends one line of text, formatted, with every character
// strconv.IsPrint does not count as printable (but the space) escaped as
// strconv.QuoteRune writes it, and a byte that is not UTF-8 as \xNN; then
// a newline. Linear in the line.
func appendLine(dst []byte, format string, args ...any) []byte {
	line := fmt.Sprintf(format, args...)
	for i := 0; i < len(line); {
		r, n := utf8.DecodeRuneInString(line[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			dst = fmt.Appendf(dst, `\x%02x`, line[i])
		case r == ' ' || strconv.IsPrint(r):
			dst = append(dst, line[i:i+n]...)
		default:
			q := strconv.QuoteRune(r)
			dst = append(dst, q[1:len(q)-1]...)
		}
		i += n
	}
	return append(dst, '\n')
}

// idWords names an error item's id before its message, "" when it has none.
func idWords(id string) string {
	if id == "" {
		return ""
	}
	return strconv.Quote(id) + ": "
}

// place names an item for people: its number, and the JSON value and
// pointer that hold it.
func place(index, value int, ptr string) string {
	s := fmt.Sprintf("item %d, value %d", index, value)
	if ptr != "" {
		s += " at " + ptr
	}
	return s
}

func quoteIRI(s string) string {
	if s == "" {
		return "(no source)"
	}
	return s
}

// detailWords says the detail's key numbers in words.
func detailWords(c SelectorCheck) string {
	d := c.Detail
	var parts []string
	if d.ExactMatches != nil {
		parts = append(parts, fmt.Sprintf("exact found %d×", *d.ExactMatches))
	}
	if len(d.MatchStarts) > 0 {
		parts = append(parts, fmt.Sprintf("at %s", strings.Trim(fmt.Sprint(d.MatchStarts), "[]")))
	}
	if d.ResolvedStart != nil && d.ClaimedStart != nil {
		parts = append(parts, fmt.Sprintf("stored start %d, found at %d", *d.ClaimedStart, *d.ResolvedStart))
	}
	if d.SourceOffset != nil {
		parts = append(parts, fmt.Sprintf("differs from the text at %d", *d.SourceOffset))
	}
	if d.TextLength != nil && c.Reason == citecheck.ReasonSpanOutOfRange {
		parts = append(parts, fmt.Sprintf("text has %d code points", *d.TextLength))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// findingWords says a finding in a line: what would hold, and where.
func findingWords(f *citecheck.Finding) string {
	span := fmt.Sprintf("%d-%d", f.Start, f.End)
	switch f.Kind {
	case citecheck.FindingElsewhere:
		return fmt.Sprintf("elsewhere: what it claims stands at %s (%d in all)", span, f.Occurrences)
	case citecheck.FindingOffsetUnits:
		return fmt.Sprintf("offset_units: read as %s, the stored numbers name %s (in code points)", f.Units, span)
	case citecheck.FindingNormalized:
		return fmt.Sprintf("normalized: holds at %s under %s; the text has %q", span, strings.Join(f.Folds.Names(), "+"), f.SourceText)
	case citecheck.FindingElided:
		return fmt.Sprintf("elided: the parts stand in order within %s", span)
	case citecheck.FindingDisambiguate:
		if f.Prefix != nil {
			return fmt.Sprintf("disambiguate: prefix %q leaves only the match at %s", *f.Prefix, span)
		}
		return fmt.Sprintf("disambiguate: suffix %q leaves only the match at %s", *f.Suffix, span)
	}
	lead := fmt.Sprintf("its first %d code points stand at %s", f.Length, span)
	if f.NotSearched == nil {
		return "partial: " + lead
	}
	kinds := make([]string, len(f.NotSearched))
	for i, k := range f.NotSearched {
		kinds[i] = k.String()
	}
	cut := "the diagnosis's work budget ran out; not searched: " + strings.Join(kinds, ", ")
	if f.Length == 0 { // the leading part was not searched either
		return "partial: " + cut
	}
	return "partial: " + lead + "; " + cut
}
