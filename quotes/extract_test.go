package quotes

import (
	"fmt"
	"strings"
	"testing"
)

// got is a quotation as the rule tables state it: its text, then
// " [marker]" when it has one, then " (blockquote)".
func got(q Quotation) string {
	s := q.Text
	if q.Marked {
		s += " [" + q.Marker + "]"
	}
	if q.Blockquote {
		s += " (blockquote)"
	}
	return s
}

func extracted(report string) []string {
	var out []string
	for _, q := range Extract([]byte(report)) {
		out = append(out, got(q))
	}
	return out
}

type ruleCase struct {
	name   string
	report string
	want   []string
}

func runRules(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := extracted(c.report)
			if strings.Join(g, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("report %q\n got  %q\n want %q", c.report, g, c.want)
			}
		})
	}
}

// Rule 1 (spec §5.13): a quotation runs from an opening mark to its
// closing mark within one paragraph; an unclosed mark quotes nothing;
// marks inside a quotation belong to it.
func TestRule1QuotationRunsFromMarkToMarkWithinAParagraph(t *testing.T) {
	t.Parallel()
	runRules(t, []ruleCase{
		{"English curly quotes “…”", "Dickens opens with “It was the best of times, it was the worst of times” and goes on.",
			[]string{"It was the best of times, it was the worst of times"}},
		{`English straight quotes "…"`, `Melville: "Call me Ishmael. Some years ago—never mind how long precisely" [1].`,
			[]string{"Call me Ishmael. Some years ago—never mind how long precisely [1]"}},
		{"French guillemets «…»", "L'article 4 : «La liberté consiste à pouvoir faire tout ce qui ne nuit pas à autrui» [2].",
			[]string{"La liberté consiste à pouvoir faire tout ce qui ne nuit pas à autrui [2]"}},
		{"German „…“ closes at “", "Kafka beginnt: „Als Gregor Samsa eines Morgens aus unruhigen Träumen erwachte“ [3].",
			[]string{"Als Gregor Samsa eines Morgens aus unruhigen Träumen erwachte [3]"}},
		{"German „…” closes at ”", "Polnisch und Deutsch: „fand er sich in seinem Bett zu einem ungeheueren Ungeziefer verwandelt” [3]",
			[]string{"fand er sich in seinem Bett zu einem ungeheueren Ungeziefer verwandelt [3]"}},
		{"German „ closes at the first of “ and ”", "„erst” dann“ [x]", []string{"erst"}},
		{"Japanese 「…」", "漱石は「吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。」[4]と書いた。",
			[]string{"吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。 [4]"}},
		{"Japanese 『…』", "書名は『吾輩は猫である』、冒頭は『吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。』[4]",
			[]string{"吾輩は猫である", "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。 [4]"}},
		{"Chinese: 『…』 inside 「…」 belongs to it", "《論語》記：「子曰：『學而時習之，不亦說乎？』有朋自遠方來。」[5]",
			[]string{"子曰：『學而時習之，不亦說乎？』有朋自遠方來。 [5]"}},
		{"Russian: „…“ inside «…» belongs to it", "Толстой: «Все счастливые семьи похожи друг на друга, „каждая“ по-своему» [6].",
			[]string{"Все счастливые семьи похожи друг на друга, „каждая“ по-своему [6]"}},
		{"Arabic guillemets «…»", "جاء في المادة الأولى: «يولد جميع الناس أحرارًا متساوين في الكرامة والحقوق» [7].",
			[]string{"يولد جميع الناس أحرارًا متساوين في الكرامة والحقوق [7]"}},
		{"a quotation spans the lines of its paragraph, each line end read as one space",
			"Austen: “It is a truth universally acknowledged,   \n    that a single man in possession of a good fortune,\r\nmust be in want of a wife.” [1]",
			[]string{"It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife. [1]"}},
		{"a blank line ends a paragraph: a mark closed only after it quotes nothing",
			"“It was the best of times,\n\nit was the worst of times” [1]", nil},
		{"a line of white space is blank", "«Les hommes naissent\n \u00a0\t\nlibres et égaux» [2]", nil},
		{"an unclosed mark quotes nothing, and the marks after it still open quotations",
			"Il écrit « sans fin, puis „Als Gregor Samsa eines Morgens aus unruhigen Träumen erwachte“ [3].",
			[]string{"Als Gregor Samsa eines Morgens aus unruhigen Träumen erwachte [3]"}},
		{"a closing mark alone quotes nothing", "» ” 」 』 “ close", nil},
		{"marks inside a quotation belong to it: a straight quote inside curly ones", "“He said \"yes\" and left” [1]",
			[]string{`He said "yes" and left [1]`}},
		{"an empty quotation is none", `"" [1] « » [2] 「」`, nil},
		{"one paragraph, many quotations in order", "«un» «deux» «trois»", []string{"un", "deux", "trois"}},
	})
}

