package main

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"runtime"
	"strings"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/jsonenc"
	reportpkg "github.com/citecheck/citecheck/report"
)

// Exit statuses, so shell scripts and CI can gate on them.
const (
	exitValid  = 0 // every citation holds
	exitFailed = 1 // a citation failed
	exitError  = 2 // the request was refused, or the command line is wrong
)

// run is the whole CLI: main only wires signals and the process's streams.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return generalMisuse(stderr, "a command is needed")
	}
	switch args[0] {
	case "run":
		return cmdRun(ctx, args[1:], stdin, stdout, stderr)
	case "annotations":
		return cmdAnnotations(ctx, args[1:], stdin, stdout, stderr)
	case "quotes":
		return cmdQuotes(ctx, args[1:], stdin, stdout, stderr)
	case "contract":
		return cmdContract(args[1:], stdout, stderr)
	case "serve":
		return cmdServe(ctx, args[1:], stdout, stderr)
	case "mcp":
		return cmdMCP(ctx, args[1:], stdin, stdout, stderr)
	case "pipe":
		return cmdPipe(ctx, args[1:], stdin, stdout, stderr)
	case "version", "--version", "-version":
		return cmdVersion(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		return cmdHelp(args[1:], stdout, stderr)
	}
	return generalMisuse(stderr, fmt.Sprintf("unknown command %q", args[0]))
}

// contractCommand is `citecheck contract`.
func contractCommand() *command {
	return newCommand("contract", "citecheck contract",
		"Prints the embedded contract of "+citecheck.ToolID+"@"+citecheck.ToolVersion+", byte for byte as published.")
}

func cmdContract(args []string, stdout, stderr io.Writer) int {
	if code, done := contractCommand().noArguments(args, stdout, stderr); done {
		return code
	}
	stdout.Write(citecheck.ContractJSON())
	return exitValid
}

// runOptions are the flags of `citecheck run`.
type runOptions struct {
	input   string
	baseURL string
	jsonl   bool   // bulk: a request per line (bulk.go)
	all     bool   // every citation's outcome, beyond the contract
	explain bool   // --all with findings and fixes (spec §5)
	fix     bool   // the request back with its fixes applied
	format  string // "json" (the contract's envelope), "text" (package report) or "html" (one page)
	color   string // "auto", "always" or "never", for --format text
}

// runCommand is `citecheck run` and the options its flags set.
func runCommand() (*command, *runOptions) {
	var o runOptions
	c := newCommand("run", "citecheck run citation-batch-check 1.0.0 --input FILE|- [flags]",
		"Checks the request in FILE (- for standard input) and prints one line, {\"result\": …} or {\"error\": …}.\n"+
			"Exit status: 0 every citation holds, 1 a citation failed, 2 the request was refused or the command line is wrong.")
	fs := c.flags
	fs.StringVar(&o.input, "input", "", "the request body: a `FILE`, or - for standard input (required)")
	fs.StringVar(&o.baseURL, "base-url", "", "send the call to the service at this `URL` instead of running it in-process")
	fs.BoolVar(&o.jsonl, "jsonl", false, "read one request per line and answer one per line, in order")
	fs.BoolVar(&o.all, "all", false, "check every citation and report each one's outcome ({\"all\": …})")
	fs.BoolVar(&o.explain, "explain", false, "as --all, with each failing citation's findings and fix")
	fs.BoolVar(&o.fix, "fix", false, "print the request with every fix applied; what still fails goes to standard error")
	fs.StringVar(&o.format, "format", "json", "json, text for a report people read, or html for one self-contained page of every citation (as --explain)")
	fs.StringVar(&o.color, "color", "auto", "colour the text report: auto (on a terminal, unless NO_COLOR is set), always or never")
	return c, &o
}

func cmdRun(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c, o := runCommand()
	pos, code, done := c.parse(args, true, stdout, stderr)
	switch {
	case done:
		return code
	case len(pos) > 2:
		return c.misuse(stderr, fmt.Sprintf("run takes a tool id and a version; %q is one argument too many", pos[2]))
	case len(pos) != 2:
		return c.misuse(stderr, "run takes a tool id and a version: run citation-batch-check 1.0.0")
	case o.input == "":
		return c.misuse(stderr, "--input FILE (or - for standard input) is required")
	case o.format != "json" && o.format != "text" && o.format != "html":
		return c.misuse(stderr, "--format is json, text or html")
	case o.color != "auto" && o.color != "always" && o.color != "never":
		return c.misuse(stderr, "--color is auto, always or never")
	case o.baseURL != "" && (o.jsonl || o.all || o.explain || o.fix || o.format != "json"):
		// The service speaks the contract only; these run in-process.
		return c.misuse(stderr, "--base-url takes one request and prints the service's JSON; --jsonl, --all, --explain, --fix and --format text or html run in-process")
	case o.fix && (o.all || o.explain || o.format != "json"):
		return c.misuse(stderr, "--fix prints the request back; it takes no --all, --explain or --format text or html")
	case o.baseURL != "" && !isServiceURL(o.baseURL):
		return c.misuse(stderr, fmt.Sprintf("--base-url %q must be an http(s) URL like http://127.0.0.1:8080", o.baseURL))
	}
	if e := citecheck.LookupTool(pos[0], pos[1]); e != nil {
		return report(stdout, stderr, nil, citecheck.AsError(e))
	}
	text := o.format == "text"
	html := o.format == "html"
	if html { // the page shows every citation, each failing one explained
		o.all, o.explain = true, true
	}
	color := text && (o.color == "always" || o.color == "auto" && isTerminal(stdout) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb")
	if o.jsonl {
		in, size, closeIn, e := openInput(o.input, stdin)
		if e != nil {
			return report(stdout, stderr, nil, e)
		}
		defer closeIn()
		return runBulk(ctx, in, stdout, stderr, bulkOptions{
			all: o.all || o.explain || o.fix, explain: o.explain, fix: o.fix, text: text, html: html, name: o.input, color: color, size: size,
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
				return report(stdout, stderr, nil, citecheck.AsError(e))
			}
			return report(stdout, stderr, citecheck.CheckParallel(req, runtime.GOMAXPROCS(0)), nil)
		}
		if html {
			return runHTML(body, o.input, stdout, stderr)
		}
		return runExtended(body, o.all, o.explain, text, color, stdout, stderr)
	})
}

