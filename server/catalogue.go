package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/citecheck/citecheck"
)

// toolInfo is what the catalogue, the page and MCP need from the contract,
// read once from citecheck.ContractJSON. Schemas and examples stay raw, in
// the contract's own member order, so what we show is what it says.
type toolInfo struct {
	ID          string            `json:"id"`
	Version     string            `json:"version"`
	Description string            `json:"description"`
	Supported   []string          `json:"supported_operations"`
	Unsupported []string          `json:"unsupported_operations"`
	Semantics   []string          `json:"semantics"`
	Limits      json.RawMessage   `json:"limits"`
	Pricing     pricing           `json:"pricing"`
	InputSchema json.RawMessage   `json:"input_schema"`
	Output      json.RawMessage   `json:"output_schema"`
	Examples    []contractExample `json:"examples"`
	ExecuteURL  string            `json:"execute_url"`
}

type pricing struct {
	Status    string   `json:"status"`
	ChargeUSD *float64 `json:"charge_usd"`
}

type contractExample struct {
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output"`
}

// embeddedTool is the embedded contract, parsed. It panics only if the
// contract does not parse, which a test rules out.
func embeddedTool() *toolInfo {
	t, err := parseContract(citecheck.ContractJSON())
	if err != nil {
		panic("server: the embedded contract does not parse: " + err.Error())
	}
	return t
}

func parseContract(raw []byte) (*toolInfo, error) {
	var t toolInfo
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, err
	}
	if t.ID != citecheck.ToolID || t.Version != citecheck.ToolVersion {
		return nil, fmt.Errorf("contract is %s@%s, engine is %s@%s", t.ID, t.Version, citecheck.ToolID, citecheck.ToolVersion)
	}
	if len(t.Examples) == 0 || !strings.HasPrefix(t.ExecuteURL, "/") {
		return nil, fmt.Errorf("contract has no example or no relative execute_url")
	}
	return &t, nil
}

// Paths of this tool version on this server.
func (t *toolInfo) contractPath() string { return "/v1/tools/" + t.ID + "/versions/" + t.Version }
func (t *toolInfo) pagePath() string     { return "/tools/" + t.ID }

// baseURL is the address links should use: the configured public URL, or
// the scheme and Host the caller used to reach us, so the page and the
// catalogue work on localhost, on a LAN address and behind a name alike.
func (s *Server) baseURL(r *http.Request) string {
	if s.cfg.PublicURL != "" {
		return s.cfg.PublicURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	host := r.Host
	if host == "" {
		host = s.cfg.Addr
	}
	return scheme + "://" + host
}

// catalogueEntry is one tool version in GET /v1/tools.
type catalogueEntry struct {
	ID          string `json:"id"`
	Version     string `json:"version"`
	Description string `json:"description"`
	ContractURL string `json:"contract_url"`
	ExecuteURL  string `json:"execute_url"`
	// ExplainURL is beyond the contract (spec §5): execute's body, answered
	// with every citation's findings and fix.
	ExplainURL string `json:"explain_url"`
	PageURL    string `json:"page_url"`
}

// catalogue is GET /v1/tools: every tool version this server runs (one
// today), with absolute URLs, and where MCP is.
type catalogue struct {
	Tools  []catalogueEntry `json:"tools"`
	MCPURL string           `json:"mcp_url"`
}

func (s *Server) serveCatalogue(w http.ResponseWriter, r *http.Request) {
	base := s.baseURL(r)
	t := s.tool
	c := catalogue{
		Tools: []catalogueEntry{{
			ID: t.ID, Version: t.Version, Description: t.Description,
			ContractURL: base + t.contractPath(),
			ExecuteURL:  base + t.ExecuteURL,
			ExplainURL:  base + t.explainPath(),
			PageURL:     base + t.pagePath(),
		}},
		MCPURL: base + pathMCP,
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(c) // cannot fail: plain strings
	writeJSON(w, http.StatusOK, bytes.TrimRight(buf.Bytes(), "\n"))
}

// serveContract is GET /v1/tools/{id}/versions/{version}: the contract
// byte for byte as published (spec §4.2).
func (s *Server) serveContract(w http.ResponseWriter, r *http.Request) {
	if e := citecheck.LookupTool(r.PathValue("id"), r.PathValue("version")); e != nil {
		writeError(w, r, citecheck.AsError(e))
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=3600")
	writeJSON(w, http.StatusOK, citecheck.ContractJSON())
}