// Rule 2: white space directly inside the marks is not part of the
// quotation, no-break and narrow no-break spaces included.
func TestRule2WhiteSpaceInsideTheMarksIsNotQuoted(t *testing.T) {
	t.Parallel()
	runRules(t, []ruleCase{
		{"French « texte » with spaces", "« La liberté consiste à pouvoir faire tout ce qui ne nuit pas à autrui »",
			[]string{"La liberté consiste à pouvoir faire tout ce qui ne nuit pas à autrui"}},
		{"French with no-break spaces U+00A0", "«\u00a0Les hommes naissent et demeurent libres\u00a0» [2]", []string{"Les hommes naissent et demeurent libres [2]"}},
		{"French with narrow no-break spaces U+202F", "«\u202fLes hommes naissent et demeurent libres\u202f» [2]", []string{"Les hommes naissent et demeurent libres [2]"}},
		{"Japanese ideographic spaces U+3000", "「\u3000吾輩は猫である。名前はまだ無い。\u3000」[4]", []string{"吾輩は猫である。名前はまだ無い。 [4]"}},
		{"English: a line end right inside the mark", "“\nIt was the best of times, it was the worst of times\n” [1]",
			[]string{"It was the best of times, it was the worst of times [1]"}},
		{"white space inside the quotation is kept", "„Die Grenzen  meiner Sprache\u00a0bedeuten“ [8]", []string{"Die Grenzen  meiner Sprache\u00a0bedeuten [8]"}},
	})
}

