package server

import (
	"context"
	"encoding/json"

	"github.com/citecheck/citecheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCPExplainToolName is the second MCP tool, beyond the contract (spec §5):
// execute's arguments, answered with every citation's findings and fix.
const MCPExplainToolName = "explain"

// addExplainTool adds the explain tool: the arguments of execute, the
// answer of POST …/explain ({"all": …} as text and structured content), a
// refused input a tool error carrying {"error": …}. It runs with the
// call's context, as execute does (callContext).
func addExplainTool(srv *mcp.Server, t *toolInfo, onCall func(outcome string), hold func(ctx context.Context)) {
	srv.AddTool(&mcp.Tool{
		Name:  MCPExplainToolName,
		Title: "Explain failing citations and how to fix them",
		Description: "Same arguments as " + MCPToolName + ". Checks every citation exactly, as " + MCPToolName +
			" does, and answers {\"all\": …} with each citation's outcome plus \"findings\" (why a failing citation " +
			"failed) and \"fix\" (a corrected citation, or null). Use it to correct your own citations before you " +
			"answer: replace a citation that has a fix by the fix as given (it changes only start/end, claimed_start " +
			"or adds a prefix/suffix, and it re-checks valid); where a finding is \"normalized\" or \"elided\", the " +
			"source's words differ from yours: quote its \"source_text\" exactly, or do not quote; \"disambiguate\" " +
			"gives a prefix or suffix that picks one match; a citation with only a \"partial\" finding, or none, is " +
			"not in the source: drop it or find the passage again. Findings never turn a failure into a pass. " +
			"Positions count Unicode code points, not UTF-16 units or bytes.",
		InputSchema:  json.RawMessage(mcpInputSchema(t)),
		OutputSchema: json.RawMessage(mcpExplainOutputSchema()),
		Annotations:  readOnlyTool("Explain citation failures"),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, stop := callContext(ctx)
		defer stop()
		if hold != nil {
			hold(ctx)
		}
		var ex *citecheck.Explanation
		body, e := argumentsBody(req.Params.Arguments)
		if e == nil {
			var err error
			ex, err = citecheck.RunExplainContext(ctx, body)
			e = citecheck.AsError(err)
		}
		if onCall != nil {
			onCall(explainOutcome(ex, e))
		}
		return toolResult(citecheck.AppendExplainEnvelope(nil, ex, e), e != nil), nil
	})
}

// mcpExplainOutputSchema is citecheck.ExplainSchemaJSON without its
// "$schema", which clients that validate with a draft-07 validator refuse;
// nothing in it needs more than draft-07 reads.
func mcpExplainOutputSchema() []byte {
	var m map[string]json.RawMessage
	must(json.Unmarshal(citecheck.ExplainSchemaJSON(), &m))
	delete(m, "$schema")
	out, err := json.Marshal(m)
	must(err)
	return out
}
