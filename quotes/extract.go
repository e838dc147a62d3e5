package quotes

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MinUnmarkedCodePoints is how long a quotation without a marker must be to
// be checked (rule 5): shorter ones are titles and scare quotes.
const MinUnmarkedCodePoints = 20

// Quotation is one quotation of a report (rules 1–5 of spec §5.13), or one
// citation of a structured answer or an Anthropic response.
type Quotation struct {
	// Text is what is checked: the quotation without its marks, the white
	// space directly inside them and its marker.
	Text string
	// Marker is the source id the marker names; Marked says there is one
	// (a marker may name the empty id only in a structured answer).
	Marker string
	Marked bool
	// Line and Column (reports) are where the quotation opens: its
	// opening mark, or a blockquote's first '>'. Both count from 1;
	// Column counts code points, and lines end at LF, CRLF or CR.
	Line, Column int
	// Offset (reports) is the byte offset of the opening mark or '>'.
	Offset int
	// Blockquote (reports) says the quotation is a Markdown blockquote.
	Blockquote bool
	// Location (Anthropic) is where the citation points into its document;
	// nil for the other shapes.
	Location *Location
}

// closerKinds are the closing marks looked for, one slot each in a
// paragraph's next-occurrence cursors.
var closerKinds = []rune{'”', '"', '»', '“', '」', '』'}

// closerBytes are closerKinds' UTF-8 encodings.
var closerBytes = [][]byte{[]byte("”"), []byte(`"`), []byte("»"), []byte("“"), []byte("」"), []byte("』")}

// closersOf returns the closing marks of opening mark r, "" when r opens
// nothing: „ closes at whichever of “ and ” comes first.
func closersOf(r rune) string {
	switch r {
	case '“':
		return "”"
	case '"':
		return `"`
	case '«':
		return "»"
	case '„':
		return "“”"
	case '「':
		return "」"
	case '『':
		return "』"
	}
	return ""
}

func closerKind(r rune) int {
	for i, c := range closerKinds {
		if c == r {
			return i
		}
	}
	return -1
}

// workCounter counts the extractor's steps (a byte looked at, or a cursor
// moved), so that a test can hold the cost to a multiple of the input's
// length and a caller can be asked, every pollSteps steps, whether to go
// on: poll's error stops the extraction (err).
type workCounter struct {
	steps int
	poll  func() error
	next  int // the step count at which poll is called next
	err   error
}

// pollSteps is how many extractor steps go between two calls of a
// workCounter's poll: at most 64 KiB of input each (a byte is at least
// one step), about a millisecond of extraction, so that a check whose
// caller has gone stops within a few.
const pollSteps = 64 << 10

func (w *workCounter) add(n int) {
	w.steps += n
	if w.poll != nil && w.steps >= w.next && w.err == nil {
		w.next = w.steps + pollSteps
		w.err = w.poll()
	}
}

// Extract returns every quotation of a Markdown or plain-text report, in
// the order they open, by rules 1–4 of spec §5.13, the short unmarked ones
// included (Checked says which rule 5 keeps). Bytes that are not UTF-8 are
// read as U+FFFD each, never refused: callers that check the text
// validate it first.
//
// Cost: linear in len(report), time and memory: each byte is looked at a
// bounded number of times (at most once by the line splitter, once by the
// paragraph scan, once by each of the six closing-mark cursors, and once
// more while a marker is read), whatever the marks and brackets in it.
func Extract(report []byte) []Quotation {
	return extract(report, nil)
}

// extractChecked calls emit with each quotation of report that rule 5
// has checked, in order, its Offset moved on by base (the bytes of a
// byte order mark before report), and poll before the first step, at
// least every pollSteps steps (64 KiB of report) and after the last; the
// first error either returns stops the
// extraction and is returned. Cost: Extract's, up to where it stops;
// memory: the report's lines (24 bytes each), and what emit keeps.
func extractChecked(report []byte, base int, emit func(Quotation) error, poll func() error) error {
	w := &workCounter{poll: poll}
	if w.err = poll(); w.err != nil {
		return w.err
	}
	x := newExtractor(report, w)
	x.emit = func(q Quotation) {
		if w.err == nil && q.Checked() {
			q.Offset += base
			w.err = emit(q)
		}
	}
	x.run()
	if w.err == nil {
		w.err = poll()
	}
	return w.err
}

