package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/annotation"
)

// hypothesisExport generates a Hypothesis search response of n annotations
// on one document of about size bytes of prose with emoji, as the API
// returns them (all the members of a row), the same on every run: most
// anchored at code point positions, one in four counted in UTF-16 (moved),
// one in ten on a passage that is no longer there (orphaned). It returns
// the export, the document, and the export's citations as the engine takes
// them, for a baseline.
func hypothesisExport(n, size int) ([]byte, string, []citecheck.Citation) {
	rng := rand.New(rand.NewPCG(10, uint64(n*size)))
	words := strings.Fields("the tide turns and herons return to the mudflats while the channel fills with silt near the old pier where fishermen mend their nets 🌊 🐟 🌿 every evening")
	var b strings.Builder
	for b.Len() < size {
		b.WriteString(words[rng.IntN(len(words))])
		b.WriteByte(' ')
	}
	text := []rune(b.String())
	units := make([]int, len(text)+1) // units[i]: UTF-16 code units before rune i
	for i, r := range text {
		units[i+1] = units[i] + utf16.RuneLen(r)
	}
	type sel map[string]any
	var rows []map[string]any
	var cits []citecheck.Citation
	for i := range n {
		start := rng.IntN(len(text) - 200)
		end := start + 20 + rng.IntN(60)
		exact := string(text[start:end])
		prefix := string(text[max(0, start-32):start])
		suffix := string(text[end:min(len(text), end+32)])
		s, e := start, end
		if i%4 == 1 {
			s, e = units[start], units[end]
		}
		if i%10 == 3 {
			exact = "a passage edited away " + fmt.Sprint(i)
		}
		rows = append(rows, map[string]any{
			"id": fmt.Sprintf("a%06d", i), "created": "2026-03-02T09:14:07.512345+00:00", "updated": "2026-03-02T09:14:07.512345+00:00",
			"user": "acct:reader@hypothes.is", "uri": "https://example.org/doc", "text": "a note", "tags": []string{"t"}, "group": "__world__",
			"permissions": map[string]any{"read": []string{"group:__world__"}},
			"target": []any{map[string]any{"source": "https://example.org/doc", "selector": []any{
				sel{"type": "RangeSelector", "startContainer": "/div[1]/p[3]", "startOffset": 0, "endContainer": "/div[1]/p[3]", "endOffset": 9},
				sel{"type": "TextPositionSelector", "start": s, "end": e},
				sel{"type": "TextQuoteSelector", "exact": exact, "prefix": prefix, "suffix": suffix},
			}}},
			"document": map[string]any{"title": []string{"Doc"}}, "links": map[string]any{"html": "https://hypothes.is/a/x"},
		})
		cits = append(cits,
			citecheck.Citation{SourceID: "https://example.org/doc", Selector: citecheck.Selector{Type: citecheck.QuoteSelector, Exact: exact, Prefix: prefix, Suffix: suffix}, ClaimedStart: s, HasClaimedStart: true},
			citecheck.Citation{SourceID: "https://example.org/doc", Selector: citecheck.Selector{Type: citecheck.PositionSelector, Start: s, End: e}, Quote: exact})
	}
	export, _ := json.Marshal(map[string]any{"total": n, "rows": rows})
	return export, string(text), cits
}

// BenchmarkAnnotations measures the annotations command's throughput on a
// large generated export: parse, check, explain what fails, write the JSON
// Lines. Two baselines run the same citations through the engine alone, in
// the same batches: BenchmarkAnnotationsEngineExplain does the engine's
// share of the work (its ratio to BenchmarkAnnotations is the command's own
// cost), BenchmarkAnnotationsEngineCheck only checks (its ratio is the cost
// of the diagnosis).
func BenchmarkAnnotations(b *testing.B) {
	export, text, _ := hypothesisExport(5000, 200_000)
	c, _ := annotation.NewChecker([]annotation.Source{{IRI: "https://example.org/doc", Text: text}}, citecheck.DefaultLimits())
	b.SetBytes(int64(len(export)))
	b.ReportAllocs()
	for b.Loop() {
		st, err := checkAnnotations(context.Background(), bytes.NewReader(export), io.Discard, c, false, "json")
		if err != nil || st.total() != 5000 {
			b.Fatal(err, st.total())
		}
	}
	b.ReportMetric(float64(5000*b.N)/b.Elapsed().Seconds(), "annotations/s")
}

func BenchmarkAnnotationsEngineExplain(b *testing.B) { benchmarkEngine(b, true) }

func BenchmarkAnnotationsEngineCheck(b *testing.B) { benchmarkEngine(b, false) }

func benchmarkEngine(b *testing.B, explain bool) {
	_, text, cits := hypothesisExport(5000, 200_000)
	src := []citecheck.Source{{SourceID: "https://example.org/doc", Text: text}}
	b.ReportAllocs()
	for b.Loop() {
		for i := 0; i < len(cits); i += citecheck.MaxCitations {
			req := &citecheck.Request{Sources: src, Citations: cits[i:min(len(cits), i+citecheck.MaxCitations)]}
			if explain {
				citecheck.Explain(req)
			} else {
				citecheck.CheckAll(req)
			}
		}
	}
	b.ReportMetric(float64(5000*b.N)/b.Elapsed().Seconds(), "annotations/s")
}
