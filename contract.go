package citecheck

import (
	_ "embed"
	"fmt"
)

// Tool identity, as the contract names it.
const (
	ToolID      = "citation-batch-check"
	ToolVersion = "1.0.0"
	// ReferenceVersion is the contract's constant reference_version, carried
	// by every result.
	ReferenceVersion = "W3C Web Annotation Data Model (Recommendation 2017-02-23) 4.2.4 TextQuoteSelector, 4.2.5 TextPositionSelector; r68 supplied-text profile 1.0.0"
)

//go:embed contracts/citation-batch-check@1.0.0.contract.json
var contractJSON string

// ContractJSON returns the contract citation-batch-check@1.0.0, byte for byte
// as published: the service serves it unchanged and tests validate against
// its schemas. Each call returns a fresh copy (7.9 KB), so no caller can
// change what another sees.
func ContractJSON() []byte { return []byte(contractJSON) }

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

// LookupTool returns nil when id and version name this tool, else a
// not_found error naming what exists. Every interface (CLI, HTTP, MCP)
// answers an unknown tool or version with it, so it reads the same
// everywhere.
func LookupTool(id, version string) error {
	if id == ToolID && version == ToolVersion {
		return nil
	}
	what := fmt.Sprintf("tool %q", Echo(id))
	if id == ToolID {
		what = fmt.Sprintf("version %q of %s", Echo(version), id)
	}
	return &Error{Code: CodeNotFound, Path: "",
		Message: fmt.Sprintf("no %s; available: %s %s", what, ToolID, ToolVersion)}
}
