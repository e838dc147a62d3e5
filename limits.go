package citecheck

import "math"

// The contract's limits. Byte sizes are UTF-8 bytes of the decoded string,
// not of its escaped JSON form; scan units are UTF-16 code units.
const (
	MaxInputBytes   = 1048576  // max_input_bytes: the whole request body
	MaxSources      = 16       // max_sources: items in sources
	MaxCitations    = 256      // max_citations: items in citations
	MaxTextBytes    = 524288   // max_text_bytes: each source text
	MaxQuoteBytes   = 16384    // max_quote_bytes: each quote and exact
	MaxContextBytes = 1024     // max_context_bytes: each prefix and suffix
	MaxLabelBytes   = 256      // max_label_bytes: each source_id, version, citation_id
	MaxScanUnits    = 16777216 // max_scan_units: text scanned by quote selectors, summed
)

// Limit names, as the contract's "limits" object and error objects spell them.
const (
	LimitInputBytes   = "max_input_bytes"
	LimitSources      = "max_sources"
	LimitCitations    = "max_citations"
	LimitTextBytes    = "max_text_bytes"
	LimitQuoteBytes   = "max_quote_bytes"
	LimitContextBytes = "max_context_bytes"
	LimitLabelBytes   = "max_label_bytes"
	LimitScanUnits    = "max_scan_units"
)

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
