package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
)

// serveCLI runs `citecheck serve --addr 127.0.0.1:0 extra…` in-process, as
// main would, and returns its base URL (read from the line it prints) and a
// stop function that cancels it (as SIGTERM does) and returns its exit
// status.
func serveCLI(t *testing.T, extra ...string) (baseURL string, stop func() int) {
	t.Helper()
	return serveCLIArgs(t, append([]string{"--addr", "127.0.0.1:0"}, extra...)...)
}

// serveCLIArgs is serveCLI with exactly these arguments after "serve" (the
// address may come from CITECHECK_ADDR).
func serveCLIArgs(t *testing.T, args ...string) (baseURL string, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		code := run(ctx, append([]string{"serve"}, args...), strings.NewReader(""), outW, &stderr)
		outW.Close()
		done <- code
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	go io.Copy(io.Discard, outR)
	if err != nil {
		cancel()
		t.Fatalf("serve printed no address (%v); stderr: %s", err, stderr.String())
	}
	m := regexp.MustCompile(`http://127\.0\.0\.1:\d+`).FindString(line)
	if m == "" {
		cancel()
		t.Fatalf("no address in %q", line)
	}
	var code *int
	stop = func() int {
		if code == nil {
			cancel()
			select {
			case c := <-done:
				code = &c
			case <-time.After(30 * time.Second):
				t.Fatal("serve did not stop after its context was cancelled")
			}
		}
		return *code
	}
	t.Cleanup(func() { stop() })
	return m, stop
}

// TestBaseURLAnswersEveryConformanceCaseAsInProcess starts the real service
// with `citecheck serve` and runs every conformance case through
// `citecheck run --base-url`: standard output, standard error and the exit
// status must be those of the in-process run, byte for byte.
func TestBaseURLAnswersEveryConformanceCaseAsInProcess(t *testing.T) {
	t.Parallel()
	base, stop := serveCLI(t)
	n := 0
	for _, c := range testkit.Conformance(t) {
		body := c.Body
		n++
		t.Run(c.Name, func(t *testing.T) {
			local := runCLI(t, bytes.NewReader(body), "run", citecheck.ToolID, citecheck.ToolVersion, "--input", "-")
			remote := runCLI(t, bytes.NewReader(body), "run", citecheck.ToolID, citecheck.ToolVersion, "--input", "-", "--base-url", base)
			if local != remote {
				t.Fatalf("in-process: exit %d %.300q %q\n   remote: exit %d %.300q %q",
					local.code, local.stdout, local.stderr, remote.code, remote.stdout, remote.stderr)
			}
		})
	}
	if n == 0 {
		t.Fatal("no conformance cases")
	}
	if code := stop(); code != exitValid {
		t.Fatalf("serve exited %d after SIGTERM's cancel, want 0", code)
	}
}

// TestServeFlags: the service's own flags reach it, and mistakes exit 2.
func TestServeFlags(t *testing.T) {
	t.Parallel()
	base, _ := serveCLI(t, "--public-url", "https://cite.example.org", "--max-in-flight", "3", "--queue-wait", "250ms")
	resp, err := http.Get(base + "/v1/tools")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(body, []byte(`"execute_url":"https://cite.example.org/v1/tools/citation-batch-check/versions/1.0.0/execute"`)) {
		t.Fatalf("--public-url not used: %s", body)
	}
	for _, args := range [][]string{
		{"serve", "--no-such-flag"},
		{"serve", "extra"},
		{"serve", "--addr", "not-an-address"},
		{"serve", "--public-url", "cite.example.org"},
		{"serve", "--public-url", "ftp://cite.example.org"},
		{"mcp", "extra"},
	} {
		if got := runCLI(t, nil, args...); got.code != exitError || got.stderr == "" {
			t.Errorf("%v: exit %d, stderr %q", args, got.code, got.stderr)
		}
	}
}