// Rule 3: a Markdown blockquote is one quotation: its lines without the
// '>' and one space after it, joined by one space; quotation marks in it
// are not extracted.
func TestRule3ABlockquoteIsOneQuotation(t *testing.T) {
	t.Parallel()
	runRules(t, []ruleCase{
		{"lines joined by one space", "> Все счастливые семьи похожи друг на друга,\n> каждая несчастливая семья несчастлива по-своему.",
			[]string{"Все счастливые семьи похожи друг на друга, каждая несчастливая семья несчастлива по-своему. (blockquote)"}},
		{"only one space after '>' is left out", ">  two spaces\n>three", []string{" two spaces three (blockquote)"[1:]}},
		{"up to three spaces before '>'", "   > 子曰：學而時習之，不亦說乎？\n > 有朋自遠方來，不亦樂乎？",
			[]string{"子曰：學而時習之，不亦說乎？ 有朋自遠方來，不亦樂乎？ (blockquote)"}},
		{"four spaces before '>' is not a blockquote", "    > It was the best of times, it was the worst of times", nil},
		{"quotation marks inside a blockquote are not extracted", "> Mr. Bennet’s lady said: “have you heard that Netherfield Park is let at last?”",
			[]string{"Mr. Bennet’s lady said: “have you heard that Netherfield Park is let at last?” (blockquote)"}},
		{"a '>' line with nothing after it is left out of the join", "> Als Gregor Samsa erwachte,\n>\n> fand er sich verwandelt.",
			[]string{"Als Gregor Samsa erwachte, fand er sich verwandelt. (blockquote)"}},
		{"a blank line ends a blockquote", "> يولد جميع الناس أحرارًا\n\n> متساوين في الكرامة والحقوق",
			[]string{"يولد جميع الناس أحرارًا (blockquote)", "متساوين في الكرامة والحقوق (blockquote)"}},
		{"a text line ends a blockquote, and starts a paragraph", "> 吾輩は猫である。\n地の文「名前はまだ無い。どこで生れたかとんと見当がつかぬ。」",
			[]string{"吾輩は猫である。 (blockquote)", "名前はまだ無い。どこで生れたかとんと見当がつかぬ。"}},
		{"a blockquote line ends a paragraph: a mark does not close across it", "“It was the best\n> of times\nit was” [1]",
			[]string{"of times (blockquote)"}},
		{"white space at a line's end is left out", "> Call me Ishmael.   \n> Some years ago\u00a0", []string{"Call me Ishmael. Some years ago (blockquote)"}},
		{"a nested '>' is stripped like the first", "> > Call me Ishmael. [1]", []string{"Call me Ishmael. [1] (blockquote)"}},
		{"nested '>' without spaces", ">>> Все счастливые семьи\n>> похожи друг на друга [6]", []string{"Все счастливые семьи похожи друг на друга [6] (blockquote)"}},
		{"a reply quoting a quotation joins both levels", "> Ishmael wrote:\n> > Call me Ishmael. [1]", []string{"Ishmael wrote: Call me Ishmael. [1] (blockquote)"}},
		{"a '>' after text is text", "> 1 > 0 [m]", []string{"1 > 0 [m] (blockquote)"}},
		{"a nested '>' after two spaces (CommonMark: up to three columns)", ">  > Call me Ishmael. [1]", []string{"Call me Ishmael. [1] (blockquote)"}},
		{"a nested '>' after four spaces", ">    > Call me Ishmael. [1]", []string{"Call me Ishmael. [1] (blockquote)"}},
		{"a nested '>' after five spaces is text (an indented code block)", ">     > q [1]", []string{"> q [1] (blockquote)"}},
		{"a nested '>' after a tab (to column 4: two columns of indentation)", ">\t> Все счастливые семьи [6]", []string{"Все счастливые семьи [6] (blockquote)"}},
		{"a tab after '>' is the one space left out", ">\tCall me Ishmael.\n>\tSome years ago", []string{"Call me Ishmael. Some years ago (blockquote)"}},
		{"a tab before the first '>' is four columns: no blockquote", "\t> q [1]", nil},
		{"a space and a tab before '>' are four columns: no blockquote", " \t> q [1]", nil},
	})
}

