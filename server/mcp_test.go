package server

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// executeArgs are the execute tool's arguments; Input goes on the wire as
// its bytes (compacted by the client's encoder, nothing else).
type executeArgs struct {
	ID      string          `json:"id"`
	Version string          `json:"version"`
	Input   json.RawMessage `json:"input"`
}

func connectHTTP(t testing.TB, url string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "citecheck-test", Version: "0"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func connectInMemory(t testing.TB, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "citecheck-test", Version: "0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// callExecute calls execute and returns the text content, the structured
// content re-encoded (the client decodes it into a map, so only its value,
// not its member order, survives: the text is the byte-exact channel), and
// isError.
func callExecute(t testing.TB, cs *mcp.ClientSession, args any) (text string, structured []byte, isError bool) {
	t.Helper()
	return callTool(t, cs, MCPToolName, args)
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// mcpScenarios is what both transports must do: list the tool, run the
// example, and refuse bad input, an unknown id and an unknown version with
// tool errors carrying the error object.
func mcpScenarios(t *testing.T, cs *mcp.ClientSession) {
	tool, _ := parseContract(citecheck.ContractJSON())
	example := tool.Examples[0].Input

	t.Run("list", func(t *testing.T) {
		res, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		// execute, and explain and check_quotes beyond the contract
		// (mcp_explain_test.go, mcp_quotes_test.go), listed by name.
		if len(res.Tools) != 3 || res.Tools[0].Name != MCPQuotesToolName || res.Tools[1].Name != "execute" || res.Tools[2].Name != MCPExplainToolName {
			t.Fatalf("tools %+v", res.Tools)
		}
		schema, _ := json.Marshal(res.Tools[1].InputSchema)
		var s struct {
			Type       string                     `json:"type"`
			Required   []string                   `json:"required"`
			Properties map[string]json.RawMessage `json:"properties"`
		}
		if err := json.Unmarshal(schema, &s); err != nil {
			t.Fatal(err)
		}
		if s.Type != "object" || !reflect.DeepEqual(s.Required, []string{"id", "version", "input"}) {
			t.Fatalf("input schema %s", schema)
		}
		if !sameJSON(s.Properties["input"], tool.InputSchema) {
			t.Fatalf("input's schema is not the contract's input_schema: %s", s.Properties["input"])
		}
		if res.Tools[1].OutputSchema == nil || res.Tools[1].Annotations == nil || !res.Tools[1].Annotations.ReadOnlyHint {
			t.Error("no output schema or read-only annotation")
		}
	})

	t.Run("example", func(t *testing.T) {
		text, structured, isErr := callExecute(t, cs, executeArgs{citecheck.ToolID, citecheck.ToolVersion, example})
		want, _, _ := inProcess(compactBytes(example))
		if isErr || text != string(want) || !sameJSON(structured, want) {
			t.Fatalf("isError %v\n text %s\n structured %s\nwant %s", isErr, text, structured, want)
		}
		if !sameJSON([]byte(text), []byte(`{"result":`+string(tool.Examples[0].Output)+`}`)) {
			t.Fatalf("not the contract's example output: %s", text)
		}
	})

	t.Run("as a map", func(t *testing.T) {
		var input map[string]any
		json.Unmarshal(example, &input)
		text, _, isErr := callExecute(t, cs, map[string]any{"id": citecheck.ToolID, "version": citecheck.ToolVersion, "input": input})
		if isErr || !bytes.Contains([]byte(text), []byte(`"valid":true`)) {
			t.Fatalf("%v %s", isErr, text)
		}
	})

	refusals := []struct {
		name string
		args any
		code string
	}{
		{"bad input", executeArgs{citecheck.ToolID, citecheck.ToolVersion, json.RawMessage(`{"sources":[],"citations":[]}`)}, "invalid_input"},
		{"input not an object", executeArgs{citecheck.ToolID, citecheck.ToolVersion, json.RawMessage(`"hello"`)}, "invalid_input"},
		{"unknown id", executeArgs{"citation-nope", citecheck.ToolVersion, example}, "not_found"},
		{"unknown version", executeArgs{citecheck.ToolID, "2.0.0", example}, "not_found"},
		{"missing input", map[string]any{"id": citecheck.ToolID, "version": citecheck.ToolVersion}, "invalid_input"},
		{"extra argument", map[string]any{"id": citecheck.ToolID, "version": citecheck.ToolVersion, "input": json.RawMessage(example), "x": 1}, "invalid_input"},
		{"id not a string", map[string]any{"id": 1, "version": citecheck.ToolVersion, "input": json.RawMessage(example)}, "invalid_input"},
	}
	for _, r := range refusals {
		t.Run(r.name, func(t *testing.T) {
			text, structured, isErr := callExecute(t, cs, r.args)
			if !isErr {
				t.Fatalf("not a tool error: %s", text)
			}
			if e := errorOf(t, []byte(text)); e.Code != r.code {
				t.Fatalf("code %s, want %s: %s", e.Code, r.code, text)
			}
			if !sameJSON(structured, []byte(text)) {
				t.Fatalf("structured %s differs from text %s", structured, text)
			}
		})
	}
}

func compactBytes(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return nil
	}
	return buf.Bytes()
}

func TestMCPStreamableHTTP(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	mcpScenarios(t, connectHTTP(t, ts.URL+"/mcp"))
	_, body := do(t, "GET", ts.URL+"/metrics", "", nil)
	if !bytes.Contains(body, []byte(`citecheck_mcp_tool_calls_total{outcome="valid"}`)) ||
		!bytes.Contains(body, []byte(`citecheck_mcp_tool_calls_total{outcome="not_found"} 2`)) {
		t.Error("MCP calls are not counted")
	}
}

func TestMCPInMemory(t *testing.T) {
	t.Parallel()
	mcpScenarios(t, connectInMemory(t, NewMCPServer()))
}

// TestConformanceMCP runs every conformance case that a JSON-RPC message
// can carry through /mcp. The client's encoder compacts the input (it drops
// white space between tokens, nothing else), so the answer is held to the
// in-process answer for the compacted bytes, and, where compacting changed
// nothing, to the case's own answer.
func TestConformanceMCP(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	cs := connectHTTP(t, ts.URL+"/mcp")
	carried, same := 0, 0
	for _, c := range testkit.Conformance(t) {
		body := c.Body
		sent := compactBytes(body)
		if sent == nil {
			continue // not one JSON value: no MCP message can carry it
		}
		carried++
		t.Run(c.Name, func(t *testing.T) {
			want, _, e := inProcess(sent)
			text, structured, isErr := callExecute(t, cs, executeArgs{citecheck.ToolID, citecheck.ToolVersion, body})
			if text != string(want) {
				t.Fatalf("text differs from the in-process answer\n got %.400s\nwant %.400s", text, want)
			}
			if isErr != (e != nil) {
				t.Errorf("isError %v for %s", isErr, want)
			}
			if !sameJSON(structured, want) {
				t.Errorf("structured content differs: %.200s", structured)
			}
			if bytes.Equal(sent, body) {
				same++
				if orig, _, _ := inProcess(body); text != string(orig) {
					t.Errorf("differs from the case's in-process answer")
				}
			}
		})
	}
	t.Logf("%d cases carried over MCP, %d byte-identical to their HTTP body", carried, same)
	if carried < 100 {
		t.Errorf("only %d cases carried", carried)
	}
}
