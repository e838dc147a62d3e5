package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/citecheck/citecheck"
	reportpkg "github.com/citecheck/citecheck/report"
)

// Exit statuses, so shell scripts and CI can gate on them.
const (
	exitValid   = 0 // every citation holds
	exitFailed  = 1 // a citation failed
	exitError   = 2 // the request was refused, or the command line is wrong
	usageString = `usage:
  citecheck run citation-batch-check 1.0.0 --input FILE|- [--base-url URL]
  citecheck run citation-batch-check 1.0.0 --input FILE|- [--jsonl] [--all|--explain] [--format json|text] [--color auto|always|never]
  citecheck run citation-batch-check 1.0.0 --input FILE|- [--jsonl] --fix
      --jsonl   one request per line in, one answer per line out, in order
      --all     check every citation, not only up to the first failure ({"all": …})
      --explain --all, each citation with the findings that say why it failed and a fix
      --fix     print the request with every fix applied; what still fails goes to stderr
      --format  text: a report for people, with the source around each failure
  citecheck annotations [--source IRI=FILE]... [--sources MANIFEST] [--html] [--format json|text] [--fix] [FILE|-]
                                check W3C Web Annotations / Hypothesis exports against their documents
  citecheck contract            print the embedded contract JSON
  citecheck serve [--addr HOST:PORT] [flags]   the HTTP service; serve --help lists every flag
      every flag also from CITECHECK_<FLAG> (CITECHECK_ADDR, CITECHECK_MAX_IN_FLIGHT, …); a flag wins
  citecheck version             the module version and VCS revision of this build
  citecheck mcp                 MCP over stdio, for desktop clients`
)

// run is the whole CLI: main only wires signals and the process's streams.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, usageString)
		return exitError
	}
	switch args[0] {
	case "run":
		return cmdRun(ctx, args[1:], stdin, stdout, stderr)
	case "annotations":
		return cmdAnnotations(ctx, args[1:], stdin, stdout, stderr)
	case "contract":
		stdout.Write(citecheck.ContractJSON())
		return exitValid
	case "serve":
		return cmdServe(ctx, args[1:], stdout, stderr)
	case "mcp":
		return cmdMCP(ctx, args[1:], stdin, stdout, stderr)
	case "version", "--version", "-version":
		return cmdVersion(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprintln(stdout, usageString)
		return exitValid
	}
	fmt.Fprintf(stderr, "citecheck: unknown command %q\n%s\n", args[0], usageString)
	return exitError
}

// runOptions are the flags of `citecheck run`.
type runOptions struct {
	input   string
	baseURL string
	jsonl   bool   // bulk: a request per line (bulk.go)
	all     bool   // every citation's outcome, beyond the contract
	explain bool   // --all with findings and fixes (spec §5)
	fix     bool   // the request back with its fixes applied
	format  string // "json" (the contract's envelope) or "text" (package report)
	color   string // "auto", "always" or "never", for --format text
}

// parseInterspersed parses flags that may stand before, between or after
// the positional arguments, as `run TOOL VERSION --input F` needs.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func cmdRun(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var o runOptions
	fs := flag.NewFlagSet("citecheck run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.input, "input", "", "the request body: a file, or - for standard input")
	fs.StringVar(&o.baseURL, "base-url", "", "send the call to the service at this URL instead of running it in-process")
	fs.BoolVar(&o.jsonl, "jsonl", false, "read one request per line and answer one per line, in order")
	fs.BoolVar(&o.all, "all", false, "check every citation and report each one's outcome")
	fs.BoolVar(&o.explain, "explain", false, "as --all, with each failing citation's findings and fix")
	fs.BoolVar(&o.fix, "fix", false, "print the request with every fix applied")
	fs.StringVar(&o.format, "format", "json", "json, or text for a report people read")
	fs.StringVar(&o.color, "color", "auto", "colour the text report: auto (on a terminal, unless NO_COLOR is set), always or never")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return usage(stderr, err.Error())
	}
	if len(pos) != 2 {
		return usage(stderr, "run takes a tool id and a version: run citation-batch-check 1.0.0")
	}
	if o.input == "" {
		return usage(stderr, "--input FILE (or - for standard input) is required")
	}
	if o.format != "json" && o.format != "text" {
		return usage(stderr, "--format is json or text")
	}
	if o.color != "auto" && o.color != "always" && o.color != "never" {
		return usage(stderr, "--color is auto, always or never")
	}
	if o.baseURL != "" && (o.jsonl || o.all || o.explain || o.fix || o.format != "json") {
		// The service speaks the contract only; these run in-process.
		return usage(stderr, "--base-url takes one request and prints the service's JSON; --jsonl, --all, --explain, --fix and --format text run in-process")
	}
	if o.fix && (o.all || o.explain || o.format != "json") {
		return usage(stderr, "--fix prints the request back; it takes no --all, --explain or --format text")
	}
	if e := citecheck.LookupTool(pos[0], pos[1]); e != nil {
		return report(stdout, stderr, nil, e)
	}
	text := o.format == "text"
	color := text && (o.color == "always" || o.color == "auto" && isTerminal(stdout) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb")
	if o.jsonl {
		in, size, closeIn, e := openInput(o.input, stdin)
		if e != nil {
			return report(stdout, stderr, nil, e)
		}
		defer closeIn()
		return runBulk(ctx, in, stdout, stderr, bulkOptions{
			all: o.all || o.explain || o.fix, explain: o.explain, fix: o.fix, text: text, color: color, size: size,
			progress: isTerminal(stderr), stdoutTTY: isTerminal(stdout),
		})
	}
	in, e := readInput(o.input, stdin)
	if e != nil {
		return report(stdout, stderr, nil, e)
	}
	return in.use(stdout, stderr, func(body []byte) int {
		if o.baseURL != "" {
			return runRemote(ctx, o.baseURL, pos[0], pos[1], body, stdout, stderr)
		}
		if o.fix {
			return runFix(body, stdout, stderr)
		}
		if !o.all && !o.explain && !text {
			// citecheck.Run, with the citations of a large request shared
			// among the cores: a one-shot run has them to itself. The body
			// is the run's alone, read or mapped for it and released after
			// (input.use), so the Request shares its memory: no copy of the
			// texts, no fresh pages for them.
			req, e := citecheck.DecodeShared(body, citecheck.DefaultLimits())
			if e != nil {
				return report(stdout, stderr, nil, e)
			}
			return report(stdout, stderr, citecheck.CheckParallel(req, runtime.GOMAXPROCS(0)), nil)
		}
		return runExtended(body, o.all, o.explain, text, color, stdout, stderr)
	})
}

