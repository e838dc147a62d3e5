package quotes

import (
	"bytes"
	"os"
	"testing"
	"unicode/utf8"
)

// benchReport is the worked example's report repeated to about 1 MiB.
func benchReport(b *testing.B) []byte {
	one, err := os.ReadFile("../examples/quotes/report.md")
	if err != nil {
		b.Fatal(err)
	}
	return bytes.Repeat(append(one, '\n'), (1<<20)/len(one)+1)
}

// BenchmarkExtract reads the quotations of a 1 MiB report; the baseline,
// BenchmarkExtractBaselineUTF8, validates the same bytes as UTF-8 (one
// pass that any reader of the text pays), so their ratio is extraction's
// cost in passes over the input.
func BenchmarkExtract(b *testing.B) {
	r := benchReport(b)
	b.SetBytes(int64(len(r)))
	for b.Loop() {
		Extract(r)
	}
}

func BenchmarkExtractBaselineUTF8(b *testing.B) {
	r := benchReport(b)
	b.SetBytes(int64(len(r)))
	for b.Loop() {
		utf8.Valid(r)
	}
}
