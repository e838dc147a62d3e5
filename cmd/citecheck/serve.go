package main

import (
	"context"
	"fmt"
	"io"
)

// cmdServe starts the HTTP service. (Filled in by the service work, issue 3.)
func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "citecheck: serve is not built yet")
	return exitError
}

// cmdMCP serves MCP over stdio. (Filled in by the service work, issue 3.)
func cmdMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "citecheck: mcp is not built yet")
	return exitError
}
