//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/citecheck/citecheck"
)

// A single in-process run never uses its context, so it never asks for the
// signals (which would start os/signal's watcher thread for nothing).
func TestSignalsAreNotAskedForByASingleRun(t *testing.T) {
	ctx := onSignal(context.Background(), syscall.SIGUSR1)
	defer ctx.Stop()
	for _, args := range [][]string{
		{"run", citecheck.ToolID, citecheck.ToolVersion, "--input", writeInput(t, validBody)},
		{"run", citecheck.ToolID, citecheck.ToolVersion, "--all", "--input", writeInput(t, failedBody)},
		{"contract"},
	} {
		var out, errb bytes.Buffer
		if code := run(ctx, args, strings.NewReader(""), &out, &errb); code == exitError {
			t.Fatalf("%v: exit 2: %s", args, errb.String())
		}
		if ctx.ctx != nil {
			t.Fatalf("%v asked for the signals", args)
		}
	}
}

// Once used, the context is cancelled by the first signal, as
// signal.NotifyContext's is. (SIGUSR1, because a Go program ignores it
// when nobody asks for it, so the test binary lives either way.)
func TestSignalsCancelTheContextOnceUsed(t *testing.T) {
	ctx := onSignal(context.Background(), syscall.SIGUSR1)
	defer ctx.Stop()
	done := ctx.Done()
	if ctx.Err() != nil {
		t.Fatal("cancelled before any signal")
	}
	syscall.Kill(syscall.Getpid(), syscall.SIGUSR1)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the signal did not cancel the context")
	}
	if ctx.Err() != context.Canceled {
		t.Fatalf("Err %v, want context.Canceled", ctx.Err())
	}
	derived, cancel := context.WithCancel(ctx)
	defer cancel()
	if derived.Err() == nil {
		t.Fatal("a context derived after the signal is not cancelled")
	}
}

// Whoever sees the context done may send the second signal at once (the
// service logs "shutting down" when it does): by then the default action
// is back, so that signal ends the process instead of being swallowed.
// The child is this test binary, with SIGINT (whose default action ends
// a Go program, as SIGTERM's does; SIGUSR1's does not); a race would show
// in some of its runs.
func TestSecondSignalEndsTheProcessOnceDoneIsSeen(t *testing.T) {
	if os.Getenv("CITECHECK_SIGNAL_CHILD") == "1" {
		ctx := onSignal(context.Background(), syscall.SIGINT)
		done := ctx.Done()
		syscall.Kill(syscall.Getpid(), syscall.SIGINT)
		<-done
		syscall.Kill(syscall.Getpid(), syscall.SIGINT)
		time.Sleep(5 * time.Second)
		os.Exit(0) // the second signal was swallowed
	}
	for range 20 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSecondSignalEndsTheProcessOnceDoneIsSeen$")
		cmd.Env = append(os.Environ(), "CITECHECK_SIGNAL_CHILD=1")
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("the child lived through the second signal: %v", err)
		}
		if ws, _ := exit.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGINT {
			t.Fatalf("the child ended with %v, not by the second SIGINT", err)
		}
	}
}