// Checked reports whether rule 5 has the quotation checked: always with a
// marker, else when it has at least MinUnmarkedCodePoints code points.
func (q *Quotation) Checked() bool {
	return q.Marked || utf8.RuneCountInString(q.Text) >= MinUnmarkedCodePoints
}

// line is one line of the report: the bytes [start, end) without its
// line end, which takes the bytes [end, next).
type line struct{ start, end, next int }

func splitLines(b []byte, w *workCounter) []line {
	var ls []line
	start := 0
	counted, mark := 0, pollSteps
	for i := 0; i < len(b); i++ {
		if i >= mark { // the steps so far, so that w polls within the pass
			w.add(i - counted)
			counted, mark = i, i+pollSteps
			if w.err != nil {
				return nil
			}
		}
		switch b[i] {
		case '\n':
			ls = append(ls, line{start, i, i + 1})
			start = i + 1
		case '\r':
			next := i + 1
			if next < len(b) && b[next] == '\n' {
				next++
			}
			ls = append(ls, line{start, i, next})
			start = next
			i = next - 1
		}
	}
	w.add(len(b) - counted)
	if start < len(b) || len(b) == 0 {
		ls = append(ls, line{start, len(b), len(b)})
	}
	return ls
}

// isBlank: a line of nothing but white space ends a paragraph.
// It decodes in place: string(b) would copy the line first, however soon
// its first non-space ends the look.
func isBlank(b []byte) bool {
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if !unicode.IsSpace(r) {
			return false
		}
		b = b[n:]
	}
	return true
}

// blockquoteText returns where the text of a blockquote line starts:
// after up to three spaces, '>', and one space after it when there is
// one, and so on for each nested '>' (a quotation inside a quotation, as
// in a reply, "> > text", is read as its innermost text); ok false when
// the line is not a blockquote line.
func blockquoteText(b []byte) (int, bool) {
	i := 0
	for i < len(b) && i < 3 && b[i] == ' ' {
		i++
	}
	if i >= len(b) || b[i] != '>' {
		return 0, false
	}
	for i < len(b) && b[i] == '>' {
		i++
		if i < len(b) && b[i] == ' ' {
			i++
		}
	}
	return i, true
}

// extractor holds the state of one Extract: the report, its lines, and a
// cursor that turns increasing byte offsets into lines and columns.
type extractor struct {
	b     []byte
	lines []line
	out   []Quotation
	emit  func(Quotation) // each quotation read; nil: appended to out
	w     *workCounter    // never nil; its err stops the extraction
	// the position cursor: line index, and the code point column at byte
	// colAt of that line
	li, col, colAt int
}

func extract(b []byte, w *workCounter) []Quotation {
	if w == nil {
		w = &workCounter{}
	}
	x := newExtractor(b, w)
	x.run()
	return x.out
}

func newExtractor(b []byte, w *workCounter) *extractor {
	return &extractor{b: b, lines: splitLines(b, w), w: w}
}

// put records quotation q.
func (x *extractor) put(q Quotation) {
	if x.emit != nil {
		x.emit(q)
	} else {
		x.out = append(x.out, q)
	}
}

// run extracts the quotations, paragraph by paragraph, until the end or
// until x.w.err is set.
func (x *extractor) run() {
	b, w := x.b, x.w
	kind := make([]int8, len(x.lines)) // 0 blank, 1 text, 2 blockquote
	for i, l := range x.lines {
		if w.err != nil {
			return
		}
		s := b[l.start:l.end]
		w.add(len(s))
		switch {
		case isBlank(s):
		case func() bool { _, ok := blockquoteText(s); return ok }():
			kind[i] = 2
		default:
			kind[i] = 1
		}
	}
	for i := 0; i < len(x.lines) && w.err == nil; {
		j := i
		for j < len(x.lines) && kind[j] == kind[i] {
			j++
		}
		switch kind[i] {
		case 1:
			x.paragraph(i, j)
		case 2:
			x.blockquote(i, j)
		}
		i = j
	}
}

