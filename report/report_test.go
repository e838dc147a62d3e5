package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
)

var update = flag.Bool("update", false, "rewrite testdata/report/*.golden from the current output")

// body builds a request: sources as (id, version, text) triples, citations
// as raw JSON objects.
func body(sources [][3]string, citations ...string) string {
	var src []string
	for _, s := range sources {
		b, _ := json.Marshal(map[string]string{"source_id": s[0], "version": s[1], "text": s[2]})
		src = append(src, string(b))
	}
	return `{"sources":[` + strings.Join(src, ",") + `],"citations":[` + strings.Join(citations, ",") + `]}`
}

// pos and anchor write citations of source "doc" version "v1".
func pos(id string, start, end int, quote string) string {
	q, _ := json.Marshal(quote)
	b, _ := json.Marshal(start)
	e, _ := json.Marshal(end)
	return `{"citation_id":"` + id + `","source_id":"doc","version":"v1","selector":{"type":"TextPositionSelector","start":` +
		string(b) + `,"end":` + string(e) + `},"quote":` + string(q) + `}`
}

func anchor(id, exact, prefix, suffix string, claimed int) string {
	sel := map[string]string{"type": "TextQuoteSelector", "exact": exact}
	if prefix != "" {
		sel["prefix"] = prefix
	}
	if suffix != "" {
		sel["suffix"] = suffix
	}
	s, _ := json.Marshal(sel)
	c := `{"citation_id":"` + id + `","source_id":"doc","version":"v1","selector":` + string(s)
	if claimed >= 0 {
		cs, _ := json.Marshal(claimed)
		c += `,"claimed_start":` + string(cs)
	}
	return c + "}"
}

const (
	alphabet = "abcdefghijklmnopqrstuvwxyz"
	prose    = "It was the best of times, it was the worst of times,\nit was the age of wisdom, it was the age of foolishness,\r\nit was the epoch of belief,\tit was the epoch of incredulity."
	cjk      = "東京都は日本の首都であり、人口は約千四百万人です。大阪は第二の都市です。"
	emoji    = "Launch day 🚀🚀 went well 👍🏽 and the team 👨‍👩‍👧 celebrated 🇯🇵 style ❤️ — then 🎉!"
	// NFD: "é" as e + U+0301, "ñ" as n + U+0303.
	combining = "Cafe\u0301 and pin\u0303ata, re\u0301sume\u0301 in the dossier."
)

var doc = func(text string) [][3]string { return [][3]string{{"doc", "v1", text}} }

