package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var exampleArgs = map[string]any{
	"id": citecheck.ToolID, "version": citecheck.ToolVersion,
	"input": json.RawMessage(`{"sources":[{"source_id":"alphabet","version":"v1","text":"abcdefghijklmnopqrstuvwxyz"}],"citations":[{"citation_id":"c1","source_id":"alphabet","version":"v1","selector":{"type":"TextPositionSelector","start":4,"end":7},"quote":"efg"},{"citation_id":"c2","source_id":"alphabet","version":"v1","selector":{"type":"TextQuoteSelector","exact":"xyz","prefix":"w"},"claimed_start":23}]}`),
}

// stdioScenarios is what a desktop client does over stdio: list the tool,
// run the example, and get tool errors for bad input and an unknown tool.
func stdioScenarios(t *testing.T, cs *mcp.ClientSession) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 3 || tools.Tools[0].Name != server.MCPQuotesToolName || tools.Tools[1].Name != server.MCPToolName || tools.Tools[2].Name != server.MCPExplainToolName {
		t.Fatalf("tools: %+v", tools.Tools)
	}
	call := func(args map[string]any) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: server.MCPToolName, Arguments: args})
		if err != nil {
			t.Fatal(err)
		}
		return res.Content[0].(*mcp.TextContent).Text, res.IsError
	}
	want, _ := libraryAnswer(exampleArgs["input"].(json.RawMessage))
	if text, isErr := call(exampleArgs); isErr || text+"\n" != want {
		t.Fatalf("example: isError %v, %s\nwant %s", isErr, text, want)
	}
	bad := map[string]any{"id": citecheck.ToolID, "version": citecheck.ToolVersion, "input": json.RawMessage(`{"sources":[]}`)}
	if text, isErr := call(bad); !isErr || !strings.HasPrefix(text, `{"error":{"code":"invalid_input"`) {
		t.Fatalf("bad input: isError %v, %s", isErr, text)
	}
	unknown := map[string]any{"id": "nope", "version": "1.0.0", "input": exampleArgs["input"]}
	if text, isErr := call(unknown); !isErr || !strings.HasPrefix(text, `{"error":{"code":"not_found"`) {
		t.Fatalf("unknown tool: isError %v, %s", isErr, text)
	}
}

// TestMCPOverPipes runs `citecheck mcp` in-process with pipes for its
// standard streams, and talks to it with the SDK's client; closing the
// client's end is the end of the session, and the command exits 0.
func TestMCPOverPipes(t *testing.T) {
	t.Parallel()
	toServerR, toServerW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		code := run(context.Background(), []string{"mcp"}, toServerR, toClientW, &stderr)
		toClientW.Close()
		done <- code
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "citecheck-test", Version: "0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: toClientR, Writer: toServerW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	stdioScenarios(t, cs)
	cs.Close()
	toServerW.Close()
	select {
	case code := <-done:
		if code != exitValid {
			t.Fatalf("mcp exited %d: %s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("mcp did not exit when its standard input closed")
	}
}

// TestMCPStdioBinary builds the real binary and lets the SDK start it as a
// desktop client would (CommandTransport: `citecheck mcp` on stdio).
func TestMCPStdioBinary(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := builtBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "citecheck-test", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(bin, "mcp")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	stdioScenarios(t, cs)
	if err := cs.Close(); err != nil {
		t.Errorf("closing the session (the binary should exit on EOF): %v", err)
	}
}