// Rule 4: a marker is [X] or [^X] right after the closing mark, after at
// most one of .,;: and spaces on the same line; for a blockquote, at the
// end of its last line.
func TestRule4AMarkerNamesTheSource(t *testing.T) {
	t.Parallel()
	const q = "«Les hommes naissent et demeurent libres»"
	runRules(t, []ruleCase{
		{"[X] right after the mark", q + "[2]", []string{"Les hommes naissent et demeurent libres [2]"}},
		{"[^X], a footnote", q + "[^decl]", []string{"Les hommes naissent et demeurent libres [decl]"}},
		{"after spaces", q + "  \u00a0[2]", []string{"Les hommes naissent et demeurent libres [2]"}},
		{"after one full stop", q + ". [2]", []string{"Les hommes naissent et demeurent libres [2]"}},
		{"after one comma", q + ",[2]", []string{"Les hommes naissent et demeurent libres [2]"}},
		{"after one semicolon, spaces on both sides", q + " ; [2]", []string{"Les hommes naissent et demeurent libres [2]"}},
		{"after one colon", q + ": [2]", []string{"Les hommes naissent et demeurent libres [2]"}},
		{"not after two punctuation marks", q + ".. [2]", []string{"Les hommes naissent et demeurent libres"}},
		{"not after a word", q + " dit-on [2]", []string{"Les hommes naissent et demeurent libres"}},
		{"not on the next line", q + "\n[2]", []string{"Les hommes naissent et demeurent libres"}},
		{"not a Markdown link [text](url)", q + " [Légifrance](https://www.legifrance.gouv.fr)", []string{"Les hommes naissent et demeurent libres"}},
		{"not empty [] or [^]", q + "[] " + q + "[^]", []string{"Les hommes naissent et demeurent libres", "Les hommes naissent et demeurent libres"}},
		{"the first of several markers", "„Die Grenzen meiner Sprache bedeuten die Grenzen meiner Welt“ [8][9]", []string{"Die Grenzen meiner Sprache bedeuten die Grenzen meiner Welt [8]"}},
		{"an id of any characters but brackets", "「吾輩は猫である。」[夏目漱石 1905]", []string{"吾輩は猫である。 [夏目漱石 1905]"}},
		{"a blockquote's marker ends its last line", "> Все счастливые семьи похожи друг на друга,\n> каждая несчастливая семья несчастлива по-своему. [^6]",
			[]string{"Все счастливые семьи похожи друг на друга, каждая несчастливая семья несчастлива по-своему. [6] (blockquote)"}},
		{"a blockquote's marker on a line of its own", "> يولد جميع الناس أحرارًا متساوين في الكرامة والحقوق\n> [7]",
			[]string{"يولد جميع الناس أحرارًا متساوين في الكرامة والحقوق [7] (blockquote)"}},
		{"a blockquote's first of two markers counts, both left out (French)", "> Les hommes naissent et demeurent [2][1]",
			[]string{"Les hommes naissent et demeurent [2] (blockquote)"}},
		{"a blockquote's markers with spaces between", "> Все счастливые семьи похожи друг на друга [^6] [7]\t[8]",
			[]string{"Все счастливые семьи похожи друг на друга [6] (blockquote)"}},
		{"a bracket before a blockquote's marker stays text", "> Call me [Ishmael] now [1]", []string{"Call me [Ishmael] now [1] (blockquote)"}},
		{"a blockquote's markers on a line of their own", "> 吾輩は猫である。\n> [4][5]", []string{"吾輩は猫である。 [4] (blockquote)"}},
		{"a bracket inside a blockquote's last line is no marker", "> Call me [Ishmael]. Some years ago", []string{"Call me [Ishmael]. Some years ago (blockquote)"}},
	})
}

// Rule 5: a quotation with a marker is always checked; one without is
// checked when it has at least 20 code points (code points, not bytes).
func TestRule5ShortUnmarkedQuotationsAreNotChecked(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		report string
		want   bool
	}{
		{"a short English scare quote is not checked", "the “monstrous vermin” of it", false},
		{"a short one with a marker is checked", "the “monstrous vermin” [3] of it", true},
		{"20 code points unmarked are checked", "«" + strings.Repeat("é", 20) + "»", true},
		{"19 code points unmarked are not, though 38 bytes", "«" + strings.Repeat("é", 19) + "»", false},
		{"19 Japanese code points (57 bytes) are not checked", "「吾輩は猫である。名前はまだ無い。どこで」", false},
		{"22 Chinese code points are checked", "「學而時習之，不亦說乎？有朋自遠方來，不亦樂乎」", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			qs := Extract([]byte(c.report))
			if len(qs) != 1 {
				t.Fatalf("%d quotations", len(qs))
			}
			if qs[0].Checked() != c.want {
				t.Errorf("Checked() = %v for %q", qs[0].Checked(), qs[0].Text)
			}
			read, _ := Read([]byte(c.report), Report)
			if (len(read) == 1) != c.want {
				t.Errorf("Read keeps %d", len(read))
			}
		})
	}
}

// Line and column count from 1, the column in code points, lines ending
// at LF, CRLF or CR; a blockquote is where its first '>' is.
func TestQuotationLineAndColumnCountCodePoints(t *testing.T) {
	t.Parallel()
	report := "# 見出し\r\n\r\n漱石は「吾輩は猫である」と。\rЗатем «Все счастливые семьи»\n\n  > Call me Ishmael."
	var where []string
	for _, q := range Extract([]byte(report)) {
		where = append(where, fmt.Sprintf("%d:%d@%d", q.Line, q.Column, q.Offset))
	}
	want := []string{"3:4@24", "4:7@69", "6:3@115"}
	if strings.Join(where, " ") != strings.Join(want, " ") {
		t.Errorf("got %v, want %v", where, want)
	}
}

