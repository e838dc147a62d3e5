package citecheck

import _ "embed"

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

// LookupTool returns nil when id and version name this tool, else a
// not_found error naming what exists. Every interface (CLI, HTTP, MCP)
// answers an unknown tool or version with it, so it reads the same
// everywhere.
func LookupTool(id, version string) error {
	if id == ToolID && version == ToolVersion {
		return nil
	}
	what := "tool " + Echo(id).Quoted()
	if id == ToolID {
		what = "version " + Echo(version).Quoted() + " of " + id
	}
	return &Error{Code: CodeNotFound, Path: "",
		Message: "no " + what + "; available: " + ToolID + " " + ToolVersion}
}
