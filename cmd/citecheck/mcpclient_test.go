package main

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/server"
)

// mcpClientDir holds the Node script that drives citecheck with the
// official TypeScript MCP SDK; .ci/run installs its node_modules (npm ci).
const mcpClientDir = "testdata/mcpclient"

// explainInput fails in ways explain explains: straight quotes for curly
// ones, and UTF-16 offsets over an emoji.
const explainInput = `{"sources":[{"source_id":"memo","version":"v1","text":"Launch 🚀 went well. She said “we reached orbit” at 10:42."}],"citations":[{"citation_id":"c1","source_id":"memo","version":"v1","selector":{"type":"TextQuoteSelector","exact":"\"we reached orbit\""}},{"citation_id":"c2","source_id":"memo","version":"v1","selector":{"type":"TextPositionSelector","start":34,"end":41},"quote":"reached"}]}`

// TestTypeScriptMCPClientCallsExplain: the TypeScript SDK's client lists
// both tools and calls explain over streamable HTTP and over stdio
// (`citecheck mcp`), and gets the bytes the library answers, structured
// content that passes the tool's output schema (the SDK validates it),
// and a tool error for a refused input.
func TestTypeScriptMCPClientCallsExplain(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("skipping: node is absent")
	}
	if _, err := os.Stat(filepath.Join(mcpClientDir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Skipf("skipping: run npm ci in %s (.ci/run does)", mcpClientDir)
	}
	ex, e := citecheck.RunExplain([]byte(explainInput))
	if e != nil {
		t.Fatal(e)
	}
	want := citecheck.AppendExplainEnvelope(nil, ex, nil)

	// stdio: the real binary, as a desktop client starts it.
	bin := builtBinary(t)
	srv := httptest.NewServer(server.New(server.Config{}))
	defer srv.Close()

	for _, transport := range [][]string{{"http", srv.URL + "/mcp"}, {"stdio", bin, "mcp"}} {
		t.Run(transport[0], func(t *testing.T) {
			cmd := exec.Command(node, append([]string{"client.mjs"}, transport...)...)
			cmd.Dir = mcpClientDir
			cmd.Stdin = strings.NewReader(explainInput)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("node client.mjs: %v\n%s", err, stderr.Bytes())
			}
			var got struct {
				Tools []struct {
					Name            string `json:"name"`
					Description     string `json:"description"`
					HasOutputSchema bool   `json:"hasOutputSchema"`
				} `json:"tools"`
				Text           string          `json:"text"`
				Structured     json.RawMessage `json:"structured"`
				IsError        bool            `json:"isError"`
				RefusedText    string          `json:"refusedText"`
				RefusedIsError bool            `json:"refusedIsError"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if len(got.Tools) != 3 || got.Tools[0].Name != server.MCPQuotesToolName || got.Tools[2].Name != server.MCPExplainToolName || !got.Tools[2].HasOutputSchema ||
				!strings.Contains(got.Tools[2].Description, "correct your own citations") {
				t.Errorf("tools %+v", got.Tools)
			}
			if got.IsError || got.Text != string(want) || !sameValue(got.Structured, want) {
				t.Errorf("explain: isError %v\n text %s\n structured %s\nwant %s", got.IsError, got.Text, got.Structured, want)
			}
			if !got.RefusedIsError || !strings.HasPrefix(got.RefusedText, `{"error":{"code":"invalid_input"`) {
				t.Errorf("refused: isError %v, %s", got.RefusedIsError, got.RefusedText)
			}
		})
	}
}

// sameValue reports whether a and b are the same JSON value.
func sameValue(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return bytes.Equal(ja, jb)
}
