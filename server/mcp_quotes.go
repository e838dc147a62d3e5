package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/quotes"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCPQuotesToolName is the third MCP tool, beyond the contract (spec
// §5.13): every quotation of a draft checked against the sources.
const MCPQuotesToolName = "check_quotes"

const quotesInputSchema = `{"type":"object","additionalProperties":false,"required":["text"],"properties":{` +
	`"text":{"type":"string","description":"The draft to check: a Markdown or plain-text report whose quotations are in quotation marks (with an optional [id] marker after each) or blockquotes; a structured answer {\"citations\":[{\"source_id\",\"quote\"}]} as JSON text; or an Anthropic Messages response as JSON text."},` +
	`"sources":{"type":"array","description":"The sources, each with the id its markers name.","items":{"type":"object","additionalProperties":false,"required":["id","text"],"properties":{"id":{"type":"string"},"text":{"type":"string"}}}},` +
	`"request":{"type":"object","description":"For an Anthropic response: the Messages request it answered; its document blocks are sources \"0\", \"1\", … in order."}}}`

const quotesOutputSchema = `{"type":"object","additionalProperties":false,"minProperties":1,"maxProperties":1,"properties":{` +
	`"quotes":{"type":"object","required":["shape","verbatim","counts","results"],"properties":{` +
	`"shape":{"enum":["report","structured","anthropic"]},"verbatim":{"type":"boolean"},"counts":{"type":"object"},` +
	`"results":{"type":"array","items":{"type":"object","required":["index","quote","marker","source","outcome"],"properties":{` +
	`"outcome":{"enum":["no_source","verbatim","moved","elsewhere","near","not_found","not_checked"]}}}}}},` +
	`"error":{"type":"object"}}}`

// addQuotesTool adds check_quotes: {"text", "sources", "request"} in, the
// answer {"quotes": …} out (as text and structured content), a refused
// input a tool error carrying {"error": …}. The contract's limits hold:
// the text and the sources within max_input_bytes, each source within
// max_text_bytes, at most max_sources of them, at most max_citations
// (256) quotations (more is refused, limit_exceeded at /text, a report's
// as soon as its 257th quotation is read), and the
// check within max_scan_units by its real cost: a quotation counts
// Σ over the sources of (source + quotation) UTF-16 units, plus
// quotes.QuotationUnits (4096); past the bound it is not_checked. So a
// call's CPU is that of an execute call scanning max_scan_units, about
// 10× for the diagnoses (spec §5.8), and it holds one check slot while
// it runs, as execute does. The dearest calls fill max_scan_units with
// diagnoses: 256 unmarked quotations of 40 units, in no source, against
// 16 sources of 3,800 units (each costs 60,800 + 16·40 + 4,096 ≤ 2^16:
// all admitted, each scanned and diagnosed in every source), or 16 such
// quotations against 16 sources of 64 Ki units. Its answer holds at most 256 results:
// under 1 KiB each beyond its quotation (up to 6 bytes a byte escaped)
// and its findings, whose source_text is at most the source it was
// charged for.
func addQuotesTool(srv *mcp.Server, onCall func(outcome string), hold func(ctx context.Context)) {
	srv.AddTool(&mcp.Tool{
		Name:  MCPQuotesToolName,
		Title: "Check every quotation of a draft against the sources",
		Description: "Checks every quotation of your draft against the sources you supply, before you answer. " +
			"In a report, a quotation is text in quotation marks (“…”, \"…\", «…», „…“, 「…」, 『…』) or a Markdown blockquote; " +
			"a marker [id] or [^id] right after it names its source (unmarked ones are checked when they have 20 or more characters, against every source). " +
			"Each result's outcome: verbatim (exact), elsewhere (exact, but in another source than the marker says: fix the marker), " +
			"near (only under case, white space, typography or Unicode folds, or as an elision: quote the findings' source_text exactly), " +
			"moved (an Anthropic citation's span is wrong, its text is elsewhere in the document), not_found (drop or find the passage again), " +
			"no_source (the marker names no source), not_checked (over a limit, or a document without text such as a PDF: supply its text as a source whose id is the document's index). Positions count Unicode code points.",
		InputSchema:  json.RawMessage(quotesInputSchema),
		OutputSchema: json.RawMessage(quotesOutputSchema),
		Annotations:  readOnlyTool("Check quotations"),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, stop := callContext(ctx)
		defer stop()
		if hold != nil {
			hold(ctx)
		}
		var a *quotes.Answer
		e := stopped(ctx)
		if e == nil {
			a, _, e = checkQuotesArguments(ctx, req.Params.Arguments, false)
		}
		if e != nil {
			if onCall != nil {
				onCall(e.Code)
			}
			env := append(append([]byte(`{"error":`), e.AppendJSON(nil)...), '}')
			return toolResult(env, true), nil
		}
		if onCall != nil {
			outcome := outcomeFailed
			if a.Verbatim() {
				outcome = outcomeValid
			}
			onCall(outcome)
		}
		env := append(a.AppendAnswerJSON([]byte(`{"quotes":`)), '}')
		return toolResult(env, false), nil
	})
}

