package citecheck

import (
	"bytes"
	"math"

	"github.com/go-json-experiment/json/jsontext"
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

// DecodeWith is [Decode] under lim instead of the contract's limits: the
// same rules in the same order, each limit failure naming lim's bound.
// Cost: linear in the body, as Decode.
func DecodeWith(body []byte, lim Limits) (*Request, *Error) {
	if len(body) > lim.InputBytes {
		return nil, limitError("", LimitInputBytes, int64(lim.InputBytes), int64(len(body)), "bytes")
	}
	// A bytes.Buffer lets jsontext parse body in place, without a copy.
	d := decoder{dec: jsontext.NewDecoder(bytes.NewBuffer(body)), lim: lim}
	return d.request()
}
