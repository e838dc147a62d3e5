// Command citecheck checks citations against the sources they cite: the
// tool citation-batch-check@1.0.0 on the command line, as a service, and over
// MCP. See the README for the commands.
package main

import (
	"context"
	"os"
	"syscall"
)

func main() {
	// The first signal starts a graceful shutdown; from then on the
	// signals' default action is back, so a second one ends the process
	// (signals.go: asked for only when a command uses the context).
	ctx := onSignal(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	ctx.Stop()
	os.Exit(code)
}
