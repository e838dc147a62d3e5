package server

import (
	"bytes"
	"unicode/utf16"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/quotes"
	"github.com/go-json-experiment/json/jsontext"
)

// What a request costs, in scan units, for the check slots (slots.go):
// known from its body before it runs, so that a request is admitted by
// its cost, not its arrival alone.
//
//   - execute (HTTP or MCP): the input's bytes. The engine reads each byte
//     a bounded number of times, and its scans are bounded by the body
//     through max_scan_units;
//   - explain (HTTP or MCP): explainCostFactor × the input's bytes: an
//     explanation costs at most that many times the check (docs/explain.md);
//   - check_quotes: the quotes package's own count (quotes.QuotationUnits):
//     Σ over the quotations of (Σ over the sources of (source + quotation)
//     UTF-16 units) plus QuotationUnits each, at most max_scan_units;
//   - any other MCP message: its bytes.
//
// Cost of working it out: linear in the body (one walk of the JSON-RPC
// envelope; for check_quotes, one read of the arguments and of the
// quotations, which the call reads again in its slot).

// explainCostFactor is how many times a check an explanation may cost.
const explainCostFactor = 10

// mcpCost is the cost of an /mcp message (see above).
func mcpCost(msg []byte) int64 {
	method, name, args := mcpCall(msg)
	if method != "tools/call" || args == nil {
		return int64(len(msg))
	}
	switch name {
	case MCPToolName:
		return int64(len(args))
	case MCPExplainToolName:
		return explainCostFactor * int64(len(args))
	case MCPQuotesToolName:
		return quotesCost(args)
	}
	return int64(len(msg))
}

// mcpCall is the method, params.name and params.arguments of a JSON-RPC
// message (the last of each, as the SDK reads them), or what of them it
// has. Linear in msg (members copies each value it keeps once).
func mcpCall(msg []byte) (method, name string, args jsontext.Value) {
	for _, m := range members(msg) {
		switch {
		case m.name == "method" && m.value.Kind() == '"':
			method = unquote(m.value)
		case m.name == "params":
			for _, p := range members(m.value) {
				switch {
				case p.name == "name" && p.value.Kind() == '"':
					name = unquote(p.value)
				case p.name == "arguments":
					args = p.value
				}
			}
		}
	}
	return
}

func unquote(v jsontext.Value) string {
	var s string
	if tok, err := jsontext.NewDecoder(bytes.NewReader(v), jsontext.AllowInvalidUTF8(true)).ReadToken(); err == nil {
		s = tok.String()
	}
	return s
}

// quotesCost is the cost of check_quotes arguments: what quotes.Checker
// counts against max_scan_units for them, at most max_scan_units (the
// call stops there). Arguments it cannot read cost their bytes: the call
// refuses them at once.
func quotesCost(args []byte) int64 {
	text, sources, request, e := readQuotesArguments(args)
	if e != nil {
		return int64(len(args))
	}
	if request != nil {
		docs, err := quotes.ReadRequest(request)
		if err != nil {
			return int64(len(args))
		}
		sources = append(quotes.Sources(docs), sources...)
	}
	shape, err := quotes.Detect([]byte(text))
	if err != nil {
		return int64(len(args))
	}
	qs, err := quotes.Read([]byte(text), shape)
	if err != nil {
		return int64(len(args))
	}
	var units int64
	for _, s := range sources {
		units += utf16Units(s.Text)
	}
	const most = citecheck.MaxScanUnits
	n := int64(len(sources))
	var cost int64 = int64(len(args))
	for _, q := range qs {
		cost += units + n*utf16Units(q.Text) + quotes.QuotationUnits
		if cost >= most {
			return most
		}
	}
	return cost
}

// utf16Units is the UTF-16 length of s.
func utf16Units(s string) int64 {
	var n int64
	for _, r := range s {
		n += int64(utf16.RuneLen(r))
	}
	return n
}