// checkQuotesArguments reads the arguments strictly (no member twice, none
// unknown) and runs the check under the contract's limits. It returns the
// answer and the text it checked. explain adds each failing result's fix
// (quotes.Options.Explain: the outcomes, and what the call costs, are
// the same either way): the tool page's report (quotes_report.go) shows
// it, the MCP tool's answer leaves it out.
func checkQuotesArguments(ctx context.Context, args json.RawMessage, explain bool) (*quotes.Answer, string, *citecheck.Error) {
	if len(args) > citecheck.MaxInputBytes {
		// The arguments hold the text and the sources: they are what
		// max_input_bytes bounds here (path "", the arguments object).
		return nil, "", &citecheck.Error{Code: citecheck.CodeLimitExceeded, Limit: citecheck.LimitInputBytes,
			Max: citecheck.MaxInputBytes, Actual: int64(len(args)), Message: fmt.Sprintf(
				"arguments: the arguments are %d bytes, over %s %d (they hold the text and the sources)", len(args), citecheck.LimitInputBytes, citecheck.MaxInputBytes)}
	}
	text, given, request, e := readQuotesArguments(args)
	if e != nil {
		return nil, "", e
	}
	sources := given
	var docs []quotes.Document
	if request != nil {
		var err error
		docs, err = quotes.ReadRequest(request)
		if err != nil {
			return nil, "", at(asError(err), "/request") // the message points within it
		}
		sources = append(quotes.Sources(docs), sources...)
	}
	if len(sources) > citecheck.MaxSources {
		path := "/sources"
		if len(given) == 0 {
			path = "/request" // its documents alone are too many
		}
		return nil, "", &citecheck.Error{Code: citecheck.CodeLimitExceeded, Path: path, Limit: citecheck.LimitSources,
			Max: citecheck.MaxSources, Actual: int64(len(sources)), Message: fmt.Sprintf("%d sources, over %d", len(sources), citecheck.MaxSources)}
	}
	fromRequest := len(sources) - len(given)
	seen := make(map[string]bool, len(sources))
	for i, s := range sources {
		// Where the caller gave it: a document of the request, or an item
		// of the arguments' sources.
		path := fmt.Sprintf("/sources/%d", i-fromRequest)
		if i < fromRequest {
			path = "/request" + s.Path
		}
		if seen[s.ID] {
			return nil, "", &citecheck.Error{Code: citecheck.CodeInvalidInput, Path: path,
				Message: fmt.Sprintf("source %q is supplied twice (a source of the arguments and a document of the request share a number, or two sources an id)", citecheck.Echo(s.ID))}
		}
		seen[s.ID] = true
		if len(s.Text) > citecheck.MaxTextBytes {
			if i >= fromRequest {
				path += "/text"
			}
			return nil, "", &citecheck.Error{Code: citecheck.CodeLimitExceeded, Path: path, Limit: citecheck.LimitTextBytes,
				Max: citecheck.MaxTextBytes, Actual: int64(len(s.Text)), Message: fmt.Sprintf("source %q has %d bytes, over %d", s.ID, len(s.Text), citecheck.MaxTextBytes)}
		}
	}
	a, err := quotes.Check(ctx, []byte(text), sources, quotes.Options{Limits: citecheck.DefaultLimits(), Explain: explain, Documents: docs})
	if err != nil {
		// The sources are judged above: what is left is the text's (its
		// quotations, or the JSON it holds, the message pointing within).
		return nil, "", at(asError(err), "/text")
	}
	return a, text, nil
}

// at gives e the path p when it has none, and returns it.
func at(e *citecheck.Error, p string) *citecheck.Error {
	if e.Path == "" && e.Code != citecheck.CodeOverloaded && e.Code != citecheck.CodeInternal {
		e.Path = p
	}
	return e
}

// asError is err's *citecheck.Error (every error the quotes package
// returns is one); anything else would be a bug of ours.
func asError(err error) *citecheck.Error {
	var ce *citecheck.Error
	if errors.As(err, &ce) {
		return ce
	}
	return &citecheck.Error{Code: citecheck.CodeInternal, Message: err.Error()}
}

// stopped is the overloaded error of a call whose context is already
// done (a held call the client went away from), nil otherwise.
func stopped(ctx context.Context) *citecheck.Error {
	if err := ctx.Err(); err != nil {
		return citecheck.StoppedError("check", context.Cause(ctx))
	}
	return nil
}