// Extraction is linear (spec §5.13): on inputs built to make a naive
// extractor quadratic (openers never closed, markers never finished,
// long blockquotes, quotations over many lines), the work counted is
// within workPerByte steps a byte, at every size.
func TestExtractionIsLinearInTheInput(t *testing.T) {
	t.Parallel()
	shapes := map[string]func(n int) string{
		"unclosed openers":          func(n int) string { return strings.Repeat("« „ 「 『 “ ", n) },
		"closers after every open":  func(n int) string { return strings.Repeat("«a» ", n) },
		"unfinished markers":        func(n int) string { return strings.Repeat(`"a" [ `, n) },
		"markers with long ids":     func(n int) string { return strings.Repeat(`"a" [`+strings.Repeat("x", 50)+" ", n) + "]" },
		"one quotation, many lines": func(n int) string { return "“" + strings.Repeat("a line of it\n", n) + "” [1]" },
		"long blockquote":           func(n int) string { return strings.Repeat("> Call me Ishmael [1]\n", n) },
		"alternating paragraphs":    func(n int) string { return strings.Repeat("«a\n\n> b\n", n) },
		"straight quotes only":      func(n int) string { return strings.Repeat(`"`, n) },
	}
	for name, build := range shapes {
		t.Run(name, func(t *testing.T) {
			for _, n := range []int{100, 1000, 10000} {
				b := []byte(build(n))
				var w workCounter
				extract(b, &w)
				if w.steps > workPerByte*len(b)+16 {
					t.Errorf("n=%d: %d steps for %d bytes, over %d a byte", n, w.steps, len(b), workPerByte)
				}
			}
		})
	}
}

// [Offset, End) is the quotation from its opening mark to past its
// closing mark, for every kind of mark, over lines too; for a blockquote,
// from its first '>' to the end of its last text, the markers after it
// and white space at its end left out. A marker is never in it, and a
// byte order mark before the report counts (Read).
func TestQuotationRangeIsItsMarks(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, report, want string }{
		{"curly", `He said “a quotation of twenty code points” [1] then.`, `“a quotation of twenty code points”`},
		{"straight", `He said "a quotation of twenty code points". [1]`, `"a quotation of twenty code points"`},
		{"guillemets", `Il dit «une citation de vingt points de code» [^a].`, `«une citation de vingt points de code»`},
		{"low-high", `Er sagte „ein Zitat von zwanzig Codepunkten“ [1].`, `„ein Zitat von zwanzig Codepunkten“`},
		{"low-right", `Er sagte „ein Zitat von zwanzig Codepunkten” [1].`, `„ein Zitat von zwanzig Codepunkten”`},
		{"corner", `漱石は「吾輩は猫である。名前はまだ無い。どこで生れたか」[1]と書いた。`, `「吾輩は猫である。名前はまだ無い。どこで生れたか」`},
		{"white corner", `彼は『吾輩は猫である。名前はまだ無い。どこで生れたか』[1]と。`, `『吾輩は猫である。名前はまだ無い。どこで生れたか』`},
		{"over lines", "He said “a quotation\r\n  over two lines” [1].", "“a quotation\r\n  over two lines”"},
		{"blockquote", "Intro.\n\n  > Call me Ishmael. Some years ago,\n> never mind how long [1] [2]  \n\nAfter.", "> Call me Ishmael. Some years ago,\n> never mind how long"},
		{"blockquote, markers alone on its last line", "> Call me Ishmael. Some years ago,  \n> [1]\n", "> Call me Ishmael. Some years ago,"},
		{"nested blockquote", "> > Call me Ishmael. Some years ago [1]", "> > Call me Ishmael. Some years ago"},
		{"blockquote with a blank quote line", "> Call me Ishmael.\n>\n> Some years ago\t\n", "> Call me Ishmael.\n>\n> Some years ago"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, bom := range []string{"", "\uFEFF"} {
				in := bom + c.report
				qs, err := Read([]byte(in), Report)
				if err != nil || len(qs) != 1 {
					t.Fatalf("Read: %d quotations, %v", len(qs), err)
				}
				if got := in[qs[0].Offset:qs[0].End]; got != c.want {
					t.Errorf("bom %q: [Offset, End) is %q, want %q", bom, got, c.want)
				}
			}
		})
	}
}
