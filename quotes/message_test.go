package quotes

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
)

// cite is a structured answer of one citation; id "" gives no source_id.
func cite(id, quote string) string {
	q := string(appendString(nil, quote))
	if id == "" {
		return `{"citations":[{"quote":` + q + `}]}`
	}
	return `{"citations":[{"source_id":` + string(appendString(nil, id)) + `,"quote":` + q + `}]}`
}

// The message of a failing quotation (docs/quotes.md, "message"): one
// wording per outcome and finding, what is wrong and the fix, written
// once for every interface. One row per rule.
func TestMessageSaysWhatIsWrongAndTheFix(t *testing.T) {
	t.Parallel()
	blocks := []string{"子曰：「學而時習之，不亦說乎？", "有朋自遠方來，不亦樂乎？", "人不知而不慍，不亦君子乎？」"}
	anth := []Source{{ID: "0", Text: emojiDoc}, {ID: "1", Text: strings.Join(blocks, ""), Blocks: []int{0, 15, 27, 41}},
		{ID: "2", Text: tolstoy + " " + tolstoy}}
	const cited = "Всё смешалось в доме Облонских."
	at := cpIndex(emojiDoc, cited)
	u16 := at + 4 // the four astral code points before it, twice each in UTF-16
	twice := cpIndex(tolstoy, cited)
	one := func(text string) []Source { return []Source{{ID: "0", Text: text}} }
	cases := []struct {
		name    string
		input   string
		sources []Source // library() when nil
		opts    Options
		want    string
	}{
		{"near: typography, curly against straight", cite("0", "I didn’t do much coding"), one("I didn't do much coding"), Options{},
			`quote "I didn’t do much coding" is not verbatim: source "0" has it only with different quotation marks, apostrophes, dashes, ellipses or invisible characters (curly against straight); copy the source's exact words: "I didn't do much coding"`},
		{"near: capitals and spacing", cite("0", "hello world"), one("Hello \u00a0World"), Options{},
			`quote "hello world" is not verbatim: source "0" has it only with different spacing or line breaks and different capitals; copy the source's exact words: "Hello \u00a0World"`},
		{"near: composition", cite("0", "cafe\u0301 noir"), one("café noir"), Options{},
			"quote \"cafe\u0301 noir\" is not verbatim" + `: source "0" has it only with accented letters composed differently (Unicode NFC); copy the source's exact words: "café noir"`},
		{"near: compatibility forms", cite("0", "ABC test"), one("ＡＢＣ test"), Options{},
			`quote "ABC test" is not verbatim: source "0" has it only with different character forms (ligatures, full-width letters, superscripts); copy the source's exact words: "ＡＢＣ test"`},
		{"near: an elision", cite("fr", "Les hommes naissent et demeurent libres … en droits"), nil, Options{},
			`quote "Les hommes naissent et demeurent libres … en droits" is not verbatim: its ellipsis leaves out words that source "fr" has between its parts; quote one part without the ellipsis, or the whole passage as the source has it: "Les hommes naissent et demeurent libres et égaux en droits"`},
		{"near: an elision under a fold", cite("fr", "les hommes naissent … en droits"), nil, Options{},
			`quote "les hommes naissent … en droits" is not verbatim: its ellipsis leaves out words that source "fr" has between its parts, and its parts are there only with different capitals; quote one part without the ellipsis, or the whole passage as the source has it: "Les hommes naissent et demeurent libres et égaux en droits"`},
		{"elsewhere: the source to cite", cite("en", "fand er sich in seinem Bett"), nil, Options{},
			`quote "fand er sich in seinem Bett" is not in source "en" but is verbatim in source "de": cite source "de"`},
		{"no_source: the sources given", cite("7", "Er lag"), library()[:3], Options{},
			`quote "Er lag" cites source "7", which is not given; cite one of the sources given: "en", "fr", "de"`},
		{"no_source: at most five ids, then a count", cite("7", "Er lag"), nil, Options{},
			`quote "Er lag" cites source "7", which is not given; cite one of the sources given: "en", "fr", "de", "ja", "zh" and 2 more`},
		{"no_source: none given", cite("7", "Er lag"), []Source{}, Options{},
			`quote "Er lag" cites source "7", which is not given; no source is given`},
		{"not_found: how much of its beginning is there", cite("zh", "人不知而不愠，不亦君子乎？」"), nil, Options{},
			`quote "人不知而不愠，不亦君子乎？」" is not in source "zh", exactly or under a fold, nor verbatim in another source; only its first 5 characters are in source "zh" ("人不知而不"), where the source goes on "慍，不亦君子乎？」" and the quote "愠，不亦君子乎？」"; quote the source's words exactly, or leave the quote out`},
		{"not_found: its beginning ends the source", cite("0", "abc defg"), one("abc def"), Options{},
			`quote "abc defg" is not in source "0", exactly or under a fold, nor verbatim in another source; only its first 7 characters are in source "0" ("abc def"), where the source ends and the quote goes on "g"; quote the source's words exactly, or leave the quote out`},
		{"not_found: none of it", cite("0", "zzz"), one("abc"), Options{},
			`quote "zzz" is not in source "0", exactly or under a fold, nor verbatim in another source; quote the source's words exactly, or leave the quote out`},
		{"not_found: without a marker, the longest beginning in any source", cite("", "Все счастливые семьи похожи на соседей"), nil, Options{},
			`quote "Все счастливые семьи похожи на соседей" is in none of the sources given, exactly or under a fold; only its first 28 characters are in source "ru" ("Все счастливые семьи похожи "), where the source goes on "друг на друга, каждая несчастливая семья несчастлива по-своему. Всё смешалось в доме Облонских." and the quote "на соседей"; quote the source's words exactly, or leave the quote out`},
		{"moved: the span to give", anthropicResponse(charLocation(0, cited, 3, 34)), anth, Options{},
			`quote "Всё смешалось в доме Облонских." is not at start_char_index 3, end_char_index 34 of document "0"; it stands exactly at code points ` + strconv.Itoa(at) + ` to ` + strconv.Itoa(at+31) + `: cite start_char_index ` + strconv.Itoa(at) + `, end_char_index ` + strconv.Itoa(at+31)},
		{"moved: counted in UTF-16 code units", anthropicResponse(charLocation(0, cited, u16, u16+31)), anth, Options{},
			`quote "Всё смешалось в доме Облонских." is not at start_char_index ` + strconv.Itoa(u16) + `, end_char_index ` + strconv.Itoa(u16+31) + ` of document "0"; it stands exactly at code points ` + strconv.Itoa(at) + ` to ` + strconv.Itoa(at+31) + ` (the span counts UTF-16 code units, not code points): cite start_char_index ` + strconv.Itoa(at) + `, end_char_index ` + strconv.Itoa(at+31)},
		{"moved: at more than one place", anthropicResponse(charLocation(2, cited, 0, 31)), anth, Options{},
			`quote "Всё смешалось в доме Облонских." is not at start_char_index 0, end_char_index 31 of document "2"; it stands exactly at code points ` + strconv.Itoa(twice) + ` to ` + strconv.Itoa(twice+31) + ` and at other places too: cite the span of the one meant`},
		{"moved: the blocks to give", anthropicResponse(`{"type":"content_block_location","cited_text":"` + blocks[2] + `","document_index":1,"start_block_index":1,"end_block_index":2}`), anth, Options{},
			`quote "人不知而不慍，不亦君子乎？」" is not at start_block_index 1, end_block_index 2 of document "1"; it stands exactly at code points 27 to 41: cite start_block_index 2, end_block_index 3`},
		{"moved: not at block boundaries", anthropicResponse(`{"type":"content_block_location","cited_text":"不亦樂乎？","document_index":1,"start_block_index":0,"end_block_index":1}`), anth, Options{},
			`quote "不亦樂乎？" is not at start_block_index 0, end_block_index 1 of document "1"; it stands exactly at code points 22 to 27, which does not start and end at block boundaries: cite the blocks that hold it`},
		{"not_checked: longer than max_quote_bytes", cite("0", "abcdef"), one("abcdef"), Options{Limits: limitsWith(func(l *citecheck.Limits) { l.QuoteBytes = 5 })},
			`quote "abcdef" was not checked: it is 6 bytes, longer than max_quote_bytes (5); quote a shorter passage`},
		{"not_checked: past max_scan_units", cite("0", "abcdef"), one("abcdef"), Options{Limits: limitsWith(func(l *citecheck.Limits) { l.ScanUnits = 10 })},
			`quote "abcdef" was not checked: the call's max_scan_units (10) was spent before it; check it in another call`},
		{"not_checked: a citation type without a document", anthropicResponse(`{"type":"web_search_result_location","cited_text":"x","url":"https://example.org","title":"t","encrypted_index":"e"}`), anth, Options{},
			`quote "x" was not checked: a "web_search_result_location" citation points into no document of the request`},
		{"not_checked: empty", cite("0", ""), one("abc"), Options{},
			`quote "" was not checked: it is empty; quote the source's words`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srcs := c.sources
			if srcs == nil {
				srcs = library()
			}
			opts := c.opts
			opts.Explain = true
			a, err := Check(context.Background(), []byte(c.input), srcs, opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := a.Message(0); got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
			line := string(a.AppendJSON(nil, 0))
			if !strings.HasSuffix(line, `,"message":`+string(appendString(nil, c.want))+`}`) {
				t.Errorf("the line does not end with the message: %s", line)
			}
			a.Explain = false
			if line := string(a.AppendJSON(nil, 0)); strings.Contains(line, `"message"`) {
				t.Errorf("without explain: %s", line)
			}
		})
	}
}

