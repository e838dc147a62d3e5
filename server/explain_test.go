package server

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/citecheck/citecheck/internal/testkit"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/citecheck/citecheck"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const explainPath = "/v1/tools/citation-batch-check/versions/1.0.0/explain"

// explainBody fails in ways explain explains: curly quotes typed straight,
// and UTF-16 offsets over an emoji.
const explainBody = `{"sources":[{"source_id":"memo","version":"v1","text":"Launch 🚀 went well. She said “we reached orbit” at 10:42."}],
"citations":[{"citation_id":"c1","source_id":"memo","version":"v1","selector":{"type":"TextQuoteSelector","exact":"\"we reached orbit\""}},
{"citation_id":"c2","source_id":"memo","version":"v1","selector":{"type":"TextPositionSelector","start":34,"end":41},"quote":"reached"}]}`

// explainInProcess is what `citecheck run --explain` prints for body,
// without its newline: ReadBody, then RunExplain.
func explainInProcess(body []byte) ([]byte, *citecheck.Error) {
	b, e := citecheck.ReadBody(bytes.NewReader(body))
	var ex *citecheck.Explanation
	if e == nil {
		ex, e = citecheck.RunExplain(b)
	}
	return citecheck.AppendExplainEnvelope(nil, ex, e), citecheck.AsError(e)
}

// TestExplainRouteAnswersAsInProcess: POST …/explain answers every
// conformance body, and a body with findings, with the bytes of the
// in-process explain, and with the status execute gives the same body.
func TestExplainRouteAnswersAsInProcess(t *testing.T) {
	ts := start(t, Config{})
	bodies := [][]byte{[]byte(explainBody)}
	for _, c := range testkit.Conformance(t) {
		bodies = append(bodies, c.Body)
	}
	for i, body := range bodies {
		want, _ := explainInProcess(body)
		resp, got := post(t, ts.URL+explainPath, body)
		if !bytes.Equal(got, want) {
			t.Fatalf("body %d: explain answers\n%.300s\nin-process\n%.300s", i, got, want)
		}
		exec, _ := post(t, ts.URL+executePath, body)
		if resp.StatusCode != exec.StatusCode || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("body %d: status %d, execute's %d", i, resp.StatusCode, exec.StatusCode)
		}
	}
	_, got := post(t, ts.URL+explainPath, []byte(explainBody))
	if !bytes.Contains(got, []byte(`"kind":"normalized"`)) || !bytes.Contains(got, []byte(`"units":"utf16"`)) {
		t.Errorf("no findings: %s", got)
	}
}

// TestExplainRouteRefusesAsExecute: wrong method, media type and tool are
// answered as on execute.
func TestExplainRouteRefusesAsExecute(t *testing.T) {
	ts := start(t, Config{})
	for _, c := range []struct {
		method, path, ct string
		status           int
	}{
		{http.MethodGet, explainPath, "", 405},
		{http.MethodPost, explainPath, "text/plain", 415},
		{http.MethodPost, "/v1/tools/citation-batch-check/versions/9.9.9/explain", "application/json", 404},
	} {
		resp, body := do(t, c.method, ts.URL+c.path, c.ct, []byte(explainBody))
		if resp.StatusCode != c.status {
			t.Errorf("%s %s: %d, want %d: %s", c.method, c.path, resp.StatusCode, c.status, body)
		}
		errorOf(t, body)
	}
}

func TestCatalogueListsExplain(t *testing.T) {
	ts := start(t, Config{})
	_, body := do(t, http.MethodGet, ts.URL+"/v1/tools", "", nil)
	var c catalogue
	if err := json.Unmarshal(body, &c); err != nil || len(c.Tools) != 1 || c.Tools[0].ExplainURL != ts.URL+explainPath {
		t.Fatalf("catalogue %s", body)
	}
}

// callTool calls an MCP tool and returns its text content, its structured
// content re-encoded (the client decodes it into a map, so only its value,
// not its member order, survives: the text is the byte-exact channel), and
// isError.
func callTool(t testing.TB, cs *mcp.ClientSession, name string, args any) (string, []byte, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool: %v", err)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if len(res.Content) != 1 || !ok {
		t.Fatalf("content %+v", res.Content)
	}
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	return tc.Text, structured, res.IsError
}

// mcpExplainScenarios: the explain tool is listed with execute's input
// schema, an output schema and a description that tells a model to correct
// its citations with it, and answers as the HTTP route does.
func mcpExplainScenarios(t *testing.T, cs *mcp.ClientSession) {
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var exec, explain *mcp.Tool
	for _, tool := range res.Tools {
		switch tool.Name {
		case MCPToolName:
			exec = tool
		case MCPExplainToolName:
			explain = tool
		}
	}
	if exec == nil || explain == nil {
		t.Fatalf("tools %+v", res.Tools)
	}
	in1, _ := json.Marshal(exec.InputSchema)
	in2, _ := json.Marshal(explain.InputSchema)
	out, _ := json.Marshal(explain.OutputSchema)
	if !sameJSON(in1, in2) || !sameJSON(out, mcpExplainOutputSchema()) || !strings.Contains(explain.Description, "correct your own citations") {
		t.Fatalf("explain tool %+v", explain)
	}
	for _, body := range []string{explainBody, `{"sources":[],"citations":[]}`} {
		text, structured, isErr := callTool(t, cs, MCPExplainToolName, executeArgs{citecheck.ToolID, citecheck.ToolVersion, json.RawMessage(body)})
		want, e := explainInProcess(compactBytes([]byte(body)))
		if text != string(want) || !sameJSON(structured, want) || isErr != (e != nil) {
			t.Fatalf("isError %v\n text %s\n structured %s\nwant %s", isErr, text, structured, want)
		}
	}
	text, _, isErr := callTool(t, cs, MCPExplainToolName, executeArgs{citecheck.ToolID, "2.0.0", json.RawMessage(explainBody)})
	if !isErr || errorOf(t, []byte(text)).Code != citecheck.CodeNotFound {
		t.Fatalf("unknown version: %v %s", isErr, text)
	}
}

func TestMCPExplainStreamableHTTP(t *testing.T) {
	ts := start(t, Config{})
	mcpExplainScenarios(t, connectHTTP(t, ts.URL+"/mcp"))
}

func TestMCPExplainInMemory(t *testing.T) {
	mcpExplainScenarios(t, connectInMemory(t, NewMCPServer()))
}