// where returns the line and column (both from 1, the column in code
// points) of byte offset off, which is at least every offset asked before.
func (x *extractor) where(off int) (int, int) {
	for x.li+1 < len(x.lines) && x.lines[x.li].next <= off {
		x.li++
		x.col, x.colAt = 0, x.lines[x.li].start
		x.w.add(1)
	}
	if x.colAt < x.lines[x.li].start {
		x.col, x.colAt = 0, x.lines[x.li].start
	}
	x.w.add(off - x.colAt)
	x.col += utf8.RuneCount(x.b[x.colAt:off])
	x.colAt = off
	return x.li + 1, x.col + 1
}

// paragraph extracts the quotations of lines [first, last), one paragraph
// (rule 1). Each closing mark kind has a cursor at its next occurrence;
// the cursors only move forward, so finding every opener's closer costs
// one pass per kind in all.
func (x *extractor) paragraph(first, last int) {
	start, end := x.lines[first].start, x.lines[last-1].end
	p := x.b[:end]
	var next [6]int // byte offset of each kind's next occurrence at or after the cursor, or end
	for k := range next {
		next[k] = start - 1
	}
	advance := func(k, from int) int { // the kind's next occurrence at or after from
		if next[k] >= from {
			return next[k]
		}
		// A closing mark's encoding found by bytes.Index starts at a code
		// point boundary of any reading from one: its first byte is never
		// a continuation byte.
		at := bytes.Index(p[from:end], closerBytes[k])
		if at < 0 {
			x.w.add(end - from)
			next[k] = end
		} else {
			x.w.add(at + len(closerBytes[k]))
			next[k] = from + at
		}
		return next[k]
	}
	for i := start; i < end && x.w.err == nil; {
		if c := p[i]; c < utf8.RuneSelf && c != '"' { // no other opener is ASCII
			x.w.add(1)
			i++
			continue
		}
		r, n := utf8.DecodeRune(p[i:])
		x.w.add(n)
		want := closersOf(r)
		if want == "" {
			i += n
			continue
		}
		closeAt, closeLen := end, 0
		for _, c := range want {
			if at := advance(closerKind(c), i+n); at < closeAt {
				closeAt, closeLen = at, utf8.RuneLen(c)
			}
		}
		if closeAt == end { // unclosed: the mark quotes nothing
			i += n
			continue
		}
		q := Quotation{Text: joinLines(p[i+n : closeAt])}
		q.Offset = i
		q.Line, q.Column = x.where(i)
		after := closeAt + closeLen
		if id, past, ok := x.markerAfter(after, x.lineEnd(closeAt)); ok {
			q.Marker, q.Marked = id, true
			after = past
		}
		if q.Text != "" {
			x.put(q)
		}
		i = after
	}
}

// lineEnd returns the end of the line that holds byte off.
func (x *extractor) lineEnd(off int) int {
	// The cursor's line is at or before off's line; walk forward from it
	// without moving it (the walk is repeated at most once per quotation,
	// over lines the quotation spans).
	li := x.li
	for li+1 < len(x.lines) && x.lines[li].next <= off {
		li++
		x.w.add(1)
	}
	return x.lines[li].end
}

