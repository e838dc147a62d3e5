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
	"os"
	"time"

	"github.com/citecheck/citecheck/server"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveCommand is `citecheck serve` and the configuration its flags set.
func serveCommand() (*command, *server.Config) {
	cfg := server.DefaultConfig()
	c := newCommand("serve", "citecheck serve [flags]",
		"The HTTP service, with MCP at /mcp, until SIGINT or SIGTERM. Every flag is also a CITECHECK_<FLAG>\n"+
			"variable (--max-in-flight: CITECHECK_MAX_IN_FLIGHT); a flag on the command line wins.")
	fs := c.flags
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen on HOST:PORT (port 0: any free port; 0.0.0.0 or an empty host: every interface)")
	fs.StringVar(&cfg.PublicURL, "public-url", "", "base URL for links in the catalogue and the tool page (default: from each request's Host)")
	fs.IntVar(&cfg.MaxInFlight, "max-in-flight", cfg.MaxInFlight, "checks run at once (2×GOMAXPROCS unless set)")
	fs.DurationVar(&cfg.QueueWait, "queue-wait", cfg.QueueWait, "how long a request waits for a check slot or body memory before 503 overloaded")
	fs.Var(byteSize{&cfg.BodyMemory}, "body-memory", "`SIZE` of the budget of request bodies being read and answers being written at once (bytes, or with KiB, MiB, GiB; the default is 4 MiB a check slot)")
	fs.Var(byteSize{&cfg.MinBodyRate}, "min-body-rate", "`SIZE` a body must arrive at each second, after --body-rate-grace")
	fs.DurationVar(&cfg.BodyRateGrace, "body-rate-grace", cfg.BodyRateGrace, "time a body may take before --min-body-rate applies")
	fs.IntVar(&cfg.MaxConns, "max-conns", cfg.MaxConns, "open connections at most; at the bound, idle ones are closed first")
	fs.DurationVar(&cfg.ReadHeaderTimeout, "read-header-timeout", cfg.ReadHeaderTimeout, "limit on reading a request head")
	fs.DurationVar(&cfg.ReadTimeout, "read-timeout", cfg.ReadTimeout, "limit on reading a whole request, body included")
	fs.DurationVar(&cfg.WriteTimeout, "write-timeout", cfg.WriteTimeout, "limit on writing an answer, from when it is ready")
	fs.DurationVar(&cfg.IdleTimeout, "idle-timeout", cfg.IdleTimeout, "how long an idle keep-alive connection stays open")
	fs.DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", cfg.ShutdownTimeout, "grace for in-flight requests on SIGINT/SIGTERM (a second signal exits at once)")
	fs.DurationVar(&cfg.DrainDelay, "drain-delay", cfg.DrainDelay, "on SIGINT/SIGTERM, serve this long with /readyz at 503 before draining (behind a load balancer)")
	fs.Var((*originList)(&cfg.AllowedOrigins), "cors-origin", "let web pages of this origin (scheme://host[:port], or *) call the service; repeatable")
	return c, &cfg
}

// cmdServe runs the HTTP service until ctx is cancelled (SIGINT, SIGTERM),
// then shuts down gracefully. Access logs go to stderr as JSON lines; the
// address it serves on goes to stdout, so a script that asked for port 0
// can read it.
func cmdServe(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	c, cfgp := serveCommand()
	fs := c.flags
	pos, code, done := c.parse(args, false, stdout, stderr)
	if done {
		return code
	}
	if err := applyEnv(fs, os.LookupEnv); err != nil {
		return c.misuse(stderr, "serve: "+err.Error())
	}
	cfg := *cfgp
	set := map[string]bool{} // flags given on the command line or by CITECHECK_* variables
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if !set["body-memory"] {
		cfg.BodyMemory = 0 // the server's default, for --max-in-flight as given
	}
	if len(pos) > 0 {
		return c.misuse(stderr, fmt.Sprintf("serve takes no arguments, got %q", pos[0]))
	}
	if _, _, err := net.SplitHostPort(cfg.Addr); err != nil {
		return c.misuse(stderr, fmt.Sprintf("--addr (or CITECHECK_ADDR) %q is not HOST:PORT (:8080 or 0.0.0.0:8080: every interface)", cfg.Addr))
	}
	if cfg.PublicURL != "" {
		// Every link of the catalogue and the page is built on it: refuse
		// one that would make them all wrong.
		u, err := url.Parse(cfg.PublicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			return c.misuse(stderr, fmt.Sprintf("--public-url %q must be an http(s) URL like https://cite.example.org", cfg.PublicURL))
		}
	}
	// Through a LogWriter: a standard error nobody reads must not stall
	// requests or the shutdown.
	logs := server.NewLogWriter(stderr, 0)
	defer logs.Flush(time.Second)
	cfg.Logger = slog.New(slog.NewJSONHandler(logs, nil))
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

// mcpCommand is `citecheck mcp`.
func mcpCommand() *command {
	return newCommand("mcp", "citecheck mcp",
		"Serves MCP over standard input and output (the tools execute and explain) until standard input closes:\n"+
			"the transport desktop clients use when they start the server themselves.")
}

// cmdMCP serves MCP over stdin and stdout until the client closes stdin or
// ctx is cancelled: the transport desktop clients use when they start the
// server themselves. Nothing but protocol goes to stdout.
func cmdMCP(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if code, done := mcpCommand().noArguments(args, stdout, stderr); done {
		return code
	}
	// Standard error gets the panics a call recovers from (as JSON lines,
	// like serve's log), never protocol.
	logs := server.NewLogWriter(stderr, 0)
	defer logs.Flush(time.Second)
	log := slog.New(slog.NewJSONHandler(logs, nil))
	err := server.NewLoggedMCPServer(log).Run(ctx, server.NewStdioTransport(stdin, stdout))
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) && !errors.Is(err, mcp.ErrConnectionClosed) {
		fmt.Fprintf(stderr, "citecheck: mcp: %v\n", err)
		return exitError
	}
	return exitValid
}
