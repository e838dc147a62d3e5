//go:build unix

package main

import (
	"bytes"
	"context"
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
// signal.NotifyContext's is. (Were the signal not caught, SIGUSR1's default
// action would end the test binary.)
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
