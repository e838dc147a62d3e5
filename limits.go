package citecheck

import "math"

// Limits are the bounds [DecodeWith] enforces, one per limit of the
// contract. Byte sizes are UTF-8 bytes of the decoded string; ScanUnits
// counts UTF-16 code units. The contract's interfaces (CLI run, HTTP, MCP)
// always use [DefaultLimits]; a local tool that reads the user's own files
// may lift the sizes (see [NoLimit]), since nothing it is sent can exhaust
// a shared service.
type Limits struct {
	InputBytes   int // max_input_bytes: the whole request body
	Sources      int // max_sources: items in sources
	Citations    int // max_citations: items in citations
	TextBytes    int // max_text_bytes: each source text
	QuoteBytes   int // max_quote_bytes: each quote and exact
	ContextBytes int // max_context_bytes: each prefix and suffix
	LabelBytes   int // max_label_bytes: each source_id, version, citation_id
	ScanUnits    int // max_scan_units: text scanned by quote selectors, summed
}

// NoLimit is a bound no input reaches.
const NoLimit = math.MaxInt

// DefaultLimits returns the contract's limits, the Max… constants.
func DefaultLimits() Limits {
	return Limits{
		InputBytes: MaxInputBytes, Sources: MaxSources, Citations: MaxCitations,
		TextBytes: MaxTextBytes, QuoteBytes: MaxQuoteBytes, ContextBytes: MaxContextBytes,
		LabelBytes: MaxLabelBytes, ScanUnits: MaxScanUnits,
	}
}
