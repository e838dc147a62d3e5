package quotes

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/fold"
)

// MessageExcerpt is the most code points a message shows of any piece
// of input it repeats (a quote, a source id, the source's words, a
// citation type), escapes included, between the piece's quotation
// marks: a longer piece is cut there and ends in "…" inside them.
const MessageExcerpt = 100

// MessageMax is the most code points a message has, whatever the
// quotation and the sources hold: at most seven pieces of MessageExcerpt
// and the words around them. It never repeats a whole source.
const MessageMax = 900

// whyExcerpt is the most code points of a not_checked result's Why a
// message repeats: the sentence the check wrote, which names a document
// and says how to give its text.
const whyExcerpt = 4 * MessageExcerpt

// messageIDs is the most source ids a no_source message lists; the
// others are counted.
const messageIDs = 5

// foldWords says what each fold forgives (internal/fold's order), as a
// model that wrote the quote can act on it.
var foldWords = [fold.Count]string{
	"different spacing or line breaks",
	"accented letters composed differently (Unicode NFC)",
	"different character forms (ligatures, full-width letters, superscripts)",
	"different quotation marks, apostrophes, dashes, ellipses or invisible characters (curly against straight)",
	"different capitals",
}

// emptyWhy is the Why of an empty quotation.
const emptyWhy = "the quotation is empty"

// Message says why result i is not verbatim and how to make it so, in
// one or two sentences a model that wrote the quote can correct itself
// from: what is wrong (the fold, the elision, the other source, the
// source not given, how much of its beginning is there, why it was not
// checked, where a moved citation stands) and the fix (the source's
// exact words, the source to cite, the span). "" for a verbatim result.
// It starts with "quote " and the quote. Each piece of input it repeats
// is cut to MessageExcerpt code points (show); a no_source message lists
// at most 5 source ids; the whole is at most MessageMax code points.
//
// Written by concatenation, without fmt, whose printer the WebAssembly
// module does not link. Cost: linear in the pieces it repeats, plus, for
// not_found with a leading part found, the source up to that part's end
// (the check itself scanned the source).
func (a *Answer) Message(i int) string {
	r := &a.Results[i]
	q := "quote " + show(r.Text)
	id := func(src int) string {
		if src < 0 || src >= len(a.Sources) {
			return "no source"
		}
		return "source " + show(a.Sources[src].ID)
	}
	switch r.Outcome {
	case Verbatim:
		return ""
	case NoSource:
		return q + " cites source " + show(r.Marker) + ", which is not given; " + a.givenIDs()
	case Elsewhere:
		return q + " is not in source " + show(r.Marker) + " but is verbatim in " + id(r.Source) + ": cite " + id(r.Source)
	case Near:
		return q + " is not verbatim: " + nearWords(r, id(r.Source))
	case NotFound:
		return q + a.notFoundWords(r) + "; quote the source's words exactly, or leave the quote out"
	case Moved:
		return q + movedWords(r, "document "+show(a.Sources[r.Source].ID))
	}
	return q + a.notCheckedWords(r)
}

