package quotes

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// referenceExtract is rules 1–4 written the slow, obvious way, as the
// fuzz target's reference: lines split by a regular expression, and each
// opening mark's closer searched for code point by code point to the end
// of the paragraph. Quadratic; only for tests.
func referenceExtract(b []byte) []Quotation {
	s := string(b)
	type ln struct {
		start, end int
		kind       int // 0 blank, 1 text, 2 blockquote
	}
	var lines []ln
	pos := 0
	for _, m := range lineEnd.FindAllStringIndex(s, -1) {
		lines = append(lines, ln{start: pos, end: m[0]})
		pos = m[1]
	}
	if pos < len(s) || len(s) == 0 {
		lines = append(lines, ln{start: pos, end: len(s)})
	}
	for i := range lines {
		t := s[lines[i].start:lines[i].end]
		switch {
		case strings.TrimFunc(t, unicode.IsSpace) == "":
		case blockquotePrefix.MatchString(expandTabs(t)):
			lines[i].kind = 2
		default:
			lines[i].kind = 1
		}
	}
	lineCol := func(off int) (int, int) {
		for i, l := range lines {
			if i == len(lines)-1 || lines[i+1].start > off {
				return i + 1, utf8.RuneCountInString(s[l.start:off]) + 1
			}
		}
		return 0, 0
	}
	var out []Quotation
	for i := 0; i < len(lines); {
		j := i
		for j < len(lines) && lines[j].kind == lines[i].kind {
			j++
		}
		switch lines[i].kind {
		case 1:
			from, to := lines[i].start, lines[j-1].end
			var runes []rune
			var offs []int
			for k, r := range s[from:to] {
				runes = append(runes, r)
				offs = append(offs, from+k)
			}
			offs = append(offs, to)
			for k := 0; k < len(runes); k++ {
				want := map[rune]string{'“': "”", '"': `"`, '«': "»", '„': "“”", '「': "」", '『': "』"}[runes[k]]
				if want == "" {
					continue
				}
				c := -1
				for m := k + 1; m < len(runes); m++ {
					if strings.ContainsRune(want, runes[m]) {
						c = m
						break
					}
				}
				if c < 0 {
					continue
				}
				text := softBreak.ReplaceAllString(s[offs[k+1]:offs[c]], " ")
				q := Quotation{Text: strings.TrimFunc(text, unicode.IsSpace), Offset: offs[k], End: offs[c+1]}
				q.Line, q.Column = lineCol(offs[k])
				rest := s[offs[c+1]:]
				if e := strings.IndexAny(rest, "\r\n"); e >= 0 {
					rest = rest[:e]
				}
				next := offs[c+1]
				if m := markerRE.FindStringSubmatchIndex(rest); m != nil && !strings.HasPrefix(s[offs[c+1]+m[1]:], "(") {
					q.Marker, q.Marked = markerID(rest, m), true
					next += m[1]
				}
				if q.Text != "" {
					out = append(out, q)
				}
				for k+1 < len(runes) && offs[k+1] < next {
					k++
				}
			}
		case 2:
			var parts []string
			var ends []int // where each part ends in s
			for _, l := range lines[i:j] {
				if t := strings.TrimRightFunc(referenceBlockquoteText(s[l.start:l.end]), unicode.IsSpace); t != "" {
					parts = append(parts, t)
					ends = append(ends, l.start+len(strings.TrimRightFunc(s[l.start:l.end], unicode.IsSpace)))
				}
			}
			q := Quotation{Blockquote: true, Offset: lines[i].start + strings.IndexByte(s[lines[i].start:], '>')}
			if n := len(parts); n > 0 {
				if m := endMarkerRE.FindStringSubmatch(parts[n-1]); m != nil {
					q.Marker, q.Marked = m[2]+m[3], true // the first of the markers
					cut := len(parts[n-1]) - len(strings.TrimRightFunc(m[1], unicode.IsSpace))
					parts[n-1] = parts[n-1][:len(parts[n-1])-cut]
					ends[n-1] -= cut
				}
				if q.End = ends[n-1]; parts[n-1] == "" && n > 1 {
					q.End = ends[n-2]
				}
			}
			q.Text = strings.TrimFunc(strings.Join(parts, " "), unicode.IsSpace)
			if q.Text != "" {
				q.Line, q.Column = lineCol(q.Offset)
				out = append(out, q)
			}
		}
		i = j
	}
	return out
}

const ws = `\t\v\f \x{85}\x{A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}`

var (
	lineEnd          = regexp.MustCompile(`\r\n|\r|\n`)
	blockquotePrefix = regexp.MustCompile(`^(?: {0,3}> ?)+`)
	softBreak        = regexp.MustCompile(`[ \t]*(?:\r\n|\r|\n)[ \t]*`)
	markerRE         = regexp.MustCompile(`^[` + ws + `]*(?:[.,;:][` + ws + `]*)?\[(?:\^([^\[\]\r\n]+)|([^\^\[\]\r\n][^\[\]\r\n]*))\]`)
	endMarkerRE      = regexp.MustCompile(`^((?s).*?)\[(?:\^([^\[\]]+)|([^\^\[\]][^\[\]]*))\](?:[` + ws + `]*\[(?:\^[^\[\]]+|[^\^\[\]][^\[\]]*)\])*$`)
)

func markerID(s string, m []int) string {
	if m[2] >= 0 {
		return s[m[2]:m[3]]
	}
	return s[m[4]:m[5]]
}

// expandTabs writes each tab of s as the spaces to the next multiple of
// four columns, as CommonMark reads block structure.
func expandTabs(s string) string {
	var b strings.Builder
	col := 0
	for _, r := range s {
		if r == '\t' {
			for w := 4 - col%4; w > 0; w-- {
				b.WriteByte(' ')
				col++
			}
			continue
		}
		b.WriteRune(r)
		col++
	}
	return b.String()
}

// referenceBlockquoteText is the text of blockquote line s: what follows
// the longest run of markers (up to three columns of indentation, '>',
// an optional space) matched in s with its tabs expanded; a tab only
// partly matched is left out whole.
func referenceBlockquoteText(s string) string {
	n := len(blockquotePrefix.FindString(expandTabs(s)))
	col := 0
	for i, r := range s {
		if col >= n {
			return s[i:]
		}
		if r == '\t' {
			col += 4 - col%4
		} else {
			col++
		}
	}
	return ""
}
