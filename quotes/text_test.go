package quotes

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/citecheck/citecheck/report"
)

var update = flag.Bool("update", false, "rewrite testdata/text/*.golden from the current output")

// The text report (spec §5.13, `--format text`): each failing quotation
// with the source around its nearest match, then a verdict; golden files,
// plain and in colour.
func TestTextReportGolden(t *testing.T) {
	t.Parallel()
	srcs := library()
	blocks := []string{"子曰：「學而時習之，不亦說乎？", "有朋自遠方來，不亦樂乎？", "人不知而不慍，不亦君子乎？」"}
	anth := []Source{{ID: "0", Text: emojiDoc}, {ID: "1", Text: blocks[0] + blocks[1] + blocks[2], Blocks: []int{0, 15, 27, 41}}, {ID: "2", Text: tolstoy}}
	cases := []struct {
		name    string
		input   string
		sources []Source
		explain bool
	}{
		{"report-every-outcome", "# Openings\n\n" +
			"Tolstoy: «Все счастливые семьи похожи друг на друга» [ru]. Kafka: „fand er sich in seinem Bett zu einem ungeheueren Ungeziefer verwandelt“ [fr].\n\n" +
			"La Déclaration : « les hommes naissent et demeurent libres et égaux en droits » [fr] ; Austen: “a young man of large fortune from the north of England” [en].\n\n" +
			"> يولد جميع الناس … في الكرامة والحقوق\n> [ar]\n\n" +
			"漱石「吾輩は猫である。名前はまだ無い。」[9]", srcs, true},
		{"report-verbatim", "«Все счастливые семьи похожи друг на друга» [ru] and 「吾輩は猫である。名前はまだ無い。どこで生れたか」", srcs, false},
		{"structured", `{"citations":[{"source_id":"de","quote":"fand er sich in seinem Bett"},{"source_id":"de","quote":"Als Gregor Samsa eines Morgens aus unruhigen Träumen erwachte, fand er sich in seinem Bette"},{"quote":"a single man in possession of a large fortune"}]}`, srcs, false},
		{"anthropic", anthropicResponse(charLocation(0, "Всё смешалось в доме Облонских.", 44, 75) + "," + charLocation(0, "Все счастливые семьи", 0, 20) + "," +
			`{"type":"content_block_location","cited_text":"人不知而不愠，不亦君子乎？」","document_index":1,"start_block_index":2,"end_block_index":3},` +
			`{"type":"web_search_result_location","cited_text":"x","url":"https://example.org","title":"t","encrypted_index":"e"}`), anth, true},
	}
	for _, c := range cases {
		a, err := Check(context.Background(), []byte(c.input), c.sources, Options{Explain: c.explain})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, color := range []bool{false, true} {
			name := c.name
			if color {
				name += ".color"
			}
			got := a.AppendText(nil, report.Options{Color: color})
			path := filepath.Join("testdata", "text", name+".golden")
			if *update {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (go test ./quotes -run TestTextReportGolden -update writes it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: got\n%s\nwant\n%s", name, got, want)
			}
		}
	}
}
