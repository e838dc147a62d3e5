package main

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/citecheck/citecheck/internal/testkit"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/server"
)

// TestExplainPrintsWhatTheExplainRouteAnswers: for the conformance bodies
// and a request with every kind of finding, `run --explain` prints exactly
// the body POST …/explain answers (and a newline).
func TestExplainPrintsWhatTheExplainRouteAnswers(t *testing.T) {
	srv := httptest.NewServer(server.New(server.Config{}))
	defer srv.Close()
	request, err := os.ReadFile("testdata/explain-request.json")
	if err != nil {
		t.Fatal(err)
	}
	bodies := [][]byte{request}
	for _, c := range testkit.Conformance(t) {
		if len(c.Body) < 64<<10 {
			bodies = append(bodies, c.Body)
		}
	}
	for i, body := range bodies {
		got := runCLI(t, bytes.NewReader(body), "run", citecheck.ToolID, citecheck.ToolVersion, "--explain", "--input", "-")
		resp, err := http.Post(srv.URL+"/v1/tools/"+citecheck.ToolID+"/versions/"+citecheck.ToolVersion+"/explain", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if got.stdout != string(want)+"\n" {
			t.Fatalf("body %d: --explain prints\n%.300s\nthe route answers\n%.300s", i, got.stdout, want)
		}
	}
}

// TestFixUsage: --fix prints a request, so it takes no report options.
func TestFixUsage(t *testing.T) {
	for _, extra := range [][]string{{"--all"}, {"--explain"}, {"--format", "text"}} {
		args := append([]string{"run", citecheck.ToolID, citecheck.ToolVersion, "--fix", "--input", "-"}, extra...)
		got := runCLI(t, strings.NewReader(validBody), args...)
		if got.code != exitError || !strings.Contains(got.stderr, "--fix") {
			t.Errorf("%v: exit %d %s", extra, got.code, got.stderr)
		}
	}
}

// TestFixedRequestHolds: running the fixed request again, what was fixed
// now holds, and --fix of a request that holds prints it unchanged.
func TestFixedRequestHolds(t *testing.T) {
	request, err := os.ReadFile("testdata/explain-request.json")
	if err != nil {
		t.Fatal(err)
	}
	fixed := runCLI(t, bytes.NewReader(request), "run", citecheck.ToolID, citecheck.ToolVersion, "--fix", "--input", "-")
	again := runCLI(t, strings.NewReader(fixed.stdout), "run", citecheck.ToolID, citecheck.ToolVersion, "--fix", "--input", "-")
	if again.stdout != fixed.stdout || !strings.Contains(again.stderr, "0 citations fixed; 4 still fail") || again.code != exitFailed {
		t.Errorf("fixing the fixed request: exit %d, %s", again.code, again.stderr)
	}
	valid := runCLI(t, strings.NewReader(validBody), "run", citecheck.ToolID, citecheck.ToolVersion, "--fix", "--input", "-")
	if valid.stdout != validBody || valid.code != exitValid {
		t.Errorf("a valid request: exit %d\n%s", valid.code, valid.stdout)
	}
}
