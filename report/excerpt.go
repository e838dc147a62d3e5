package report

import (
	"strings"
	"unicode/utf8"
)

// Layout, in terminal columns. An excerpt line is at most about
// 2·contextCols + markCols wide, so a report reads in a 100-column
// terminal without wrapping, whatever the text.
const (
	contextCols = 30 // source shown on each side of a mark
	markCols    = 40 // a marked region longer than this is cut
	quotedCols  = 60 // a claimed string quoted in a sentence is cut here
)

// Styles, as ANSI SGR parameters.
const (
	styleBold   = "1"
	styleDim    = "2"
	styleMark   = "1;31" // the character a report points at, and its caret
	styleFail   = "1;31"
	styleOK     = "1;32"
	styleLabel  = "36"
	styleHint   = "33"
	styleEscape = "2" // a stand-in (⏎, <U+200B>): not literally in the text
)

// cell is one drawn code point (or its visible stand-in) of an excerpt.
type cell struct {
	s     string
	w     int    // columns, by Width's rules
	joins bool   // part of the cluster before it: a caret on it covers that cluster
	style string // ANSI SGR parameters, "" for none
}

// excerptLine is one line of source or claimed text around a mark, and
// where the caret goes under it.
type excerptLine struct {
	cells          []cell
	markCol, markW int // the caret's column (from the line's start) and width
	firstW         int // width of the mark's first cluster, drawn as ^ (the rest as ~)
}

// cellsOf appends the cells of s, continuing the width state st. A stand-in
// glyph breaks any cluster: what follows it starts afresh.
func cellsOf(dst []cell, s string, style string, st *widthState) []cell {
	for _, r := range s {
		if g, w, esc := glyph(r); esc {
			cs := styleEscape
			if style != "" {
				cs = style
			}
			dst = append(dst, cell{s: g, w: w, style: cs})
			*st = widthState{}
			continue
		}
		w, joins := st.next(r)
		dst = append(dst, cell{s: string(r), w: w, joins: joins, style: style})
	}
	return dst
}

func width(cells []cell) int {
	w := 0
	for _, c := range cells {
		w += c.w
	}
	return w
}

// excerpt draws text around the bytes [a, b) it marks, on one line: up to
// contextCols columns on each side (whole clusters, "…" where the text goes
// on), the mark itself cut at markCols. An empty mark (a == b) points
// between two characters, or past the end of the text. A mark that starts
// or ends inside a cluster (a combining mark, the second half of a flag, a
// member of an emoji ZWJ sequence) is widened to the whole cluster, since
// that is what the terminal draws.
func excerpt(text string, a, b int) excerptLine {
	var l excerptLine
	// Left context: step back far enough to fill contextCols (a code point
	// takes at most 2 columns, or 0: bound the walk), then drop from the
	// left until it fits, never starting inside a cluster.
	s := a
	for n := 0; s > 0 && n < 4*contextCols; n++ {
		_, size := utf8.DecodeLastRuneInString(text[:s])
		s -= size
	}
	var st widthState
	left := cellsOf(nil, text[s:a], "", &st)
	k, w := 0, width(left)
	for k < len(left) && (w > contextCols || left[k].joins) {
		w -= left[k].w
		k++
	}
	if s > 0 || k > 0 {
		l.cells = append(l.cells, cell{s: "…", w: 1, style: styleDim})
	}
	left = left[k:]
	l.cells = append(l.cells, left...)
	l.markCol = width(l.cells)

	mark := cellsOf(nil, text[a:b], styleMark, &st)
	if len(mark) > 0 && mark[0].joins {
		// Point at the start of the cluster the mark begins inside.
		for i := len(left) - 1; i >= 0; i-- {
			l.markCol -= left[i].w
			l.markW += left[i].w
			if !left[i].joins {
				break
			}
		}
	}
	l.firstW = l.markW
	cut, first := false, true
	for _, c := range mark {
		if !c.joins && l.markW > 0 {
			first = false
		}
		if l.markW+c.w > markCols {
			cut = true
			break
		}
		l.cells = append(l.cells, c)
		l.markW += c.w
		if first {
			l.firstW += c.w
		}
	}
	if cut {
		l.cells = append(l.cells, cell{s: "…", w: 1, style: styleDim})
		l.markW++
		return l.done()
	}

	// Right context: as many clusters as fit in contextCols. Code points
	// that join the mark's last cluster widen the mark.
	rw, i, inMark := 0, b, true
	for i < len(text) {
		_, size := utf8.DecodeRuneInString(text[i:])
		before := len(l.cells)
		l.cells = cellsOf(l.cells, text[i:i+size], "", &st)
		c := l.cells[before]
		if !c.joins {
			inMark = false
		}
		if inMark && len(mark) > 0 {
			l.markW += c.w
			if first {
				l.firstW += c.w
			}
		} else if !c.joins && rw+c.w > contextCols {
			l.cells = l.cells[:before]
			break
		}
		rw += c.w
		i += size
	}
	if i < len(text) {
		l.cells = append(l.cells, cell{s: "…", w: 1, style: styleDim})
	}
	return l.done()
}

// done gives an empty or zero-width mark a one-column caret.
func (l excerptLine) done() excerptLine {
	l.markW = max(l.markW, 1)
	l.firstW = min(max(l.firstW, 1), l.markW)
	return l
}

// caretLine returns the ^~~ line that points at a mark, indent columns in.
func caretLine(indent, col, w, firstW int) string {
	return strings.Repeat(" ", indent+col) + strings.Repeat("^", firstW) + strings.Repeat("~", w-firstW)
}

// alignAt pads the start of x or y so that column xcol of x and column ycol
// of y stand one above the other.
func alignAt(x *excerptLine, xcol int, y *excerptLine, ycol int) {
	pad := func(l *excerptLine, n int) {
		if n > 0 {
			l.cells = append([]cell{{s: strings.Repeat(" ", n), w: n}}, l.cells...)
			l.markCol += n
		}
	}
	pad(x, ycol-xcol)
	pad(y, xcol-ycol)
}

// runeOffset returns the byte offset of code point cp in s, clamped.
func runeOffset(s string, cp int) int {
	n := 0
	for i := range s {
		if n == cp {
			return i
		}
		n++
	}
	return len(s)
}

// nextRuneEnd returns the byte offset just past the code point at byte i,
// or i at the end of s: the end of a one-character mark.
func nextRuneEnd(s string, i int) int {
	if i >= len(s) {
		return i
	}
	_, size := utf8.DecodeRuneInString(s[i:])
	return i + size
}
