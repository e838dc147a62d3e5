package quotes

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/report"
)

// htmlItems checks input against sources and returns the answer and its
// HTML items.
func htmlItems(t *testing.T, input string, sources []Source, explain bool) (*Answer, []report.Item) {
	t.Helper()
	a, err := Check(context.Background(), []byte(input), sources, Options{Explain: explain})
	if err != nil {
		t.Fatal(err)
	}
	items := a.AppendHTMLItems(nil)
	if len(items) != len(a.Results) {
		t.Fatalf("%d items for %d results", len(items), len(a.Results))
	}
	return a, items
}

// prefixCP is the first n code points of s.
func prefixCP(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// Each outcome is shown against its passages: verbatim its match;
// moved and elsewhere where the quotation stands exactly (moved, the span
// it cites as well); near the nearest reading, compared character by
// character; not_found its longest leading part, when one is found;
// no_source and not_checked none. Each passage reads what its label
// says, and the item's fix is the text report's.
func TestHTMLItemsShowEachOutcomesPassages(t *testing.T) {
	t.Parallel()
	srcs := library()
	anth := []Source{{ID: "0", Text: emojiDoc}, {ID: "2", Text: tolstoy}}
	const cited = "Всё смешалось в доме Облонских."
	at := cpIndex(emojiDoc, cited)
	for _, c := range []struct {
		name    string
		input   string
		sources []Source
		outcome Outcome
		labels  []string
		fix     string
	}{
		{"verbatim: its match", "«Все счастливые семьи похожи друг на друга» [ru]", srcs, Verbatim, []string{"match"}, ""},
		{"verbatim blockquote: its match", "> Als Gregor Samsa eines Morgens aus unruhigen Träumen erwachte,\n> fand er sich in seinem Bett [de]", srcs, Verbatim, []string{"match"}, ""},
		{"verbatim Anthropic: its own span", anthropicResponse(charLocation(0, cited, at, at+31)), anth, Verbatim, []string{"match"}, ""},
		{"elsewhere: where it stands exactly", "„fand er sich in seinem Bett zu einem ungeheueren Ungeziefer verwandelt“ [fr]", srcs, Elsewhere, []string{"found"}, `mark it "de"`},
		{"moved: where it stands, and the cited span", anthropicResponse(charLocation(0, cited, 3, 34)), anth, Moved, []string{"found", "cited span"},
			"start_char_index " + strconv.Itoa(at) + ", end_char_index " + strconv.Itoa(at+31)},
		{"moved: a cited span past the document's end is not shown", anthropicResponse(charLocation(0, cited, 500, 531)), anth, Moved, []string{"found"}, ""},
		{"near under a fold: the nearest reading, compared", "« les hommes naissent et demeurent libres et égaux en droits » [fr]", srcs, Near, []string{"nearest reading"},
			`quote the source's words: "Les hommes naissent et demeurent libres et égaux en droits"`},
		{"near as an elision (Arabic): the nearest reading, compared", "«يولد جميع الناس … في الكرامة والحقوق» [ar]", srcs, Near, []string{"nearest reading"}, ""},
		{"not_found in the marked source: its longest leading part", "「人不知而不愠，不亦君子乎？」[zh]", srcs, NotFound, []string{"longest part found"}, ""},
		{"not_found without a marker: its longest leading part anywhere", "“It is a truth universally known, that a single man”", srcs, NotFound, []string{"longest part found"}, ""},
		{"not_found with no part found: nothing", "«Анна Каренина» [ru]", srcs, NotFound, nil, ""},
		{"no_source: nothing", "«يولد جميع الناس أحرارًا» [9]", srcs, NoSource, nil, ""},
		{"not_checked: nothing", anthropicResponse(`{"type":"web_search_result_location","cited_text":"x","url":"https://example.org","title":"t","encrypted_index":"e"}`), anth, NotChecked, nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, items := htmlItems(t, c.input, c.sources, true)
			r, it := &a.Results[0], items[0]
			if r.Outcome != c.outcome || it.Outcome != c.outcome.String() {
				t.Fatalf("outcome %s, item %s; want %s", r.Outcome, it.Outcome, c.outcome)
			}
			var labels []string
			for _, p := range it.Passages {
				labels = append(labels, p.Label)
				if p.Compare != (p.Label == "nearest reading") {
					t.Errorf("%s: Compare %v", p.Label, p.Compare)
				}
				if n := len([]rune(p.Before)); n > report.ExcerptContext || len([]rune(p.After)) > report.ExcerptContext {
					t.Errorf("%s: context over %d code points", p.Label, report.ExcerptContext)
				}
				switch p.Label {
				case "match", "found":
					if p.Text != r.Text || p.Start != r.Span.Start || p.End != r.Span.End {
						t.Errorf("%s reads %q at [%d, %d), want %q at %v", p.Label, p.Text, p.Start, p.End, r.Text, *r.Span)
					}
				case "cited span":
					if p.Text == r.Text || p.End-p.Start != 31 {
						t.Errorf("cited span %q at [%d, %d)", p.Text, p.Start, p.End)
					}
				case "nearest reading":
					f := r.Findings[0]
					if p.Text != f.SourceText || p.Start != f.Start || p.End != f.End {
						t.Errorf("nearest reading %q at [%d, %d), want %q at [%d, %d)", p.Text, p.Start, p.End, f.SourceText, f.Start, f.End)
					}
				case "longest part found":
					if p.Text == "" || !strings.HasPrefix(r.Text, p.Text) || len(p.Text) >= len(r.Text) {
						t.Errorf("longest part %q of %q", p.Text, r.Text)
					}
				}
			}
			if strings.Join(labels, ",") != strings.Join(c.labels, ",") {
				t.Errorf("passages %q, want %q", labels, c.labels)
			}
			if it.Fix != fixWords(r) || c.fix != "" && it.Fix != c.fix {
				t.Errorf("fix %q, want %q", it.Fix, c.fix)
			}
			if it.Why != a.why(r) || it.Head != a.head(r) || it.Text != r.Text {
				t.Errorf("head %q, why %q, text %q", it.Head, it.Why, it.Text)
			}
		})
	}
}

