package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeHelp: `serve --help` exits 0 and lists every flag with its
// default.
func TestServeHelp(t *testing.T) {
	got := runCLI(t, nil, "serve", "--help")
	if got.code != exitValid {
		t.Fatalf("exit %d: %s", got.code, got.stderr)
	}
	for _, f := range []string{"addr", "body-memory", "body-rate-grace", "idle-timeout", "max-conns", "max-in-flight",
		"min-body-rate", "queue-wait", "read-header-timeout", "read-timeout", "shutdown-timeout", "write-timeout"} {
		if !regexp.MustCompile(`(?m)^  -` + f + `\b.*\n\s+.*\(default [^)]+\)$`).MatchString(got.stdout) {
			t.Errorf("--%s is not listed with its default:\n%s", f, got.stdout)
		}
	}
	if !strings.Contains(got.stdout, "-public-url") {
		t.Error("--public-url is not listed")
	}
}

// startServe starts the binary's `serve` on a free port with extra flags
// and returns the process, its address, and its standard error (nil if
// stderr is given).
func startServe(t *testing.T, stderr *os.File, extra ...string) (*exec.Cmd, string, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(builtBinary(t), append([]string{"serve", "--addr", "127.0.0.1:0"}, extra...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errs *bufio.Reader
	if stderr != nil {
		cmd.Stderr = stderr
	} else {
		r, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		errs = bufio.NewReader(r)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("serve printed no address: %v", err)
	}
	addr := regexp.MustCompile(`127\.0\.0\.1:\d+`).FindString(line)
	if addr == "" {
		t.Fatalf("no address in %q", line)
	}
	return cmd, addr, errs
}

// waitExit waits for the process to end, failing after within.
func waitExit(t *testing.T, cmd *exec.Cmd, within time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(within):
		t.Fatalf("the process still runs %v later", within)
		return nil
	}
}

// TestSecondInterruptExitsAtOnce: a request that is still sending its body
// keeps a graceful shutdown waiting; a second SIGINT ends the process at
// once.
func TestSecondInterruptExitsAtOnce(t *testing.T) {
	cmd, addr, stderr := startServe(t, nil, "--read-timeout", "1m", "--body-rate-grace", "1m", "--shutdown-timeout", "1m")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "POST /v1/tools/citation-batch-check/versions/1.0.0/execute HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
	// Wait until the server reads that body (it holds body memory), so the
	// shutdown has a request in flight to wait for.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the request never reached the server")
		}
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), "\ncitecheck_body_memory_bytes 100\n") {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	for {
		line, err := stderr.ReadString('\n')
		if err != nil {
			t.Fatalf("no shutdown line on stderr: %v", err)
		}
		if strings.Contains(line, "shutting down") {
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	cmd.Process.Signal(syscall.SIGINT)
	waitExit(t, cmd, 10*time.Second)
}

// TestBlockedStderrStallsNothing: with a standard error nobody reads (a
// full pipe), the service answers request after request, and SIGTERM
// still ends it promptly with exit 0.
func TestBlockedStderrStallsNothing(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close() // kept open and never read: writes to w block when it is full
	cmd, addr, _ := startServe(t, w)
	w.Close()
	client := &http.Client{Timeout: 10 * time.Second}
	// 64 KiB of pipe buffer holds a few hundred access-log lines: 2000
	// requests fill it many times over.
	for i := range 2000 {
		resp, err := client.Get("http://" + addr + "/healthz")
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: %d", i, resp.StatusCode)
		}
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if err := waitExit(t, cmd, 10*time.Second); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
}

// TestServeBodyMemoryFollowsMaxInFlight: without --body-memory, the budget
// is 4 maximum-size bodies per check slot of --max-in-flight as given; with
// it, what it says.
func TestServeBodyMemoryFollowsMaxInFlight(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-in-flight", "8"}, "3.3554432e+07"},
		{[]string{"--max-in-flight", "8", "--body-memory", "3MiB"}, "3.145728e+06"},
	} {
		base, _ := serveCLI(t, c.args...)
		resp, err := http.Get(base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), "\ncitecheck_body_memory_budget_bytes "+c.want+"\n") {
			t.Errorf("%v: budget is not %s", c.args, c.want)
		}
	}
}