// runExtended answers one request with --all, --explain or --format text, the
// extensions beyond the contract's JSON. Exit statuses are the contract's:
// 0 valid, 1 a citation failed, 2 an error. The text report is itself the
// message, so it is not repeated on stderr.
func runExtended(body []byte, all, explain, text, color bool, stdout, stderr io.Writer) int {
	a := evaluate(body, all, explain)
	switch {
	case text:
		stdout.Write(a.appendText(nil, reportpkg.Options{Color: color}))
	case a.err != nil:
		return report(stdout, stderr, nil, a.err)
	default:
		stdout.Write(append(a.appendJSON(nil), '\n'))
		if !a.all.Valid {
			first := a.all.FirstFailure()
			fmt.Fprintf(stderr, "citecheck: %d of %d citations failed; the first, %d (%s): %s\n",
				a.all.Failed, len(a.all.Citations), first.CitationIndex, first.CitationID, first.Reason)
		}
	}
	switch {
	case a.err != nil:
		return exitError
	case !a.valid():
		return exitFailed
	}
	return exitValid
}

// answered is one request body decoded and checked, as --all asks: the
// one place both a single run and each line of a bulk run get their answer.
type answered struct {
	req *citecheck.Request
	err *citecheck.Error     // the request was refused
	res *citecheck.Result    // Check's result (without --all)
	all *citecheck.AllResult // CheckAll's result (with --all; with --explain, ex.All)
	ex  *citecheck.Explanation
}

func evaluate(body []byte, all, explain bool) answered {
	req, e := citecheck.Decode(body)
	switch {
	case e != nil:
		return answered{err: e}
	case explain:
		ex := citecheck.Explain(req)
		return answered{req: req, all: ex.All, ex: ex}
	case all:
		return answered{req: req, all: citecheck.CheckAll(req)}
	}
	return answered{req: req, res: citecheck.Check(req)}
}

// valid reports whether every citation held (false for a refused request).
func (a answered) valid() bool {
	switch {
	case a.err != nil:
		return false
	case a.all != nil:
		return a.all.Valid
	}
	return a.res.Valid
}

// appendJSON appends {"result": …}, {"all": …} or {"error": …}.
func (a answered) appendJSON(dst []byte) []byte {
	if a.ex != nil {
		return citecheck.AppendExplainEnvelope(dst, a.ex, nil)
	}
	if a.all != nil {
		return citecheck.AppendAllEnvelope(dst, a.all, nil)
	}
	return citecheck.AppendEnvelope(dst, a.res, a.err)
}

// appendText appends the report a person reads.
func (a answered) appendText(dst []byte, ro reportpkg.Options) []byte {
	switch {
	case a.err != nil:
		return reportpkg.AppendError(dst, a.err, ro)
	case a.ex != nil:
		return reportpkg.AppendExplanation(dst, a.req, a.ex, ro)
	case a.all != nil:
		return reportpkg.AppendAll(dst, a.req, a.all, ro)
	}
	return reportpkg.AppendResult(dst, a.req, a.res, ro)
}

// isTerminal reports whether w is a terminal (a character device), which
// decides progress, colour and the like. Anything but an *os.File is not.
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// openInput opens the bulk input without reading it, and returns its size
// when it is a regular file (for progress), else 0.
func openInput(name string, stdin io.Reader) (io.Reader, int64, func(), *citecheck.Error) {
	r, closer := stdin, func() {}
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, 0, nil, &citecheck.Error{Code: citecheck.CodeUsage, Message: "cannot read --input: " + err.Error()}
		}
		r, closer = f, func() { f.Close() }
	}
	var size int64
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
	}
	return r, size, closer, nil
}

// report prints the envelope and returns the exit status it stands for.
func report(stdout, stderr io.Writer, res *citecheck.Result, e *citecheck.Error) int {
	out := citecheck.AppendEnvelope(nil, res, e)
	stdout.Write(append(out, '\n'))
	return exitStatus(res, e, stderr)
}

// exitStatus maps an answer to the exit status, writing the one-line
// message for errors and failures to stderr.
func exitStatus(res *citecheck.Result, e *citecheck.Error, stderr io.Writer) int {
	switch {
	case e != nil:
		fmt.Fprintf(stderr, "citecheck: %s: %s\n", e.Code, e.Message)
		return exitError
	case !res.Valid:
		d := res.FirstDiscrepancy
		fmt.Fprintf(stderr, "citecheck: citation %d (%s) failed: %s\n", d.CitationIndex, d.CitationID, res.Reason)
		return exitFailed
	}
	return exitValid
}

func usage(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "citecheck: %s\n%s\n", msg, usageString)
	return exitError
}