var goldenCases = []struct {
	name string
	body string
	all  bool
}{
	{"valid", body(doc(alphabet), pos("c1", 4, 7, "efg"), anchor("c2", "xyz", "w", "", 23)), false},
	{"error-invalid-input", `{"sources":[],"citations":[]}`, false},
	{"error-limit", body(doc(strings.Repeat("a", 600000)), pos("c1", 0, 1, "a")), false},
	{"unknown-source", body([][3]string{{"doc", "v1", alphabet}, {"notes", "v1", "x"}},
		`{"citation_id":"c1","source_id":"Doc","version":"v1","selector":{"type":"TextPositionSelector","start":0,"end":1},"quote":"a"}`), false},
	{"version-mismatch", body([][3]string{{"doc", "v1", alphabet}, {"doc", "v3", alphabet}},
		`{"citation_id":"c1","source_id":"doc","version":"v2","selector":{"type":"TextQuoteSelector","exact":"abc"}}`), false},
	{"span-reversed", body(doc(alphabet), pos("c1", 7, 4, "efg")), false},
	{"span-out-of-range", body(doc(alphabet), pos("c1", 20, 30, "uvwxyz!")), false},
	{"span-out-of-range-start", body(doc(alphabet), pos("c1", 27, 30, "xyz")), false},
	{"quote-mismatch", body(doc(alphabet), pos("c1", 4, 7, "efh")), false},
	{"quote-mismatch-quote-longer", body(doc(alphabet), pos("c1", 4, 7, "efgh")), false},
	{"quote-mismatch-quote-shorter", body(doc(alphabet), pos("c1", 4, 8, "efg")), false},
	{"quote-mismatch-found-elsewhere", body(doc(prose), pos("c1", 0, 23, "it was the age of wisdom")), false},
	{"quote-mismatch-newline", body(doc(prose), pos("c1", 37, 55, "worst of times, it")), false},
	{"exact-not-found", body(doc(prose), anchor("c1", "it was the age of reason", "", "", -1)), false},
	{"exact-not-found-no-character", body(doc(alphabet), anchor("c1", "ZEBRA", "", "", -1)), false},
	{"exact-not-found-at-end", body(doc(alphabet), anchor("c1", "xyz!", "", "", -1)), false},
	{"prefix-mismatch", body(doc(alphabet), anchor("c1", "xyz", "v", "", -1)), false},
	{"prefix-mismatch-at-text-start", body(doc(alphabet), anchor("c1", "bcd", "XYa", "", -1)), false},
	{"suffix-mismatch", body(doc(prose), anchor("c1", "age of wisdom", "", ", it was the age of folly", -1)), false},
	{"ambiguous-anchor", body(doc(prose), anchor("c1", "it was the", "", "", -1)), false},
	{"ambiguous-anchor-bananas", body(doc("bananas"), anchor("c1", "ana", "", "", -1)), false},
	{"ambiguous-anchor-no-unique-prefix", body(doc("aaaa"), anchor("c1", "a", "", "", -1)), false},
	{"position-mismatch", body(doc(alphabet), anchor("c1", "xyz", "", "", 22)), false},
	{"position-mismatch-past-end", body(doc(alphabet), anchor("c1", "xyz", "", "", 40)), false},
	{"cjk-quote-mismatch", body(doc(cjk), pos("c1", 13, 24, "人口は約千三百万人です")), false},
	{"cjk-exact-not-found", body(doc(cjk), anchor("c1", "大阪は第三の都市", "", "", -1)), false},
	{"emoji-quote-mismatch", body(doc(emoji), pos("c1", 40, 56, "👨‍👩‍👦 celebrated")), false},
	{"emoji-skin-tone", body(doc(emoji), anchor("c1", "went well 👍🏾", "", "", -1)), false},
	{"emoji-flag-position", body(doc(emoji), anchor("c1", "style ❤️ — then", "", "", 57)), false},
	{"combining-nfc-vs-nfd", body(doc(combining), pos("c1", 0, 5, "Café")), false},
	{"combining-mark-differs", body(doc(combining), anchor("c1", "pin\u0303ata, re\u0300sume", "", "", -1)), false},
	{"controls-and-invisibles", body(doc("zero\u200bwidth and\u00a0nbsp\u0085next\u202eevil\x01end"), pos("c1", 0, 15, "zerowidth and n")), false},
	{"long-lines-cut", body(doc(strings.Repeat("lorem ipsum dolor sit amet ", 20)+"UNIQUE"+strings.Repeat(" consectetur adipiscing elit", 20)),
		pos("c1", 540, 546, "UNIQUX"), anchor("c2", strings.Repeat("lorem ipsum dolor sit amet ", 3), "", "", -1)), true},
	{"all-every-reason", body([][3]string{{"doc", "v1", alphabet}, {"doc", "v2", "bananas"}},
		pos("p-ok", 4, 7, "efg"),
		`{"citation_id":"unknown","source_id":"book","version":"v1","selector":{"type":"TextQuoteSelector","exact":"a"}}`,
		`{"citation_id":"version","source_id":"doc","version":"v9","selector":{"type":"TextQuoteSelector","exact":"a"}}`,
		pos("reversed", 7, 4, "efg"),
		pos("range", 20, 30, "x"),
		pos("mismatch", 4, 7, "efh"),
		anchor("not-found", "xyz!", "", "", -1),
		anchor("prefix", "xyz", "v", "", -1),
		anchor("suffix", "mn", "", "pq", -1),
		anchor("q-ok", "xyz", "w", "", 23),
		`{"citation_id":"ambiguous","source_id":"doc","version":"v2","selector":{"type":"TextQuoteSelector","exact":"ana"},"claimed_start":1}`,
		anchor("position", "xyz", "", "", 22)), true},
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
		return AppendError(nil, e, o)
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
