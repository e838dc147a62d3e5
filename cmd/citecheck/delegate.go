//go:build !citecheck_server

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

// This file makes the default build of citecheck the light one: `run`
// (in-process), `contract` and `help` link the engine alone, so a run starts
// about as fast as a Go hello world. The service parts (`serve`, `mcp`,
// `run --base-url`) need net/http, the MCP SDK and Prometheus, whose package
// initialisation alone costs every process that links them several
// milliseconds, and `annotations` on HTML sources needs x/net/html
// (html_light.go); they live in the build with the tag citecheck_server
// (serve.go, remote.go), the full citecheck, which these commands run with
// the same arguments, streams and exit status:
//
//	go build -o bin/ ./cmd/citecheck
//	go build -tags citecheck_server -o bin/citecheck-server ./cmd/citecheck
//
// The full build is found as $CITECHECK_SERVER, else citecheck-server beside
// this executable, else on PATH; else, when the go command is at hand, it is
// built from this command's own package into the user's cache folder (so
// `go run ./cmd/citecheck serve` works in a checkout, and `serve` after a
// plain `go install` of this package).

// serverBinary names the full build in a folder or on PATH.
const serverBinary = "citecheck-server"

func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runFull(ctx, append([]string{"serve"}, args...), nil, stdout, stderr)
}

func cmdMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runFull(ctx, append([]string{"mcp"}, args...), stdin, stdout, stderr)
}

// runRemote hands `run --base-url` to the full build, the body (already
// read, perhaps from standard input) on its standard input.
func runRemote(ctx context.Context, baseURL, id, version string, body []byte, stdout, stderr io.Writer) int {
	return runFull(ctx, []string{"run", id, version, "--input", "-", "--base-url", baseURL},
		strings.NewReader(string(body)), stdout, stderr)
}

// runFull runs the full build with args and returns its exit status. When
// ctx is cancelled (SIGINT, SIGTERM) the child gets SIGINT, so that `serve`
// shuts down gracefully as it does in-process, and is killed if it has not
// exited after its shutdown grace.
func runFull(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	name, err := fullBuild(stderr)
	if err != nil {
		fmt.Fprintf(stderr, "citecheck: %s: %v\n", args[0], err)
		return exitError
	}
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if stdin == nil {
		cmd.Stdin = os.Stdin
	}
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = time.Minute
	err = cmd.Run()
	if exit := (*exec.ExitError)(nil); errors.As(err, &exit) && exit.Exited() {
		return exit.ExitCode()
	}
	if err != nil && ctx.Err() == nil {
		fmt.Fprintf(stderr, "citecheck: %s: %v\n", args[0], err)
		return exitError
	}
	return exitValid
}

// fullBuild returns the path of the full build, building it with the go
// command (into the user's cache folder) when none is installed.
func fullBuild(stderr io.Writer) (string, error) {
	if p := os.Getenv("CITECHECK_SERVER"); p != "" {
		return p, nil
	}
	exe := serverBinary
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	if self, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(self), exe); fileExists(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath(exe); err == nil {
		return p, nil
	}
	missing := fmt.Errorf("needs %s beside citecheck or on PATH (go build -tags citecheck_server -o %s ./cmd/citecheck)", exe, exe)
	goCmd, err := exec.LookPath("go")
	bi, ok := debug.ReadBuildInfo()
	cache, cerr := os.UserCacheDir()
	if err != nil || !ok || cerr != nil {
		return "", missing
	}
	// This command's own package: from the checkout it was built in (go
	// run, go build), else at the version installed, from the module cache.
	dir := filepath.Join(cache, "citecheck", "server-devel")
	build := exec.Command(goCmd, "build", "-tags", "citecheck_server", "-o", filepath.Join(dir, exe), bi.Path)
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		dir = filepath.Join(cache, "citecheck", "server-"+v)
		build = exec.Command(goCmd, "install", "-tags", "citecheck_server", bi.Path+"@"+v)
		build.Env = append(os.Environ(), "GOBIN="+dir)
		exe = filepath.Base(bi.Path) + strings.TrimPrefix(exe, serverBinary)
	}
	build.Stdout, build.Stderr = stderr, stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("%w; building it with %s failed: %v", missing, goCmd, err)
	}
	return filepath.Join(dir, exe), nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
