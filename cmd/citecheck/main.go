// Command citecheck checks citations against the sources they cite: the
// tool citation-batch-check@1.0.0 on the command line, as a service, and over
// MCP. See the README for the commands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal starts a graceful shutdown; from then on the
	// signals' default action is back, so a second one ends the process.
	context.AfterFunc(ctx, stop)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