// isServiceURL reports whether u can be the base of the service's routes:
// http or https, with a host, and nothing the routes cannot follow.
func isServiceURL(u string) bool {
	p, err := url.Parse(u)
	return err == nil && (p.Scheme == "http" || p.Scheme == "https") && p.Host != "" && p.RawQuery == "" && p.Fragment == ""
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
			failedLine(stderr, a.all)
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

// runHTML answers one request with the HTML report (--format html): every
// citation, each failing one explained, on one page; a refused request is
// one item, its outcome "error". Standard error and the exit status are
// those of --explain.
func runHTML(body []byte, name string, stdout, stderr io.Writer) int {
	a := evaluate(body, true, true)
	stdout.Write(runPage(name, a.appendItems(nil, 0)))
	if a.err != nil {
		return exitStatus(nil, a.err, stderr)
	}
	if !a.all.Valid {
		failedLine(stderr, a.all)
		return exitFailed
	}
	return exitValid
}

// failedLine writes the line --all, --explain and --format html put on
// standard error when a citation fails: how many, and the first, its id
// written by idForTerminal.
func failedLine(stderr io.Writer, all *citecheck.AllResult) {
	first := all.FirstFailure()
	fmt.Fprintf(stderr, "citecheck: %d of %d citations failed; the first, %d (%s): %s\n",
		all.Failed, len(all.Citations), first.CitationIndex, idForTerminal(first.CitationID), first.Reason)
}

// idForTerminal is a request's id as a message on a terminal writes it:
// a JSON string, and within it as \uXXXX every code point a terminal or
// a bidi algorithm would act on (C0 and C1 controls, DEL, the bidi
// formatting characters, the line and paragraph separators), so that an
// id never moves the cursor, sets a title or reorders the line. The npm
// package's bin writes it alike (js/bin/citecheck.js idForTerminal).
func idForTerminal(id string) string {
	b := jsonenc.AppendString(nil, id)
	var out strings.Builder
	for _, r := range string(b) {
		if r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0x061c || r == 0x200e || r == 0x200f ||
			r == 0x2028 || r == 0x2029 || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
			fmt.Fprintf(&out, "\\u%04x", r)
			continue
		}
		out.WriteRune(r)
	}
	return out.String()
}

// appendItems appends the HTML report's items of the answer: one per
// citation, or one "error" item for a refused request; line is the
// request's line with --jsonl, 0 for a run of one request.
func (a answered) appendItems(dst []reportpkg.Item, line int) []reportpkg.Item {
	if a.err != nil {
		return append(dst, reportpkg.RunErrorItem(a.err, line))
	}
	return reportpkg.AppendRunItems(dst, a.req, a.all, a.ex, line)
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
		return answered{err: citecheck.AsError(e)}
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

// openInput opens the input without reading it, and returns its size when
// it is a regular file (for progress and for reading it in one buffer),
// else 0. A file that cannot be opened and a directory are alike usage
// errors (spec §4.4), found before anything is written.
func openInput(name string, stdin io.Reader) (io.Reader, int64, func(), *citecheck.Error) {
	r, closer, what := stdin, func() {}, "standard input"
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, 0, nil, &citecheck.Error{Code: citecheck.CodeUsage, Message: "cannot read --input: " + err.Error()}
		}
		r, closer, what = f, func() { f.Close() }, name
	}
	var size int64
	if f, ok := r.(*os.File); ok {
		st, err := f.Stat()
		switch {
		case err == nil && st.IsDir():
			closer()
			return nil, 0, nil, &citecheck.Error{Code: citecheck.CodeUsage, Message: "cannot read --input: " + what + " is a directory"}
		case err == nil && st.Mode().IsRegular():
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
		fmt.Fprintf(stderr, "citecheck: citation %d (%s) failed: %s\n", d.CitationIndex, idForTerminal(d.CitationID), res.Reason)
		return exitFailed
	}
	return exitValid
}