// The HTML report shows a failing quotation against the places the text
// report draws: each "found" and "near" excerpt of a text block is a
// passage of the item ("found", "nearest reading"), reading the same
// words, and the fix is the same.
func TestHTMLAndTextShowTheSamePlaces(t *testing.T) {
	t.Parallel()
	input := "Tolstoy: «Все счастливые семьи похожи друг на друга» [ru]. Kafka: „fand er sich in seinem Bett zu einem ungeheueren Ungeziefer verwandelt“ [fr].\n\n" +
		"« les hommes naissent et demeurent libres et égaux en droits » [fr]\n\n> يولد جميع الناس … في الكرامة والحقوق\n> [ar]\n"
	a, items := htmlItems(t, input, library(), true)
	blocks := strings.Split(string(a.AppendText(nil, report.Options{})), "\n\n")
	shown := 0
	for i, it := range items {
		if it.Outcome == Verbatim.String() {
			continue
		}
		var block string
		for _, b := range blocks {
			if strings.HasPrefix(b, it.Head+":") {
				block = b
			}
		}
		if block == "" {
			t.Fatalf("item %d (%s) has no text block", i, it.Head)
		}
		var textLabels, htmlLabels []string
		for _, l := range strings.Split(block, "\n") {
			if f := strings.Fields(l); len(f) > 0 && (f[0] == "found" || f[0] == "near") {
				textLabels = append(textLabels, map[string]string{"found": "found", "near": "nearest reading"}[f[0]])
			}
		}
		for _, p := range it.Passages {
			htmlLabels = append(htmlLabels, p.Label)
			if !strings.Contains(block, prefixCP(p.Text, 12)) {
				t.Errorf("item %d: %s %q is not in its text block\n%s", i, p.Label, p.Text, block)
			}
			shown++
		}
		if strings.Join(textLabels, ",") != strings.Join(htmlLabels, ",") {
			t.Errorf("item %d: text draws %q, HTML shows %q", i, textLabels, htmlLabels)
		}
		if it.Fix != "" && !strings.Contains(block, "fix     "+it.Fix) {
			t.Errorf("item %d: fix %q not in\n%s", i, it.Fix, block)
		}
	}
	if shown != 3 {
		t.Errorf("%d passages shown, want 3", shown)
	}
}

// An item's Range is the quotation in the report, from its opening mark
// to past its closing mark, for every kind of mark; a blockquote's from
// its first '>' to its last text; a byte order mark counted. The page's
// document is the report as given.
func TestHTMLRangeCoversTheQuotationsMarks(t *testing.T) {
	t.Parallel()
	quoted := []string{
		"«Все счастливые семьи похожи друг на друга»",
		"“It is a truth universally acknowledged”",
		`"It is a truth universally acknowledged"`,
		"„Als Gregor Samsa eines Morgens“",
		"„Als Gregor Samsa eines Morgens”",
		"「吾輩は猫である。名前はまだ無い。」",
		"『吾輩は猫である。名前はまだ無い。どこで生れたか』",
		"“It is a truth\n  universally acknowledged”",
	}
	body := "Intro.\n\n"
	for _, q := range quoted {
		body += "He wrote " + q + " [x] then.\n\n"
	}
	bq := "> يولد جميع الناس أحرارًا متساوين\n>   في الكرامة والحقوق"
	body += bq + " [ar] [en]\n\nEnd."
	want := append(quoted, bq)
	for _, bom := range []string{"", "\uFEFF"} {
		input := bom + body
		a, items := htmlItems(t, input, library(), false)
		page := NewHTMLPage("draft.md", a.Shape, []byte(input))
		if page.Document == nil || page.Document.Text != input || page.Document.Name != "draft.md" {
			t.Fatalf("document %+v", page.Document)
		}
		if len(items) != len(want) {
			t.Fatalf("%d items, want %d", len(items), len(want))
		}
		for i, it := range items {
			if it.Range == nil {
				t.Fatalf("item %d has no range", i)
			}
			if got := input[it.Range.Start:it.Range.End]; got != want[i] {
				t.Errorf("bom %q, item %d: range reads %q, want %q", bom, i, got, want[i])
			}
		}
	}
}