// markerAfter reads a marker right after a closing mark at from (rule 4):
// white space (not a line end) and at most one of .,;: then [X] or [^X],
// X one or more characters none of which is a bracket, all before eol. A
// bracket followed by '(' is a Markdown link, not a marker. It returns X
// and the offset after the ']'.
func (x *extractor) markerAfter(from, eol int) (string, int, bool) {
	i, punct := from, false
	for i < eol {
		r, n := utf8.DecodeRune(x.b[i:])
		x.w.add(n)
		if strings.ContainsRune(".,;:", r) && !punct {
			punct = true
		} else if !unicode.IsSpace(r) {
			break
		}
		i += n
	}
	if i >= eol || x.b[i] != '[' {
		return "", 0, false
	}
	i++
	if i < eol && x.b[i] == '^' {
		i++
	}
	idStart := i
	for i < eol && x.b[i] != ']' && x.b[i] != '[' {
		i++
		x.w.add(1)
	}
	if i >= eol || x.b[i] != ']' || i == idStart {
		return "", 0, false
	}
	if i+1 < len(x.b) && x.b[i+1] == '(' {
		return "", 0, false
	}
	return string(x.b[idStart:i]), i + 1, true
}

// joinLines is an inline quotation's text: each line end, with the spaces
// and tabs on either side of it, read as one space (as Markdown reads a
// soft line break), and the white space directly inside the marks left
// out (rule 2).
func joinLines(b []byte) string {
	if bytes.IndexByte(b, '\n') < 0 && bytes.IndexByte(b, '\r') < 0 {
		// One line, the common case: one copy, of the text kept.
		return string(bytes.TrimFunc(b, unicode.IsSpace))
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\n' && c != '\r' {
			out = append(out, c)
			continue
		}
		for len(out) > 0 && (out[len(out)-1] == ' ' || out[len(out)-1] == '\t') {
			out = out[:len(out)-1]
		}
		out = append(out, ' ')
		for i+1 < len(b) && (b[i+1] == '\n' || b[i+1] == ' ' || b[i+1] == '\t') {
			i++ // a CRLF, and the next line's indentation
		}
	}
	return trimSpace(string(out))
}

// trimSpace drops Unicode White_Space (no-break and narrow no-break
// spaces included) at both ends.
func trimSpace(s string) string { return strings.TrimFunc(s, unicode.IsSpace) }

// blockquote extracts the one quotation of blockquote lines [first, last)
// (rule 3): each line's text after '>' and one space, white space at its
// end left out, the lines that have text joined by one space; the marker
// is the [X] or [^X] at the end of the last line that has text (rule 4).
func (x *extractor) blockquote(first, last int) {
	parts := make([]string, 0, last-first)
	for li := first; li < last; li++ {
		if x.w.err != nil {
			return
		}
		l := x.lines[li]
		s := x.b[l.start:l.end]
		k, _ := blockquoteText(s)
		x.w.add(len(s))
		if t := strings.TrimRightFunc(string(s[k:]), unicode.IsSpace); t != "" {
			parts = append(parts, t)
		}
	}
	q := Quotation{Blockquote: true}
	if n := len(parts); n > 0 {
		if id, rest, ok := markerAtEnd(parts[n-1]); ok {
			q.Marker, q.Marked = id, true
			parts[n-1] = strings.TrimRightFunc(rest, unicode.IsSpace)
			if parts[n-1] == "" {
				parts = parts[:n-1]
			}
		}
	}
	q.Text = trimSpace(strings.Join(parts, " "))
	if q.Text == "" {
		return
	}
	q.Offset = x.lines[first].start
	for x.b[q.Offset] != '>' {
		q.Offset++
	}
	q.Line, q.Column = x.where(q.Offset)
	x.put(q)
}

// markerAtEnd splits a blockquote's last line into its text and the [X]
// or [^X] it ends with.
func markerAtEnd(s string) (id, rest string, ok bool) {
	if !strings.HasSuffix(s, "]") {
		return "", "", false
	}
	open := strings.LastIndexByte(s, '[')
	if open < 0 {
		return "", "", false
	}
	id = s[open+1 : len(s)-1]
	id = strings.TrimPrefix(id, "^")
	if id == "" || strings.ContainsRune(id, ']') {
		return "", "", false
	}
	return id, s[:open], true
}

// workPerByte bounds the extractor's steps per input byte (see Extract's
// cost); the fuzz target and TestExtractionIsLinear hold it.
const workPerByte = 12
