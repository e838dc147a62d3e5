package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
)

const (
	stdioInitialize  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"0"}}}`
	stdioInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

func stdioCall(id int) string {
	args, _ := json.Marshal(exampleArgs)
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"execute","arguments":` + string(args) + `}}`
}

// rpcLine is one line of the server's standard output, as JSON-RPC.
type rpcLine struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  *struct {
		IsError bool `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code int `json:"code"`
	} `json:"error"`
	size int // bytes of the line
}

// runStdio runs `citecheck mcp` on input, closed at its end as a pipe
// closes, and returns its exit status and each line of its standard output,
// failing the test on a line that is not a JSON-RPC 2.0 message.
func runStdio(t *testing.T, input string) (int, []rpcLine) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"mcp"}, strings.NewReader(input), &stdout, &stderr)
	var lines []rpcLine
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var l rpcLine
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		if err := dec.Decode(&l); err != nil || l.JSONRPC != "2.0" || dec.More() {
			t.Fatalf("standard output holds a line that is not JSON-RPC 2.0 (%v): %.200s", err, sc.Text())
		}
		l.size = len(sc.Bytes())
		lines = append(lines, l)
	}
	if code != exitValid {
		t.Fatalf("mcp exited %d: %s", code, stderr.String())
	}
	return code, lines
}

// TestMCPStdioAnswersEverythingBeforeEOF: a client that writes initialize,
// initialized and five calls and closes its end gets all six answers, every
// run (the SDK's own transport cancelled what was in flight at EOF).
func TestMCPStdioAnswersEverythingBeforeEOF(t *testing.T) {
	input := stdioInitialize + "\n" + stdioInitialized + "\n"
	for id := 2; id <= 6; id++ {
		input += stdioCall(id) + "\n"
	}
	for run := range 20 {
		_, lines := runStdio(t, input)
		seen := map[string]bool{}
		for _, l := range lines {
			seen[string(l.ID)] = true
			if l.Error != nil || l.Result == nil || l.Result.IsError {
				t.Fatalf("run %d: id %s: an error answer", run, l.ID)
			}
		}
		if len(lines) != 6 || len(seen) != 6 {
			t.Fatalf("run %d: %d answers for ids %v, want 6 (ids 1–6)", run, len(lines), seen)
		}
	}
}

// TestMCPStdioAnswersLinesThatAreNotMessages: each line that is not a
// JSON-RPC message gets an error answer with a null id (−32700 for one that
// is not JSON, −32600 for JSON that is no request), and the server goes on
// to answer what follows.
func TestMCPStdioAnswersLinesThatAreNotMessages(t *testing.T) {
	bad := []struct {
		line string
		code int
	}{
		{"not json", -32700},
		{`{"jsonrpc":"2.0","id":1,"method":`, -32700},
		{"{}", -32600},
		{"123", -32600},
		{`[{"jsonrpc":"2.0","id":8,"method":"ping"}]`, -32600},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, -32600},
		{`{"jsonrpc":"1.0","id":9,"method":"ping"}`, -32600},
	}
	input := stdioInitialize + "\n" + stdioInitialized + "\n"
	for _, b := range bad {
		input += b.line + "\n\n" // and an empty line, which is skipped
	}
	input += stdioCall(2) + "\n"
	_, lines := runStdio(t, input)
	if len(lines) != 2+len(bad) {
		t.Fatalf("%d answers, want %d", len(lines), 2+len(bad))
	}
	var errs []int
	answered := map[string]bool{}
	for _, l := range lines {
		if l.Error != nil && string(l.ID) == "null" {
			errs = append(errs, l.Error.Code)
			continue
		}
		answered[string(l.ID)] = true
	}
	// The bad lines are answered in order (the reader answers them itself).
	for i, b := range bad {
		if i >= len(errs) || errs[i] != b.code {
			t.Fatalf("error codes %v, want %v in that order", errs, bad)
		}
	}
	if !answered["1"] || !answered["2"] {
		t.Fatalf("initialize and the call after the bad lines: answered %v", answered)
	}
}

// TestMCPStdioCallWithHugeMemberName: a call whose input has a 256 KiB
// member name is answered with a tool error whose line holds the name about
// twice (the path of the text and of the structured content), not more.
func TestMCPStdioCallWithHugeMemberName(t *testing.T) {
	const n = 256 << 10
	input := `{"` + strings.Repeat("n", n) + `":1}`
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"execute","arguments":{"id":"` +
		citecheck.ToolID + `","version":"` + citecheck.ToolVersion + `","input":` + input + `}}}`
	_, lines := runStdio(t, stdioInitialize+"\n"+stdioInitialized+"\n"+call+"\n")
	if len(lines) != 2 || lines[1].Result == nil || !lines[1].Result.IsError {
		t.Fatalf("%d answers; the call's: %+v", len(lines), lines[len(lines)-1])
	}
	if max := 2*n + 4096; lines[1].size > max {
		t.Errorf("the answer is %d bytes, over %d", lines[1].size, max)
	}
}