// givenIDs names the sources given, at most messageIDs of them.
func (a *Answer) givenIDs() string {
	if len(a.Sources) == 0 {
		return "no source is given"
	}
	var b strings.Builder
	b.WriteString("cite one of the sources given: ")
	for i, s := range a.Sources {
		if i == messageIDs {
			b.WriteString(" and " + strconv.Itoa(len(a.Sources)-messageIDs) + " more")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(show(s.ID))
	}
	return b.String()
}

// nearWords says under which reading a near quotation holds in src, and
// the source's words: the first normalized or elided finding (findings
// are in kind order, normalized first), its source_text the fix's words.
func nearWords(r *Result, src string) string {
	for k := range r.Findings {
		f := &r.Findings[k]
		switch f.Kind {
		case citecheck.FindingNormalized:
			words := f.SourceText
			if r.Fix != nil && r.Fix.Quote != nil {
				words = *r.Fix.Quote
			}
			shown, cut := showCut(words)
			copyWords := "; copy the source's exact words: "
			if cut {
				copyWords = "; copy the source's exact words, which begin "
			}
			return src + " has it only with " + foldsWords(f.Folds) + copyWords + shown
		case citecheck.FindingElided:
			also := ""
			if f.Folds != 0 {
				also = ", and its parts are there only with " + foldsWords(f.Folds)
			}
			return "its ellipsis leaves out words that " + src + " has between its parts" + also +
				"; quote one part without the ellipsis, or the whole passage as the source has it: " + show(f.SourceText)
		}
	}
	return src + " has it only under a fold or as an elision"
}

// foldsWords says what the folds of f forgive, joined by "and".
func foldsWords(f citecheck.Folds) string {
	var words []string
	for i, w := range foldWords {
		if f&(1<<i) != 0 {
			words = append(words, w)
		}
	}
	return strings.Join(words, " and ")
}

// notFoundWords says where a not_found quotation is not, and how much of
// its beginning is there: the partial finding in the marked source, or
// (without a marker) the longest one the diagnosis found in any source.
func (a *Answer) notFoundWords(r *Result) string {
	var out string
	switch {
	case r.Marked:
		out = " is not in source " + show(r.Marker) + ", exactly or under a fold, nor verbatim in another source"
	case len(a.Sources) == 0:
		return " was checked against no source: none is given"
	default:
		out = " is in none of the sources given, exactly or under a fold"
	}
	src, fs := r.Source, r.Findings
	if !r.Marked && r.drawn != nil {
		src, fs = r.drawn.src, r.drawn.findings
	}
	for k := range fs {
		f := &fs[k]
		if f.Kind != citecheck.FindingPartial || f.Length <= 0 || src < 0 || src >= len(a.Sources) {
			continue
		}
		head, rest := splitRunes(r.Text, f.Length)
		out += "; only its first " + strconv.Itoa(f.Length) + " characters are in source " + show(a.Sources[src].ID) +
			" (" + show(head) + ")"
		_, after := splitRunes(a.Sources[src].Text, f.End)
		if after == "" {
			return out + ", where the source ends and the quote goes on " + show(rest)
		}
		return out + ", where the source goes on " + show(after) + " and the quote " + show(rest)
	}
	return out
}

// movedWords says where an Anthropic citation's cited_text stands in its
// document, doc, when its span does not read as it, and the span to give.
func movedWords(r *Result, doc string) string {
	names := [2]string{"start_char_index", "end_char_index"}
	if r.Location.Type == ContentBlockLocation {
		names = [2]string{"start_block_index", "end_block_index"}
	}
	pair := func(a, b int) string {
		return names[0] + " " + strconv.Itoa(a) + ", " + names[1] + " " + strconv.Itoa(b)
	}
	out := " is not at " + pair(r.Location.Start, r.Location.End) + " of " + doc +
		"; it stands exactly at code points " + strconv.Itoa(r.Span.Start) + " to " + strconv.Itoa(r.Span.End)
	for _, f := range r.Findings {
		if f.Kind == citecheck.FindingOffsetUnits {
			unit := "UTF-16 code units"
			if f.Units == citecheck.UnitsUTF8 {
				unit = "UTF-8 bytes"
			}
			out += " (the span counts " + unit + ", not code points)"
			break
		}
	}
	switch {
	case r.Fix != nil && r.Fix.Start != nil:
		return out + ": cite " + pair(*r.Fix.Start, *r.Fix.End)
	case r.Location.Type == ContentBlockLocation && onceIn(r.Findings):
		return out + ", which does not start and end at block boundaries: cite the blocks that hold it"
	}
	return out + " and at other places too: cite the span of the one meant"
}

// onceIn reports whether the elsewhere finding, if any, counts one
// occurrence.
func onceIn(fs []citecheck.Finding) bool {
	for _, f := range fs {
		if f.Kind == citecheck.FindingElsewhere {
			return f.Occurrences <= 1
		}
	}
	return true
}

// notCheckedWords says why a quotation was not checked, and what to do.
func (a *Answer) notCheckedWords(r *Result) string {
	const not = " was not checked: "
	switch {
	case r.Limit != nil && r.Limit.Name == citecheck.LimitQuoteBytes:
		return not + "it is " + strconv.Itoa(r.Limit.Actual) + " bytes, longer than " + r.Limit.Name + " (" + strconv.Itoa(r.Limit.Max) + "); quote a shorter passage"
	case r.Limit != nil:
		return not + "the call's " + r.Limit.Name + " (" + strconv.Itoa(r.Limit.Max) + ") was spent before it; check it in another call"
	case r.Location != nil && r.Location.Type != CharLocation && r.Location.Type != PageLocation && r.Location.Type != ContentBlockLocation:
		return not + "a " + show(r.Location.Type) + " citation points into no document of the request"
	case cutShort(r.Findings):
		s, src := r.Source, "a source"
		if r.drawn != nil {
			s = r.drawn.src
		}
		if s >= 0 && s < len(a.Sources) {
			src = "source " + show(a.Sources[s].ID)
		}
		return not + "it is not exactly in any source, and the search for it under folds and elisions in " + src +
			" was cut by the work budget; quote the source's words exactly"
	case r.Text == "" && r.Why == emptyWhy:
		return not + "it is empty; quote the source's words"
	case r.Why != "":
		return not + clipAt(r.Why, whyExcerpt)
	}
	return " was not checked"
}

// cutShort reports whether a diagnosis's search for near readings was
// cut by its work budget.
func cutShort(fs []citecheck.Finding) bool {
	for _, f := range fs {
		for _, k := range f.NotSearched {
			if k == citecheck.FindingNormalized || k == citecheck.FindingElided {
				return true
			}
		}
	}
	return false
}

// show is s as a message repeats it, a JSON string (showCut).
func show(s string) string {
	q, _ := showCut(s)
	return q
}

// showCut is s as a message repeats it: a JSON string whose escapes also
// show what a reader could not see (every code point strconv.IsPrint
// does not print, a no-break space or a soft hyphen among them, as
// \uXXXX), so that curly and straight marks and invisible characters
// read apart; at most MessageExcerpt code points between its marks, then
// "…" when s goes on (cut reports it). Cost: linear in MessageExcerpt,
// not in s.
func showCut(s string) (q string, cut bool) {
	b := make([]byte, 0, 2+min(len(s), 4*MessageExcerpt)+len("…"))
	b = append(b, '"')
	n := 0
	for _, r := range s {
		var esc [12]byte
		e := escapeRune(esc[:0], r)
		w := utf8.RuneCount(e)
		if n+w > MessageExcerpt {
			b, cut = append(b, "…"...), true
			break
		}
		b, n = append(b, e...), n+w
	}
	return string(append(b, '"')), cut
}

// escapeRune appends r as a JSON string holds it, escaping as well every
// code point that strconv.IsPrint does not print.
func escapeRune(dst []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	u := func(dst []byte, v rune) []byte {
		return append(dst, '\\', 'u', hex[v>>12&15], hex[v>>8&15], hex[v>>4&15], hex[v&15])
	}
	switch {
	case r == '"' || r == '\\':
		return append(dst, '\\', byte(r))
	case r == '\n':
		return append(dst, '\\', 'n')
	case r == '\t':
		return append(dst, '\\', 't')
	case r == '\r':
		return append(dst, '\\', 'r')
	case strconv.IsPrint(r):
		return utf8.AppendRune(dst, r)
	case r > 0xFFFF:
		r -= 0x10000
		return u(u(dst, 0xD800+r>>10), 0xDC00+r&0x3FF)
	}
	return u(dst, r)
}

// clipAt is s cut to n code points with "…" after them. Cost: linear
// in n, not in s.
func clipAt(s string, n int) string {
	head, rest := splitRunes(s, n)
	if rest == "" {
		return s
	}
	return head + "…"
}

// splitRunes splits s after its first n code points (all of s when it
// has fewer). Cost: linear in those n code points.
func splitRunes(s string, n int) (string, string) {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i], s[i:]
}