// A structured answer and an Anthropic response have no document: their
// items have no range. Every page counts the seven outcomes, in order.
func TestHTMLPageOfEachShape(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, input string
		doc         bool
	}{
		{"report", "«Все счастливые семьи похожи друг на друга» [ru]", true},
		{"structured", `{"citations":[{"source_id":"ru","quote":"Все счастливые семьи"}]}`, false},
		{"anthropic", anthropicResponse(charLocation(0, "Все счастливые семьи", 0, 20)), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			a, items := htmlItems(t, c.input, []Source{{ID: "0", Text: tolstoy}, {ID: "ru", Text: tolstoy}}, false)
			p := NewHTMLPage("in", a.Shape, []byte(c.input))
			if p.Title != "citecheck quotes: in" || p.Kind != "quotes" || (p.Document != nil) != c.doc || (items[0].Range != nil) != c.doc {
				t.Errorf("page %+v, range %v", p, items[0].Range)
			}
			want := []report.Outcome{{Name: "no_source", Tone: report.ToneNotChecked}, {Name: "verbatim", Tone: report.TonePass},
				{Name: "moved", Tone: report.ToneNear}, {Name: "elsewhere", Tone: report.ToneNear}, {Name: "near", Tone: report.ToneNear},
				{Name: "not_found", Tone: report.ToneFail}, {Name: "not_checked", Tone: report.ToneNotChecked}}
			if !slices.Equal(p.Outcomes, want) {
				t.Errorf("outcomes %v, want %v: every outcome once, in order, only verbatim a pass", p.Outcomes, want)
			}
		})
	}
}

// The items are the JSON lines' quotations, in their order: the id is
// "q" and the line's index (going on across batches), and outcome and
// source are the line's; a match or found passage is at the line's span.
func TestHTMLItemsFollowTheJSONLines(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range BatchQuotations + 40 {
		switch i % 4 {
		case 0:
			b.WriteString("«Все счастливые семьи похожи друг на друга» [ru]\n\n")
		case 1:
			b.WriteString("„fand er sich in seinem Bett zu einem ungeheueren Ungeziefer verwandelt“ [fr]\n\n")
		case 2:
			b.WriteString("« les hommes naissent et demeurent libres et égaux en droits » [fr]\n\n")
		case 3:
			b.WriteString("「吾輩は猫である。名前はまだ無い。」[9]\n\n")
		}
	}
	run := Run{Shape: Report, Input: []byte(b.String()), Name: "t", Sources: library()}
	var items []report.Item
	var lines []byte
	_, stopped := run.Each(context.Background(), func(a *Answer) {
		items = a.AppendHTMLItems(items)
		lines = a.AppendLines(lines)
	})
	if stopped != nil {
		t.Fatal(stopped)
	}
	ls := bytes.Split(bytes.TrimSuffix(lines, []byte("\n")), []byte("\n"))
	if len(ls) != len(items) {
		t.Fatalf("%d lines, %d items", len(ls), len(items))
	}
	for i, l := range ls {
		var line struct {
			Index   int
			Outcome string
			Source  *string
			Span    *citecheck.Span
		}
		if err := json.Unmarshal(l, &line); err != nil {
			t.Fatal(err)
		}
		it := items[i]
		src := ""
		if line.Source != nil {
			src = *line.Source
		}
		if it.ID != "q"+strconv.Itoa(line.Index) || it.Outcome != line.Outcome || it.Source != src {
			t.Fatalf("item %d: %s %s %q; line %s", i, it.ID, it.Outcome, it.Source, l)
		}
		for _, p := range it.Passages {
			if (p.Label == "match" || p.Label == "found") && (line.Span == nil || p.Start != line.Span.Start || p.End != line.Span.End) {
				t.Errorf("item %d: %s at [%d, %d); line %s", i, p.Label, p.Start, p.End, l)
			}
		}
	}
}

// The page model of a small report with every outcome a report has, as
// JSON: a golden file (go test ./quotes -run TestHTMLPageGolden -update
// rewrites it).
func TestHTMLPageGolden(t *testing.T) {
	t.Parallel()
	input := "# Openings\n\n" +
		"Tolstoy: «Все счастливые семьи похожи друг на друга» [ru]. Kafka: „fand er sich in seinem Bett zu einem ungeheueren Ungeziefer verwandelt“ [fr].\n\n" +
		"La Déclaration : « les hommes naissent et demeurent libres et égaux en droits » [fr] ; Austen: “a young man of large fortune from the north of England” [en].\n\n" +
		"> يولد جميع الناس … في الكرامة والحقوق\n> [ar]\n\n" +
		"漱石「吾輩は猫である。名前はまだ無い。」[9]"
	a, items := htmlItems(t, input, library(), true)
	p := NewHTMLPage("openings.md", a.Shape, []byte(input))
	p.Items = items
	got, err := json.MarshalIndent(p, "", "\t")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "html", "report-every-outcome.page.json")
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./quotes -run TestHTMLPageGolden -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
