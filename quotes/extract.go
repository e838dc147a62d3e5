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
	// End (reports) is the byte offset just past the quotation: past its
	// closing mark, or for a blockquote past the text of its last line
	// that has any before its markers (white space at its end left out).
	// [Offset, End) is what the HTML report marks; a marker after the
	// quotation is not in it.
	Offset, End int
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
// memory: one blockquote's text while it is read (at most its bytes),
// and what emit keeps, whatever the number of lines.
func extractChecked(report []byte, base int, emit func(Quotation) error, poll func() error) error {
	w := &workCounter{poll: poll}
	if w.err = poll(); w.err != nil {
		return w.err
	}
	x := &extractor{b: report, w: w}
	x.emit = func(q Quotation) {
		if w.err == nil && q.Checked() {
			q.Offset += base
			q.End += base
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

// nextLine returns the line that starts at byte start of b: its end
// (without its line end) and where the next line starts.
func nextLine(b []byte, start int) (end, next int) {
	i := bytes.IndexAny(b[start:], "\r\n")
	if i < 0 {
		return len(b), len(b)
	}
	end = start + i
	next = end + 1
	if b[end] == '\r' && next < len(b) && b[next] == '\n' {
		next++
	}
	return end, next
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

// blockquoteText returns where the text of a blockquote line starts, as
// CommonMark reads block quote markers: up to three columns of
// indentation, '>', and one space or tab after it when there is one, and
// so on for each nested '>' (a quotation inside a quotation, as in a
// reply, "> > text", is read as its innermost text). A tab advances to
// the next multiple of four columns; one after a '>' counts one of its
// columns as the space left out, the rest as the indentation of what
// follows ('>\t> q' is nested). ok is false when the line is not a
// blockquote line. Cost: linear in the markers and indentation read.
func blockquoteText(b []byte) (int, bool) {
	i, col, carry := 0, 0, 0 // carry: columns of a tab after '>' not yet read
	ok := false
	for {
		j, c, indent := i, col, carry
		for j < len(b) && indent <= 3 {
			if b[j] == ' ' {
				indent, c = indent+1, c+1
			} else if b[j] == '\t' {
				w := 4 - c%4
				indent, c = indent+w, c+w
			} else {
				break
			}
			j++
		}
		if indent > 3 || j >= len(b) || b[j] != '>' {
			return i, ok
		}
		j, c, carry, ok = j+1, c+1, 0, true
		if j < len(b) && b[j] == ' ' {
			j, c = j+1, c+1
		} else if j < len(b) && b[j] == '\t' {
			w := 4 - c%4
			j, c, carry = j+1, c+w, w-1
		}
		i, col = j, c
	}
}

// extractor holds the state of one Extract: the report, and a cursor
// that turns increasing byte offsets into lines and columns. It keeps no
// table of lines: a line is found when it is read, so that its memory
// does not grow with their number.
type extractor struct {
	b    []byte
	out  []Quotation
	emit func(Quotation) // each quotation read; nil: appended to out
	w    *workCounter    // never nil; its err stops the extraction
	// the position cursor: the line ends and code points before byte
	// colAt, on the line of colAt
	line, col, colAt int
}

func extract(b []byte, w *workCounter) []Quotation {
	if w == nil {
		w = &workCounter{}
	}
	x := &extractor{b: b, w: w}
	x.run()
	return x.out
}

// put records quotation q.
func (x *extractor) put(q Quotation) {
	if x.emit != nil {
		x.emit(q)
	} else {
		x.out = append(x.out, q)
	}
}

// Line kinds: a run of lines of one kind is a paragraph (text) or a
// blockquote.
const (
	blankLine = iota
	textLine
	quoteLine
)

// run extracts the quotations, a run of lines of one kind at a time,
// until the end or until x.w.err is set.
func (x *extractor) run() {
	b, w := x.b, x.w
	kind, first, last := blankLine, 0, 0 // the run being read: its kind, the start of its first line, the end of its last
	flush := func() {
		switch kind {
		case textLine:
			x.paragraph(first, last)
		case quoteLine:
			x.blockquote(first, last)
		}
	}
	for start := 0; start < len(b) && w.err == nil; {
		end, next := nextLine(b, start)
		s := b[start:end]
		w.add(next - start)
		k := textLine
		switch {
		case isBlank(s):
			k = blankLine
		case func() bool { _, ok := blockquoteText(s); return ok }():
			k = quoteLine
		}
		w.add(len(s))
		if k != kind {
			flush()
			kind, first = k, start
		}
		last, start = end, next
	}
	if w.err == nil {
		flush()
	}
}

// where returns the line and column (both from 1, the column in code
// points) of byte offset off, which is at least every offset asked
// before: the cursor reads each byte once in all.
func (x *extractor) where(off int) (int, int) {
	seg := x.b[x.colAt:off]
	x.w.add(len(seg))
	lineStart := -1
	for i, c := range seg {
		switch {
		case c == '\r':
			x.line++
			lineStart = i + 1
		case c == '\n':
			if at := x.colAt + i; at == 0 || x.b[at-1] != '\r' { // a CRLF is one line end
				x.line++
			}
			lineStart = i + 1
		}
	}
	if lineStart >= 0 {
		x.col, seg = 0, seg[lineStart:]
	}
	x.col += utf8.RuneCount(seg)
	x.colAt = off
	return x.line + 1, x.col + 1
}

// paragraph extracts the quotations of the paragraph in bytes [start,
// end), from its first line's start to its last line's end (rule 1). Each closing mark kind has a cursor at its next occurrence;
// the cursors only move forward, so finding every opener's closer costs
// one pass per kind in all.
func (x *extractor) paragraph(start, end int) {
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
		q.Offset, q.End = i, closeAt+closeLen
		q.Line, q.Column = x.where(i)
		after := closeAt + closeLen
		if id, past, ok := x.markerAfter(after, end); ok {
			q.Marker, q.Marked = id, true
			after = past
		}
		if q.Text != "" {
			x.put(q)
		}
		i = after
	}
}

// markerAfter reads a marker right after a closing mark at from (rule 4):
// white space (not a line end) and at most one of .,;: then [X] or [^X],
// X one or more characters none of which is a bracket or a line end, all
// before end, the paragraph's end. A bracket followed by '(' is a
// Markdown link, not a marker. It returns X and the offset after the
// ']'. Cost: the bytes up to the marker's end, or to where it fails.
func (x *extractor) markerAfter(from, end int) (string, int, bool) {
	i, punct := from, false
	for i < end && x.b[i] != '\n' && x.b[i] != '\r' {
		r, n := utf8.DecodeRune(x.b[i:])
		x.w.add(n)
		if strings.ContainsRune(".,;:", r) && !punct {
			punct = true
		} else if !unicode.IsSpace(r) {
			break
		}
		i += n
	}
	if i >= end || x.b[i] != '[' {
		return "", 0, false
	}
	i++
	if i < end && x.b[i] == '^' {
		i++
	}
	idStart := i
	for i < end && x.b[i] != ']' && x.b[i] != '[' && x.b[i] != '\n' && x.b[i] != '\r' {
		i++
		x.w.add(1)
	}
	if i >= end || x.b[i] != ']' || i == idStart {
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

// blockquote extracts the one quotation of the blockquote in bytes
// [start, end), from its first line's start to its last line's end
// (rule 3): each line's text after its markers (blockquoteText), white
// space at its end left out, the lines that have text joined by one
// space; the marker is the first of the markers that end the last line
// that has text (rule 4), all of them left out. Two passes over the
// lines, the first to measure, so that the text is allocated once at its
// length: memory is the quotation's text alone.
func (x *extractor) blockquote(start, end int) {
	n, lines, last := 0, 0, []byte(nil) // the joined length, the lines with text, the last one's text
	lastAt, prevEnd := 0, 0             // where the last one's text starts; where the one before it ends
	x.blockquoteLines(start, end, func(t []byte, at int) {
		if lines > 0 {
			n++
			prevEnd = lastAt + len(last)
		}
		n, lines, last, lastAt = n+len(t), lines+1, t, at
	})
	if x.w.err != nil || lines == 0 {
		return
	}
	q := Quotation{Blockquote: true}
	keep := len(last) // of the last line's text, the bytes before its markers
	if id, rest, ok := markersAtEnd(last); ok {
		q.Marker, q.Marked = id, true
		keep = len(bytes.TrimRightFunc(rest, unicode.IsSpace))
		n -= len(last) - keep
		if keep == 0 && lines > 1 {
			n-- // the space before it
		}
	}
	q.End = lastAt + keep
	if keep == 0 {
		q.End = prevEnd // the last line is its markers alone
	}
	var sb strings.Builder
	sb.Grow(n)
	i := 0
	x.blockquoteLines(start, end, func(t []byte, _ int) {
		if i++; i == lines {
			if t = t[:keep]; len(t) == 0 {
				return
			}
		}
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.Write(t)
	})
	q.Text = trimSpace(sb.String())
	if x.w.err != nil || q.Text == "" {
		return
	}
	q.Offset = start
	for x.b[q.Offset] != '>' {
		q.Offset++
	}
	q.Line, q.Column = x.where(q.Offset)
	x.put(q)
}

// blockquoteLines calls f with the text of each line of the blockquote
// in bytes [start, end) that has text: what follows its markers, white
// space at its end left out, and the byte offset where it starts.
func (x *extractor) blockquoteLines(start, end int, f func(t []byte, at int)) {
	for at := start; x.w.err == nil; {
		le, next := nextLine(x.b[:end], at)
		s := x.b[at:le]
		k, _ := blockquoteText(s)
		x.w.add(len(s))
		if t := bytes.TrimRightFunc(s[k:], unicode.IsSpace); len(t) > 0 {
			f(t, at+k)
		}
		if le == end {
			return
		}
		at = next
	}
}

// markersAtEnd splits a blockquote's last line s (white space at its end
// left out) into its text and the markers it ends with, [X] or [^X]
// with White_Space between them, and returns the first marker's X (only
// the first marker counts, as after a closing mark). Cost: linear in s.
func markersAtEnd(s []byte) (id string, rest []byte, ok bool) {
	var first []byte
	for {
		t := bytes.TrimRightFunc(s, unicode.IsSpace)
		if len(t) == 0 || t[len(t)-1] != ']' {
			break
		}
		open := bytes.LastIndexByte(t, '[')
		if open < 0 {
			break
		}
		x := bytes.TrimPrefix(t[open+1:len(t)-1], []byte("^"))
		if len(x) == 0 || bytes.IndexByte(x, ']') >= 0 {
			break
		}
		first, s = x, t[:open]
	}
	if first == nil {
		return "", s, false
	}
	return string(first), s, true
}

// workPerByte bounds the extractor's steps per input byte (see Extract's
// cost); the fuzz target and TestExtractionIsLinear hold it.
const workPerByte = 12
