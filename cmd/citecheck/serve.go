//go:build citecheck_server

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"time"

	"github.com/citecheck/citecheck/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cmdServe runs the HTTP service until ctx is cancelled (SIGINT, SIGTERM),
// then shuts down gracefully. Access logs go to stderr as JSON lines; the
// address it serves on goes to stdout, so a script that asked for port 0
// can read it.
func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var cfg server.Config
	fs := flag.NewFlagSet("citecheck serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:8080", "listen on HOST:PORT (port 0: any free port)")
	fs.StringVar(&cfg.PublicURL, "public-url", "", "base URL for links in the catalogue and the tool page (default: from each request's Host)")
	fs.IntVar(&cfg.MaxInFlight, "max-in-flight", 0, "requests checked at once (default 2×GOMAXPROCS)")
	fs.DurationVar(&cfg.QueueWait, "queue-wait", time.Second, "how long a request waits for a slot before 503 overloaded")
	fs.DurationVar(&cfg.ReadTimeout, "read-timeout", 30*time.Second, "limit on reading a whole request, body included")
	fs.DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", 15*time.Second, "grace for in-flight requests on SIGINT/SIGTERM")
	if err := fs.Parse(args); err != nil {
		return usage(stderr, "serve: "+err.Error())
	}
	if fs.NArg() > 0 {
		return usage(stderr, fmt.Sprintf("serve takes no arguments, got %q", fs.Arg(0)))
	}
	if cfg.PublicURL != "" {
		// Every link of the catalogue and the page is built on it: refuse
		// one that would make them all wrong.
		u, err := url.Parse(cfg.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return usage(stderr, fmt.Sprintf("--public-url %q must be an http(s) URL like https://cite.example.org", cfg.PublicURL))
		}
	}
	cfg.Logger = slog.New(slog.NewJSONHandler(stderr, nil))
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		fmt.Fprintf(stderr, "citecheck: serve: %v\n", err)
		return exitError
	}
	srv := server.New(cfg)
	fmt.Fprintf(stdout, "citecheck: serving on http://%s (tool page: http://%[1]s/tools/citation-batch-check)\n", ln.Addr())
	if err := srv.Serve(ctx, ln); err != nil {
		fmt.Fprintf(stderr, "citecheck: serve: %v\n", err)
		return exitError
	}
	return exitValid
}

// cmdMCP serves MCP over stdin and stdout until the client closes stdin or
// ctx is cancelled: the transport desktop clients use when they start the
// server themselves. Nothing but protocol goes to stdout.
func cmdMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		return usage(stderr, fmt.Sprintf("mcp takes no arguments, got %q", args[0]))
	}
	t := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	err := server.NewMCPServer().Run(ctx, t)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) && !errors.Is(err, mcp.ErrConnectionClosed) {
		fmt.Fprintf(stderr, "citecheck: mcp: %v\n", err)
		return exitError
	}
	return exitValid
}

// nopWriteCloser lets the process's stdout (or a test's pipe) serve as the
// transport's writer: the session ending must not close stdout under us.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
