package quotes

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/report"
)

// Real text in six scripts, as sources.
const (
	austen   = "It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife.\n\n“My dear Mr. Bennet,” said his lady to him one day, “have you heard that Netherfield Park is let at last?”"
	decl     = "Art. 1er. Les hommes naissent et demeurent libres et égaux en droits. Les distinctions sociales ne peuvent être fondées que sur l'utilité commune."
	kafka    = "Als Gregor Samsa eines Morgens aus unruhigen Träumen erwachte, fand er sich in seinem Bett zu einem ungeheueren Ungeziefer verwandelt."
	soseki   = "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめした所でニャーニャー泣いていた事だけは記憶している。"
	lunyu    = "子曰：「學而時習之，不亦說乎？有朋自遠方來，不亦樂乎？人不知而不慍，不亦君子乎？」"
	tolstoy  = "Все счастливые семьи похожи друг на друга, каждая несчастливая семья несчастлива по-своему. Всё смешалось в доме Облонских."
	udhrAr   = "يولد جميع الناس أحرارًا متساوين في الكرامة والحقوق. وقد وهبوا عقلًا وضميرًا وعليهم أن يعامل بعضهم بعضًا بروح الإخاء."
	emojiDoc = "Launch 🚀 notes: the team 👨‍👩‍👧 shipped on time. Всё смешалось в доме Облонских."
)

func library() []Source {
	return []Source{{ID: "en", Text: austen}, {ID: "fr", Text: decl}, {ID: "de", Text: kafka}, {ID: "ja", Text: soseki},
		{ID: "zh", Text: lunyu}, {ID: "ru", Text: tolstoy}, {ID: "ar", Text: udhrAr}}
}

type outcomeCase struct {
	name    string
	input   string
	sources []Source // library() when nil
	outcome Outcome
	source  string // the source named, "" for null
	finding citecheck.FindingKind
	hasFind bool
}

func runOutcomes(t *testing.T, cases []outcomeCase, opts Options) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srcs := c.sources
			if srcs == nil {
				srcs = library()
			}
			a, err := Check(context.Background(), []byte(c.input), srcs, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(a.Results) != 1 {
				t.Fatalf("%d results", len(a.Results))
			}
			r := a.Results[0]
			src := ""
			if r.Source >= 0 {
				src = srcs[r.Source].ID
			}
			if r.Outcome != c.outcome || src != c.source {
				t.Fatalf("outcome %s in %q, want %s in %q; %s", r.Outcome, src, c.outcome, c.source, a.AppendJSON(nil, 0))
			}
			if c.hasFind && !slices.ContainsFunc(r.Findings, func(f citecheck.Finding) bool { return f.Kind == c.finding }) {
				t.Errorf("findings %s, want %s", a.AppendJSON(nil, 0), c.finding)
			}
			if r.Span != nil {
				text := srcs[r.Source].Text
				x := citecheck.NewText(text)
				if got := text[x.ByteOffset(r.Span.Start):x.ByteOffset(r.Span.End)]; r.Outcome != Moved && r.Location == nil && got != r.Text {
					t.Errorf("span %v reads %q, not the quotation", *r.Span, got)
				}
			}
		})
	}
}

