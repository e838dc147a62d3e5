package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite testdata/report/*.golden from the current output")

// body is the request of sources and citations.
func body(sources []testkit.Source, citations ...testkit.Citation) string {
	return string(testkit.Request{Sources: sources, Citations: citations}.Body())
}

// pos and anchor are citations of source "doc" version "v1".
func pos(id string, start, end int, q string) testkit.Citation {
	return testkit.PositionCitation(id, "doc", "v1", start, end, q)
}
func anchor(id, exact string) testkit.Citation { return testkit.QuoteCitation(id, "doc", "v1", exact) }

const (
	alphabet = "abcdefghijklmnopqrstuvwxyz"
	prose    = "It was the best of times, it was the worst of times,\nit was the age of wisdom, it was the age of foolishness,\r\nit was the epoch of belief,\tit was the epoch of incredulity."
	cjk      = "東京都は日本の首都であり、人口は約千四百万人です。大阪は第二の都市です。"
	emoji    = "Launch day 🚀🚀 went well 👍🏽 and the team 👨‍👩‍👧 celebrated 🇯🇵 style ❤️ — then 🎉!"
	// NFD: "é" as e + U+0301, "ñ" as n + U+0303.
	combining = "Cafe\u0301 and pin\u0303ata, re\u0301sume\u0301 in the dossier."
)

func doc(text string) []testkit.Source { return []testkit.Source{testkit.NewSource("doc", "v1", text)} }

var goldenCases = []struct {
	name string
	body string
	all  bool
}{
	{"valid", body(doc(alphabet), pos("c1", 4, 7, "efg"), anchor("c2", "xyz").WithPrefix("w").WithClaimedStart(23)), false},
	{"error-invalid-input", `{"sources":[],"citations":[]}`, false},
	{"error-limit", body(doc(strings.Repeat("a", 600000)), pos("c1", 0, 1, "a")), false},
	{"unknown-source", body([]testkit.Source{testkit.NewSource("doc", "v1", alphabet), testkit.NewSource("notes", "v1", "x")},
		testkit.PositionCitation("c1", "Doc", "v1", 0, 1, "a")), false},
	{"version-mismatch", body([]testkit.Source{testkit.NewSource("doc", "v1", alphabet), testkit.NewSource("doc", "v3", alphabet)},
		testkit.QuoteCitation("c1", "doc", "v2", "abc")), false},
	{"span-reversed", body(doc(alphabet), pos("c1", 7, 4, "efg")), false},
	{"span-out-of-range", body(doc(alphabet), pos("c1", 20, 30, "uvwxyz!")), false},
	{"span-out-of-range-start", body(doc(alphabet), pos("c1", 27, 30, "xyz")), false},
	{"quote-mismatch", body(doc(alphabet), pos("c1", 4, 7, "efh")), false},
	{"quote-mismatch-quote-longer", body(doc(alphabet), pos("c1", 4, 7, "efgh")), false},
	{"quote-mismatch-quote-shorter", body(doc(alphabet), pos("c1", 4, 8, "efg")), false},
	{"quote-mismatch-found-elsewhere", body(doc(prose), pos("c1", 0, 23, "it was the age of wisdom")), false},
	{"quote-mismatch-newline", body(doc(prose), pos("c1", 37, 55, "worst of times, it")), false},
	{"exact-not-found", body(doc(prose), anchor("c1", "it was the age of reason")), false},
	{"exact-not-found-no-character", body(doc(alphabet), anchor("c1", "ZEBRA")), false},
	{"exact-not-found-at-end", body(doc(alphabet), anchor("c1", "xyz!")), false},
	{"prefix-mismatch", body(doc(alphabet), anchor("c1", "xyz").WithPrefix("v")), false},
	{"prefix-mismatch-at-text-start", body(doc(alphabet), anchor("c1", "bcd").WithPrefix("XYa")), false},
	{"suffix-mismatch", body(doc(prose), anchor("c1", "age of wisdom").WithSuffix(", it was the age of folly")), false},
	{"ambiguous-anchor", body(doc(prose), anchor("c1", "it was the")), false},
	{"ambiguous-anchor-bananas", body(doc("bananas"), anchor("c1", "ana")), false},
	{"ambiguous-anchor-no-unique-prefix", body(doc("aaaa"), anchor("c1", "a")), false},
	{"position-mismatch", body(doc(alphabet), anchor("c1", "xyz").WithClaimedStart(22)), false},
	{"position-mismatch-past-end", body(doc(alphabet), anchor("c1", "xyz").WithClaimedStart(40)), false},
	{"cjk-quote-mismatch", body(doc(cjk), pos("c1", 13, 24, "人口は約千三百万人です")), false},
	{"cjk-exact-not-found", body(doc(cjk), anchor("c1", "大阪は第三の都市")), false},
	{"emoji-quote-mismatch", body(doc(emoji), pos("c1", 40, 56, "👨‍👩‍👦 celebrated")), false},
	{"emoji-skin-tone", body(doc(emoji), anchor("c1", "went well 👍🏾")), false},
	{"emoji-flag-position", body(doc(emoji), anchor("c1", "style ❤️ — then").WithClaimedStart(57)), false},
	{"combining-nfc-vs-nfd", body(doc(combining), pos("c1", 0, 5, "Café")), false},
	{"combining-mark-differs", body(doc(combining), anchor("c1", "pin\u0303ata, re\u0300sume")), false},
	{"controls-and-invisibles", body(doc("zero\u200bwidth and\u00a0nbsp\u0085next\u202eevil\x01end"), pos("c1", 0, 15, "zerowidth and n")), false},
	{"long-lines-cut", body(doc(strings.Repeat("lorem ipsum dolor sit amet ", 20)+"UNIQUE"+strings.Repeat(" consectetur adipiscing elit", 20)),
		pos("c1", 540, 546, "UNIQUX"), anchor("c2", strings.Repeat("lorem ipsum dolor sit amet ", 3))), true},
	{"all-every-reason", body([]testkit.Source{testkit.NewSource("doc", "v1", alphabet), testkit.NewSource("doc", "v2", "bananas")},
		pos("p-ok", 4, 7, "efg"),
		testkit.QuoteCitation("unknown", "book", "v1", "a"),
		testkit.QuoteCitation("version", "doc", "v9", "a"),
		pos("reversed", 7, 4, "efg"),
		pos("range", 20, 30, "x"),
		pos("mismatch", 4, 7, "efh"),
		anchor("not-found", "xyz!"),
		anchor("prefix", "xyz").WithPrefix("v"),
		anchor("suffix", "mn").WithSuffix("pq"),
		anchor("q-ok", "xyz").WithPrefix("w").WithClaimedStart(23),
		testkit.QuoteCitation("ambiguous", "doc", "v2", "ana").WithClaimedStart(1),
		anchor("position", "xyz").WithClaimedStart(22)), true},
	{"all-valid", body(doc(alphabet), pos("c1", 4, 7, "efg")), true},
}

// golden compares got with the golden file at path, or rewrites the file
// with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("report differs from %s (go test -update rewrites it)\n got:\n%s\nwant:\n%s", path, got, want)
	}
}

// render checks a golden case's body and draws its report.
func render(t *testing.T, body string, all bool, o Options) []byte {
	t.Helper()
	req, e := citecheck.Decode([]byte(body))
	if e != nil {
		return AppendError(nil, citecheck.AsError(e), o)
	}
	if all {
		return AppendAll(nil, req, citecheck.CheckAll(req), o)
	}
	return AppendResult(nil, req, citecheck.Check(req), o)
}

// TestGolden compares every report with testdata/report/NAME.golden
// (NAME.color.golden with colour). Run with -update after a deliberate
// change, and read the diff.
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, c := range goldenCases {
		for _, color := range []bool{false, true} {
			name := c.name
			if color {
				name += ".color"
			}
			t.Run(name, func(t *testing.T) {
				golden(t, filepath.Join("testdata", "report", name+".golden"), render(t, c.body, c.all, Options{Color: color}))
			})
		}
	}
}