func limitsWith(f func(*citecheck.Limits)) citecheck.Limits {
	l := citecheck.DefaultLimits()
	f(&l)
	return l
}

// A textless document and a diagnosis cut by its budget: not_checked,
// the message says why.
func TestMessageOfAQuotationNotChecked(t *testing.T) {
	t.Parallel()
	req := `{"model":"m","messages":[{"role":"user","content":[{"type":"document","source":{"type":"url","url":"https://example.com/a.pdf"}}]}]}`
	docs, err := ReadRequest([]byte(req))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Check(context.Background(), []byte(anthropicResponse(`{"type":"page_location","cited_text":"x","document_index":0,"start_page_number":1,"end_page_number":2}`)),
		nil, Options{Documents: docs, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.Message(0), `quote "x" was not checked: document 0 is a URL, from which citecheck reads no text; give its text as source "0" (the command: --source 0=FILE; the check_quotes tool: a source {"id": "0", "text": ...})`; got != want {
		t.Errorf("textless document:\ngot  %s\nwant %s", got, want)
	}
	srcs := []Source{{ID: "a", Text: "alpha"}}
	cut := []citecheck.Finding{{Kind: citecheck.FindingPartial, NotSearched: []citecheck.FindingKind{citecheck.FindingNormalized}}}
	a = &Answer{Sources: srcs, Explain: true, Results: []Result{{Quotation: Quotation{Text: "gamma", Marker: "a", Marked: true}, Outcome: NotChecked,
		Source: 0, Findings: cut, drawn: &job{src: 0, findings: cut}, Why: "cut"}}}
	if got, want := a.Message(0), `quote "gamma" was not checked: it is not exactly in any source, and the search for it under folds and elisions in source "a" was cut by the work budget; quote the source's words exactly`; got != want {
		t.Errorf("cut:\ngot  %s\nwant %s", got, want)
	}
}

// Every piece of input a message repeats is cut to MessageExcerpt code
// points as it is shown, escapes included, and the whole to MessageMax,
// whatever the quotation, the ids and the sources hold.
func TestMessageRepeatsAtMostAnExcerptOfEachPiece(t *testing.T) {
	t.Parallel()
	x := func(n int) string { return strings.Repeat("x", n) }
	longID := strings.Repeat("i", 300)
	many := []Source{}
	for i := range 8 {
		many = append(many, Source{ID: longID + strconv.Itoa(i), Text: "abc"})
	}
	nul := strings.Repeat("\x00", 300)
	cases := []struct {
		name    string
		input   string
		sources []Source
		shows   []string // pieces the message must show, cut
	}{
		{"near: a long quote and the source's long words", cite(longID, strings.ToUpper(x(300))), []Source{{ID: longID, Text: x(300)}},
			[]string{`"` + strings.Repeat("X", 100) + `…"`, `, which begin "` + x(100) + `…"`, `source "` + strings.Repeat("i", 100) + `…"`}},
		{"not_found: a long quote, a long rest of the source", cite(longID, x(300)+"y"), []Source{{ID: longID, Text: x(300) + strings.Repeat("z", 5000)}},
			[]string{`("` + x(100) + `…")`, `goes on "` + strings.Repeat("z", 100) + `…"`, `and the quote "y"`}},
		{"not_found: escapes count as they are shown", cite("0", nul+"y"), []Source{{ID: "0", Text: nul + nul}},
			[]string{`quote "` + strings.Repeat(`\u0000`, 16) + `…"`}},
		{"no_source: long ids, many sources", cite(x(300), x(300)), many,
			[]string{`cites source "` + x(100) + `…"`, `"` + strings.Repeat("i", 100) + `…" and 3 more`}},
		{"elsewhere: long ids", cite(longID+"0", x(300)), []Source{{ID: longID + "0", Text: "abc"}, {ID: longID + "1", Text: x(300)}},
			[]string{`cite source "` + strings.Repeat("i", 100) + `…"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a, err := Check(context.Background(), []byte(c.input), c.sources, Options{Explain: true})
			if err != nil {
				t.Fatal(err)
			}
			m := a.Message(0)
			if a.Results[0].Outcome == Verbatim {
				t.Fatalf("verbatim")
			}
			for _, piece := range []string{x(MessageExcerpt + 1), strings.Repeat("i", MessageExcerpt+1), strings.Repeat("z", MessageExcerpt+1), strings.Repeat(`\u0000`, 17)} {
				if strings.Contains(m, piece) {
					t.Errorf("a piece over %d code points: %s", MessageExcerpt, m)
				}
			}
			for _, want := range c.shows {
				if !strings.Contains(m, want) {
					t.Errorf("does not show %s: %s", want, m)
				}
			}
			if n := utf8.RuneCountInString(m); n > MessageMax {
				t.Errorf("%d code points, over %d: %s", n, MessageMax, m)
			}
		})
	}
}

// The longest messages (every fold, every piece at its bound) stay
// within MessageMax.
func TestMessageIsAtMostMessageMax(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 300)
	ids := []Source{}
	for i := range 8 {
		ids = append(ids, Source{ID: strings.Repeat("\x01", 300) + strconv.Itoa(i), Text: "abc"})
	}
	all := citecheck.FoldWhitespace | citecheck.FoldNFC | citecheck.FoldNFKC | citecheck.FoldTypography | citecheck.FoldCase
	mk := func(o Outcome, fs ...citecheck.Finding) *Answer {
		return &Answer{Sources: ids, Explain: true, Results: []Result{{Quotation: Quotation{Text: long, Marker: long, Marked: true},
			Outcome: o, Source: 0, Findings: fs, drawn: &job{src: 0, findings: fs}}}}
	}
	for name, a := range map[string]*Answer{
		"near, every fold":                        mk(Near, citecheck.Finding{Kind: citecheck.FindingNormalized, Folds: all, SourceText: long}),
		"near, elided under every fold":           mk(Near, citecheck.Finding{Kind: citecheck.FindingElided, Folds: all, SourceText: long}),
		"no_source, many long ids":                mk(NoSource),
		"not_found, a long partial":               mk(NotFound, citecheck.Finding{Kind: citecheck.FindingPartial, Start: 0, End: 1, Length: 150}),
		"not_checked, cut in a long-named source": mk(NotChecked, citecheck.Finding{Kind: citecheck.FindingPartial, NotSearched: []citecheck.FindingKind{citecheck.FindingNormalized}}),
	} {
		m := a.Message(0)
		n := utf8.RuneCountInString(m)
		t.Logf("%s: %d code points", name, n)
		if n > MessageMax || n == 0 {
			t.Errorf("%s: %d code points, over %d: %s", name, n, MessageMax, m)
		}
	}
}

// Every fold has words.
func TestMessageWordsEveryFold(t *testing.T) {
	for i, w := range foldWords {
		if w == "" {
			t.Errorf("fold %d has no words", i)
		}
	}
}