// The outcomes of report quotations (spec §5.13), each in several scripts.
func TestReportOutcomes(t *testing.T) {
	t.Parallel()
	runOutcomes(t, []outcomeCase{
		{name: "verbatim: in the marked source (Russian)", input: "«Все счастливые семьи похожи друг на друга» [ru]", outcome: Verbatim, source: "ru"},
		{name: "verbatim: without a marker, in the first source that has it (Japanese)", input: "「吾輩は猫である。名前はまだ無い。どこで生れたか」",
			sources: []Source{{ID: "en", Text: austen}, {ID: "a", Text: soseki}, {ID: "b", Text: soseki}}, outcome: Verbatim, source: "a"},
		{name: "verbatim: a quotation that occurs twice is still verbatim (Chinese)", input: "「不亦」[zh]", outcome: Verbatim, source: "zh"},
		{name: "verbatim: a blockquote over two lines (German)", input: "> Als Gregor Samsa eines Morgens aus unruhigen Träumen erwachte,\n> fand er sich in seinem Bett [de]",
			outcome: Verbatim, source: "de"},
		{name: "no_source: the marker names no source (Arabic)", input: "«يولد جميع الناس أحرارًا» [9]", outcome: NoSource},
		{name: "elsewhere: not in the marked source, exactly in another (German)", input: "„fand er sich in seinem Bett zu einem ungeheueren Ungeziefer verwandelt“ [fr]",
			outcome: Elsewhere, source: "de"},
		{name: "near: under the case fold (French)", input: "« les hommes naissent et demeurent libres et égaux en droits » [fr]",
			outcome: Near, source: "fr", finding: citecheck.FindingNormalized, hasFind: true},
		{name: "near: under the typography fold, straight for curly quotes (English)", input: `> "My dear Mr. Bennet," said his lady to him one day [en]`,
			outcome: Near, source: "en", finding: citecheck.FindingNormalized, hasFind: true},
		{name: "near: as an elision (Arabic)", input: "«يولد جميع الناس … في الكرامة والحقوق» [ar]",
			outcome: Near, source: "ar", finding: citecheck.FindingElided, hasFind: true},
		{name: "near: without a marker, in the source where the fold holds (Russian)", input: "«все счастливые семьи похожи друг на друга»",
			outcome: Near, source: "ru", finding: citecheck.FindingNormalized, hasFind: true},
		{name: "not_found: in the marked source, with its longest leading part (Chinese)", input: "「人不知而不愠，不亦君子乎？」[zh]",
			outcome: NotFound, source: "zh", finding: citecheck.FindingPartial, hasFind: true},
		{name: "not_found: without a marker, source null (English)", input: "“a young man of large fortune from the north of England”", outcome: NotFound},
	}, Options{})
}

