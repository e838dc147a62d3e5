package server

import "testing"

// BenchmarkNew is what `citecheck serve` spends making its server before
// it listens: the tool page, the OpenAPI document and the MCP server are
// made on their first request instead (docs/performance.md, "Start-up").
func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		New(Config{})
	}
}
