package server

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strconv"

	"github.com/citecheck/citecheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCPToolName is the one MCP tool: it runs any tool version of this server
// by id and version, as the tool page's MCP section shows.
const MCPToolName = "execute"

// NewMCPServer returns the MCP server that `citecheck mcp` runs over stdio
// and /mcp runs over streamable HTTP: one tool, execute, taking
// {"id", "version", "input"}.
//
// A call that gets an answer returns {"result": …} as text and as
// structured content, the bytes the HTTP execute route answers; a call
// that fails returns a tool error (isError) carrying {"error": …} the same
// two ways, so a model sees why, and can fix its input.
//
// A call runs with its request's context: it stops when the client
// cancels it (notifications/cancelled) or, over HTTP, when the client goes
// away (see callContext), and then answers overloaded, which a client that
// cancelled never reads (the stdio transport drops it, as MCP asks).
//
// A panic in a call's work fails that call alone (an internal error); see
// [NewLoggedMCPServer] for a server that logs it.
func NewMCPServer() *mcp.Server { return NewLoggedMCPServer(nil) }

// NewLoggedMCPServer is [NewMCPServer] logging to log (nil: nowhere) the
// panics it recovers from, with the request's id (over stdio, the
// JSON-RPC id).
func NewLoggedMCPServer(log *slog.Logger) *mcp.Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return newMCPServer(embeddedTool(), log, nil, nil)
}

// newMCPServer is NewMCPServer for the parsed contract t, logging to log,
// with a callback
// told each call's outcome (valid, failed or an error code), for the HTTP
// server's metrics, and hold, when not nil, run with the call's context
// before the engine runs (a test holds a call there until it cancels it).
func newMCPServer(t *toolInfo, log *slog.Logger, onCall func(outcome string), hold func(ctx context.Context)) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{
		Name:    "citecheck",
		Title:   "citecheck: " + t.ID + " " + t.Version,
		Version: t.Version,
	}, &mcp.ServerOptions{
		Instructions: "Call " + MCPToolName + ` with {"id": "` + t.ID + `", "version": "` + t.Version +
			`", "input": {...}} to check citations against the sources you supply. ` + t.Description +
			" When citations fail, call " + MCPExplainToolName + " with the same arguments: it says why each failed and gives the fix." +
			" To check every quotation of a draft (a report with [n] markers, a structured answer, an Anthropic response), call " +
			MCPQuotesToolName + ` with {"text", "sources": [{"id", "text"}]}.`,
		// Tools only, and no listChanged: the tools are fixed, and a
		// stateless server has no session to send a notification on. (The
		// SDK's default adds logging, which it never sends either.)
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	srv.AddReceivingMiddleware(guard(log, onCall))
	srv.AddTool(&mcp.Tool{
		Name:  MCPToolName,
		Title: "Run a citecheck tool",
		Description: "Run a tool of this server by id and version. Available: " + t.ID + " " + t.Version + ": " +
			t.Description + " The input must match the tool's input schema (inputSchema.properties.input). " +
			`Answers {"result": …}; a refused input is a tool error carrying {"error": {"code", "message", "path", …}}.`,
		InputSchema:  json.RawMessage(mcpInputSchema(t)),
		OutputSchema: json.RawMessage(mcpOutputSchema(t)),
		Annotations:  readOnlyTool("Citation batch check"),
	}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx, stop := callContext(ctx)
		defer stop()
		if hold != nil {
			hold(ctx)
		}
		res, e := executeArguments(ctx, req.Params.Arguments)
		if onCall != nil {
			onCall(outcomeOf(res, e))
		}
		env := citecheck.AppendEnvelope(nil, res, e)
		return toolResult(env, e != nil), nil
	})
	addExplainTool(srv, t, onCall, hold)
	addQuotesTool(srv, onCall, hold)
	return srv
}

// toolResult answers a call with env as text and as structured content.
func toolResult(env []byte, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(env)}},
		StructuredContent: json.RawMessage(env),
		IsError:           isError,
	}
}

func outcomeOf(res *citecheck.Result, e *citecheck.Error) string {
	switch {
	case e != nil:
		return e.Code
	case res.Valid:
		return outcomeValid
	}
	return outcomeFailed
}

// executeArguments runs one execute call. The input's bytes are passed to
// the engine as they arrived, not re-encoded, so the engine judges exactly
// what the client sent (duplicate names, number spellings and all), as it
// would an HTTP body.
func executeArguments(ctx context.Context, args json.RawMessage) (*citecheck.Result, *citecheck.Error) {
	body, e := argumentsBody(args)
	if e != nil {
		return nil, e
	}
	res, err := citecheck.RunContext(ctx, body)
	return res, citecheck.AsError(err)
}

// requestContextKey is the context value under which /mcp hands the HTTP
// request's context to the tool calls it carries (mcpHandler).
type requestContextKey struct{}

// callContext is the context a tool call runs with: the SDK's, which ends
// when the client cancels the call (notifications/cancelled) or the
// session ends, and which also ends, over HTTP, when the request's does
// (the client went away). The SDK ties the two together only for the
// newest protocol revision, so /mcp hands the request's context down as a
// value and it is tied here. stop releases what the tie holds; call it
// when the call returns.
func callContext(ctx context.Context) (context.Context, func()) {
	rc, ok := ctx.Value(requestContextKey{}).(context.Context)
	if !ok {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	untie := context.AfterFunc(rc, func() { cancel(rc.Err()) })
	return ctx, func() { untie(); cancel(nil) }
}

// argumentsBody returns the input of {"id", "version", "input"} as a
// request body, for a tool this server runs.
func argumentsBody(args json.RawMessage) ([]byte, *citecheck.Error) {
	id, version, input, e := parseArguments(args)
	if e != nil {
		return nil, e
	}
	if e := citecheck.LookupTool(id, version); e != nil {
		return nil, citecheck.AsError(e)
	}
	body, err := citecheck.ReadBody(bytes.NewReader(input))
	return body, citecheck.AsError(err)
}

// mcpInputSchema is the execute tool's input schema: id and version of a
// tool this server runs, and input as the contract's own input_schema, so
// a client validating arguments validates the tool's input too.
func mcpInputSchema(t *toolInfo) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","additionalProperties":false,"required":["id","version","input"],"properties":{`)
	b.WriteString(`"id":{"type":"string","description":"The tool's id.","enum":[` + strconv.Quote(t.ID) + `]},`)
	b.WriteString(`"version":{"type":"string","description":"The tool's version.","enum":[` + strconv.Quote(t.Version) + `]},`)
	b.WriteString(`"input":`)
	b.Write(t.InputSchema)
	b.WriteString(`}}`)
	return b.Bytes()
}

// mcpOutputSchema describes the structured content: exactly one of result
// (the contract's output_schema) and error (the error object).
func mcpOutputSchema(t *toolInfo) []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","additionalProperties":false,"minProperties":1,"maxProperties":1,"properties":{"result":`)
	b.Write(t.Output)
	b.WriteString(`,"error":`)
	b.Write(errorObjectSchema())
	b.WriteString(`}}`)
	return b.Bytes()
}

// readOnlyTool is the annotations of every tool citecheck serves: each
// reads only the text it is given, changes nothing, and answers the same
// arguments the same way.
func readOnlyTool(title string) *mcp.ToolAnnotations {
	no := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no}
}