// A quotation longer than max_quote_bytes, and one past the call's
// max_scan_units, are reported not_checked with the limit, and the run
// goes on.
func TestNotCheckedCarriesTheLimit(t *testing.T) {
	t.Parallel()
	long := strings.TrimSpace(strings.Repeat(tolstoy+" ", citecheck.MaxQuoteBytes/len(tolstoy)+1))
	report := "«" + long + "» [ru]\n\n«Все счастливые семьи похожи друг на друга» [ru]"
	a, err := Check(context.Background(), []byte(report), library(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := a.Results[0]
	if r.Outcome != NotChecked || r.Limit == nil || r.Limit.Name != citecheck.LimitQuoteBytes || r.Limit.Max != citecheck.MaxQuoteBytes || r.Limit.Actual != len(long) {
		t.Fatalf("%s", a.AppendJSON(nil, 0))
	}
	if a.Results[1].Outcome != Verbatim {
		t.Fatalf("the next quotation: %s", a.AppendJSON(nil, 1))
	}
	// Scan units: each quotation counts every source scanned with it, and
	// QuotationUnits.
	units := 0
	for _, s := range library() {
		units += utf16Len(s.Text)
	}
	qs := []string{"Все счастливые семьи", "Всё смешалось в доме", "каждая несчастливая семья"}
	cost := func(q string) int { return units + len(library())*utf16Len(q) + QuotationUnits }
	lim := citecheck.DefaultLimits()
	lim.ScanUnits = cost(qs[0]) + cost(qs[1])
	three := "«" + qs[0] + "» [ru] «" + qs[1] + "» [ru] «" + qs[2] + "» [ru]"
	a, err = Check(context.Background(), []byte(three), library(), Options{Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	got := [3]Outcome{a.Results[0].Outcome, a.Results[1].Outcome, a.Results[2].Outcome}
	if got != [3]Outcome{Verbatim, Verbatim, NotChecked} {
		t.Fatalf("outcomes %v", got)
	}
	if l := a.Results[2].Limit; l == nil || l.Name != citecheck.LimitScanUnits || l.Actual != cost(qs[0])+cost(qs[1])+cost(qs[2]) {
		t.Fatalf("%s", a.AppendJSON(nil, 2))
	}
}

// A structured answer: every citation is checked, source_id a string or
// an integer, none when null or absent.
func TestStructuredOutcomes(t *testing.T) {
	t.Parallel()
	srcs := []Source{{ID: "1", Text: kafka}, {ID: "2", Text: decl}}
	runOutcomes(t, []outcomeCase{
		{name: "verbatim, an integer source_id (German)", input: `{"citations":[{"source_id":1,"quote":"Gregor Samsa"}]}`, sources: srcs, outcome: Verbatim, source: "1"},
		{name: "verbatim, a string source_id (French)", input: `{"answer":"…","citations":[{"source_id":"2","quote":"libres"}]}`, sources: srcs, outcome: Verbatim, source: "2"},
		{name: "short quotes are checked: rule 5 is the reports'", input: `{"citations":[{"source_id":"1","quote":"Bett"}]}`, sources: srcs, outcome: Verbatim, source: "1"},
		{name: "no source_id: any source", input: `{"citations":[{"source_id":null,"quote":"égaux en droits"}]}`, sources: srcs, outcome: Verbatim, source: "2"},
		{name: "elsewhere", input: `{"citations":[{"source_id":2,"quote":"Gregor Samsa"}]}`, sources: srcs, outcome: Elsewhere, source: "1"},
		{name: "no_source", input: `{"citations":[{"source_id":3,"quote":"Gregor Samsa"}]}`, sources: srcs, outcome: NoSource},
		{name: "near, NFD in the quote (German)", input: `{"citations":[{"source_id":1,"quote":"aus unruhigen Tra\u0308umen erwachte"}]}`, sources: srcs,
			outcome: Near, source: "1", finding: citecheck.FindingNormalized, hasFind: true},
		{name: "not_checked: an empty quote", input: `{"citations":[{"source_id":1,"quote":""}]}`, sources: srcs, outcome: NotChecked},
	}, Options{})
}

// anthropicResponse is a Messages response with one text block citing c.
func anthropicResponse(c string) string {
	return `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"…","citations":[` + c + `]}]}`
}

func charLocation(doc int, cited string, start, end int) string {
	return `{"type":"char_location","cited_text":` + strconv.Quote(cited) + `,"document_index":` + strconv.Itoa(doc) +
		`,"document_title":null,"start_char_index":` + strconv.Itoa(start) + `,"end_char_index":` + strconv.Itoa(end) + `}`
}

func cpIndex(text, sub string) int { return utf8.RuneCountInString(text[:strings.Index(text, sub)]) }

// Anthropic citations: char_location spans count code points;
// content_block_location spans join the blocks; moved is the span wrong
// and the text elsewhere in the document.
func TestAnthropicOutcomes(t *testing.T) {
	t.Parallel()
	blocks := []string{"子曰：「學而時習之，不亦說乎？", "有朋自遠方來，不亦樂乎？", "人不知而不慍，不亦君子乎？」"}
	offs := []int{0}
	for _, b := range blocks {
		offs = append(offs, offs[len(offs)-1]+utf8.RuneCountInString(b))
	}
	srcs := []Source{{ID: "0", Text: emojiDoc}, {ID: "1", Text: strings.Join(blocks, ""), Blocks: offs}, {ID: "2", Text: tolstoy}}
	const cited = "Всё смешалось в доме Облонских."
	at := cpIndex(emojiDoc, cited)
	u16 := at // what JavaScript would count: the astral emoji twice each
	for _, r := range emojiDoc[:strings.Index(emojiDoc, cited)] {
		if r > 0xFFFF {
			u16++
		}
	}
	runOutcomes(t, []outcomeCase{
		{name: "verbatim: char_location in code points, past astral emoji", input: anthropicResponse(charLocation(0, cited, at, at+31)), sources: srcs, outcome: Verbatim, source: "0"},
		{name: "moved: char_location counted in UTF-16 units", input: anthropicResponse(charLocation(0, cited, u16, u16+31)), sources: srcs,
			outcome: Moved, source: "0", finding: citecheck.FindingOffsetUnits, hasFind: true},
		{name: "moved: a span past the end of the document", input: anthropicResponse(charLocation(0, cited, 500, 531)), sources: srcs, outcome: Moved, source: "0"},
		{name: "elsewhere: cited_text in another document", input: anthropicResponse(charLocation(0, "Все счастливые семьи", 0, 20)), sources: srcs, outcome: Elsewhere, source: "2"},
		{name: "near: cited_text under a fold", input: anthropicResponse(charLocation(0, "launch 🚀 notes", 0, 14)), sources: srcs,
			outcome: Near, source: "0", finding: citecheck.FindingNormalized, hasFind: true},
		{name: "not_found", input: anthropicResponse(charLocation(2, "Анна Каренина", 0, 13)), sources: srcs, outcome: NotFound, source: "2"},
		{name: "no_source: a document_index past the documents", input: anthropicResponse(charLocation(5, cited, 0, 31)), sources: srcs, outcome: NoSource},
		{name: "verbatim: content_block_location joins blocks [0, 2)", input: anthropicResponse(`{"type":"content_block_location","cited_text":"` + blocks[0] + blocks[1] + `","document_index":1,"start_block_index":0,"end_block_index":2}`),
			sources: srcs, outcome: Verbatim, source: "1"},
		{name: "moved: content_block_location names the wrong blocks", input: anthropicResponse(`{"type":"content_block_location","cited_text":"` + blocks[2] + `","document_index":1,"start_block_index":1,"end_block_index":2}`),
			sources: srcs, outcome: Moved, source: "1"},
		{name: "moved: content_block_location on a text document reads past its end", input: anthropicResponse(`{"type":"content_block_location","cited_text":"` + cited + `","document_index":0,"start_block_index":0,"end_block_index":1}`),
			sources: srcs, outcome: Moved, source: "0"},
		{name: "page_location: checked by its text when the document's text is supplied", input: anthropicResponse(`{"type":"page_location","cited_text":"` + cited + `","document_index":2,"start_page_number":1,"end_page_number":2}`),
			sources: srcs, outcome: Verbatim, source: "2"},
		{name: "page_location: a PDF whose text is not supplied has no source", input: anthropicResponse(`{"type":"page_location","cited_text":"x","document_index":7,"start_page_number":1,"end_page_number":2}`),
			sources: srcs, outcome: NoSource},
		{name: "not_checked: a web search result points into no document", input: anthropicResponse(`{"type":"web_search_result_location","cited_text":"x","url":"https://example.org","title":"t","encrypted_index":"e"}`),
			sources: srcs, outcome: NotChecked},
	}, Options{})
}

// With Explain, a failing quotation gets the fix the checks determine.
func TestExplainGivesTheFix(t *testing.T) {
	t.Parallel()
	srcs := []Source{{ID: "0", Text: emojiDoc}, {ID: "2", Text: tolstoy}}
	const cited = "Всё смешалось в доме Облонских."
	at := cpIndex(emojiDoc, cited)
	for _, c := range []struct {
		name, input, fix string
	}{
		{"moved: the span where cited_text is", anthropicResponse(charLocation(0, cited, 3, 34)), `"fix":{"start_char_index":` + strconv.Itoa(at) + `,"end_char_index":` + strconv.Itoa(at+31) + `}`},
		{"elsewhere: the marker of the source that has it", anthropicResponse(charLocation(0, "Все счастливые семьи", 0, 20)), `"fix":{"marker":"2"}`},
		{"near: the source's words", `{"citations":[{"source_id":"2","quote":"все счастливые семьи"}]}`, `"fix":{"quote":"Все счастливые семьи"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, err := Check(context.Background(), []byte(c.input), srcs, Options{Explain: true})
			if err != nil {
				t.Fatal(err)
			}
			if line := string(a.AppendJSON(nil, 0)); !strings.Contains(line, c.fix) {
				t.Errorf("%s\nlacks %s", line, c.fix)
			}
		})
	}
}

// The three shapes are told apart by content; JSON that is neither JSON
// shape, and reports that are not UTF-8, are refused with one line.
func TestShapesAreToldApartByContent(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, input string
		shape       Shape
		err         string
	}{
		{"a JSON object with type message is an Anthropic response", anthropicResponse(""), Anthropic, ""},
		{"type message wins over a citations array", `{"type":"message","citations":[]}`, Anthropic, ""},
		{"a JSON object with a citations array is a structured answer", `{"answer":"a","citations":[]}`, Structured, ""},
		{"a byte order mark and white space before it", "\uFEFF \n{\"citations\":[]}", Structured, ""},
		{"Markdown is a report", "# Title\n\n«Les hommes naissent»", Report, ""},
		{"a report may start with a bracket", "[1]: https://example.org\n“quoted”", Report, ""},
		{"a JSON string is a report", `"It was the best of times, it was the worst of times"`, Report, ""},
		{"an object of neither shape", `{"answer":"x"}`, 0, "neither an Anthropic response"},
		{"citations that are not an array", `{"citations":{}}`, 0, "neither an Anthropic response"},
		{"type that is not message", `{"type":"error","error":{}}`, 0, "neither an Anthropic response"},
		{"bad JSON", `{"citations":[`, 0, "not JSON"},
		{"a member twice", `{"citations":[],"citations":[]}`, 0, "not JSON"},
		{"a JSON array", `[{"source_id":"1","quote":"q"}]`, 0, "a JSON array"},
		{"a report that is not UTF-8", "caf\xe9", 0, "not UTF-8: invalid byte 0xE9 at byte offset 3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			sh, err := Detect([]byte(c.input))
			switch {
			case c.err == "" && (err != nil || sh != c.shape):
				t.Fatalf("%v, %v; want %v", sh, err, c.shape)
			case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n")):
				t.Fatalf("error %v, want %q", err, c.err)
			case err != nil:
				mustBeInvalid(t, err)
			}
		})
	}
}

// Wrong shapes within a JSON shape are refused, naming the value.
func TestReadersAreStrict(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, input string
		shape       Shape
		err         string
	}{
		{"a citation without quote", `{"citations":[{"source_id":"1"}]}`, Structured, `/citations/0 has no "quote"`},
		{"a quote that is not a string", `{"citations":[{"quote":1}]}`, Structured, "quote"},
		{"a source_id that is a fraction", `{"citations":[{"source_id":1.5,"quote":"q"}]}`, Structured, "/citations/0/source_id is 1.5"},
		{"a source_id that is an object", `{"citations":[{"source_id":{},"quote":"q"}]}`, Structured, "/citations/0/source_id"},
		{"a citation that is not an object", `{"citations":["q"]}`, Structured, "citations"},
		{"char_location without start_char_index", anthropicResponse(`{"type":"char_location","cited_text":"a","document_index":0,"end_char_index":1}`), Anthropic, `has no "start_char_index"`},
		{"char_location without cited_text", anthropicResponse(`{"type":"char_location","document_index":0,"start_char_index":0,"end_char_index":1}`), Anthropic, `no "cited_text"`},
		{"a negative index", anthropicResponse(charLocation(0, "a", -1, 1)), Anthropic, "negative"},
		{"an index that is not an integer", anthropicResponse(`{"type":"char_location","cited_text":"a","document_index":0.5,"start_char_index":0,"end_char_index":1}`), Anthropic, "document_index"},
		{"a citation without type", anthropicResponse(`{"cited_text":"a"}`), Anthropic, `no "type"`},
		{"content that is not an array", `{"type":"message","content":"x"}`, Anthropic, "content"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read([]byte(c.input), c.shape)
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %v, want %q", err, c.err)
			}
			mustBeInvalid(t, err)
		})
	}
}

// A Messages request's documents, in order across its messages: a text
// source's data, a content source's text blocks joined with nothing
// between them; a PDF counts for the numbering and has no text.
func TestRequestDocumentsAreTheSources(t *testing.T) {
	t.Parallel()
	req := `{"model":"m","messages":[{"role":"user","content":"plain"},{"role":"user","content":[
		{"type":"text","text":"q"},
		{"type":"document","source":{"type":"text","media_type":"text/plain","data":"` + tolstoy + `"}},
		{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}}]},
		{"role":"user","content":[{"type":"document","source":{"type":"content","content":[{"type":"text","text":"子曰："},{"type":"image","source":{}},{"type":"text","text":"學而時習之"}]}}]}]}`
	docs, err := ReadRequest([]byte(req))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 3 || docs[0].ID != "0" || docs[0].Text != tolstoy || docs[1].HasText || docs[2].ID != "2" || docs[2].Text != "子曰：學而時習之" {
		t.Fatalf("%+v", docs)
	}
	if got := docs[2].Blocks; len(got) != 4 || got[0] != 0 || got[1] != 3 || got[2] != 3 || got[3] != 8 {
		t.Fatalf("blocks %v", got)
	}
	if s := Sources(docs); len(s) != 2 || s[1].ID != "2" {
		t.Fatalf("sources %+v", s)
	}
	// Each document's Path points, in the request, at what carries its
	// text (at its source without one), for a limit's message to name.
	want := []string{"/messages/1/content/1/source/data", "/messages/1/content/2/source", "/messages/2/content/0/source/content"}
	for i, d := range docs {
		if d.Path != want[i] {
			t.Errorf("document %d: Path %q, want %q", i, d.Path, want[i])
		}
	}
	if s := Sources(docs); s[0].Path != want[0] || s[1].Path != want[2] {
		t.Errorf("sources' paths %q, %q", s[0].Path, s[1].Path)
	}
	for _, bad := range []string{`{"model":"m"}`, `{"messages":{}}`, `{"messages":[{"content":[{"type":"document"}]}]}`,
		`{"messages":[{"content":[{"type":"document","source":{"type":"text","data":1}}]}]}`, `not json`} {
		if _, err := ReadRequest([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		} else {
			mustBeInvalid(t, err)
		}
	}
}

// Sources must be distinct and UTF-8; a stopped context stops the check.
func TestCheckRefusesBadSourcesAndStops(t *testing.T) {
	t.Parallel()
	for _, srcs := range [][]Source{{{ID: "a", Text: "x"}, {ID: "a", Text: "y"}}, {{ID: "a", Text: "caf\xe9"}}} {
		if _, err := Check(context.Background(), []byte("«x» [a]"), srcs, Options{}); err == nil {
			t.Errorf("%+v accepted", srcs)
		} else {
			mustBeInvalid(t, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Check(ctx, []byte("«Все счастливые семьи» [ru]"), library(), Options{})
	var ce *citecheck.Error
	if !errorsAs(err, &ce) || ce.Code != citecheck.CodeOverloaded {
		t.Fatalf("error %v, want overloaded", err)
	}
}

// A citation of a request's document that carries no text (a PDF, a
// URL, a Files API file) is not_checked, saying why and how to give the
// text, not no_source: the request does supply the document. A source
// of that id makes it checked as usual; a document the request does not
// have is no_source still.
func TestTextlessDocumentIsNotChecked(t *testing.T) {
	t.Parallel()
	req := `{"model":"m","messages":[{"role":"user","content":[
		{"type":"document","source":{"type":"text","media_type":"text/plain","data":"` + tolstoy + `"}},
		{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}},
		{"type":"document","source":{"type":"url","url":"https://example.com/a.pdf"}},
		{"type":"document","source":{"type":"file","file_id":"file_1"}}]}]}`
	docs, err := ReadRequest([]byte(req))
	if err != nil {
		t.Fatal(err)
	}
	const cited = "Все счастливые семьи похожи друг на друга"
	page := func(doc int) string {
		return `{"type":"page_location","cited_text":"` + cited + `","document_index":` + strconv.Itoa(doc) + `,"start_page_number":1,"end_page_number":2}`
	}
	for _, c := range []struct {
		name    string
		cit     string
		given   []Source // beyond the request's documents with text
		outcome Outcome
		why     string
	}{
		{"a PDF", page(1), nil, NotChecked, docs[1].NoText()},
		{"a URL", charLocation(2, cited, 0, 41), nil, NotChecked, docs[2].NoText()},
		{"a Files API file", page(3), nil, NotChecked, docs[3].NoText()},
		{"a PDF whose text is given", page(1), []Source{{ID: "1", Text: tolstoy}}, Verbatim, ""},
		{"a document with text", charLocation(0, cited, 0, 41), nil, Verbatim, ""},
		{"a document the request does not have", page(4), nil, NoSource, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			srcs := append(Sources(docs), c.given...)
			a, err := Check(context.Background(), []byte(anthropicResponse(c.cit)), srcs, Options{Documents: docs})
			if err != nil {
				t.Fatal(err)
			}
			r := a.Results[0]
			if r.Outcome != c.outcome || r.Why != c.why {
				t.Fatalf("%s, why %q; want %s, %q", r.Outcome, r.Why, c.outcome, c.why)
			}
			if c.outcome != NotChecked {
				return
			}
			if !strings.Contains(r.Why, "--source "+r.Marker+"=FILE") || !strings.Contains(r.Why, `{"id": "`+r.Marker+`"`) {
				t.Errorf("why %q says not how to give the text", r.Why)
			}
			text := string(a.AppendText(nil, report.Options{}))
			if strings.Contains(text, "no source") || !strings.Contains(text, "from which citecheck reads no text") {
				t.Errorf("the text report:\n%s", text)
			}
		})
	}
}
