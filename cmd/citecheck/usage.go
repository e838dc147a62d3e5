package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// How each command meets a user who asks for help or gets it wrong (spec
// §4.4): `CMD --help` (or -h) prints that command's usage, every flag it
// takes with its default, on standard output and exits 0; a wrong command
// line prints one line saying what is wrong, then that command's usage
// (not the general one), on standard error and exits 2, with nothing on
// standard output.

// command is one subcommand as its usage describes it.
type command struct {
	name     string        // "run", "serve", …
	synopsis string        // the line(s) after "usage: "
	about    string        // what it does, a sentence or two
	flags    *flag.FlagSet // its flags; none when it has no Flags
}

// newCommand returns the command with an empty flag set of its own, which
// reports nothing itself: help and errors are written by the command.
func newCommand(name, synopsis, about string) *command {
	fs := flag.NewFlagSet("citecheck "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &command{name: name, synopsis: synopsis, about: about, flags: fs}
}

// writeUsage writes the usage: synopsis, what it does, and every flag of
// the flag set (so a new flag is listed without a second list).
func (c *command) writeUsage(w io.Writer) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", c.synopsis, c.about)
	n := 0
	c.flags.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		fmt.Fprintf(w, "\n%s takes no flags.\n", c.name)
		return
	}
	io.WriteString(w, "\nflags:\n")
	c.flags.SetOutput(w)
	c.flags.PrintDefaults()
	c.flags.SetOutput(io.Discard)
}

// misuse reports a wrong command line: one line, then the usage.
func (c *command) misuse(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "citecheck: %s\n\n", msg)
	c.writeUsage(stderr)
	return exitError
}

// parse parses args, with flags before, between or after the positional
// arguments when interspersed (as `run TOOL VERSION --input F` needs).
// When it returns done, the command is over with exit status code: help
// was asked for and printed, or the flags were wrong and that was said.
func (c *command) parse(args []string, interspersed bool, stdout, stderr io.Writer) (pos []string, code int, done bool) {
	var err error
	if interspersed {
		pos, err = parseInterspersed(c.flags, args)
	} else {
		err = c.flags.Parse(args)
		pos = c.flags.Args()
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		c.writeUsage(stdout)
		return nil, exitValid, true
	case err != nil:
		return nil, c.misuse(stderr, c.name+": "+err.Error()), true
	}
	return pos, 0, false
}

// noArguments parses the command line of a command that takes neither
// flags nor arguments (contract, mcp, version), with --help.
func (c *command) noArguments(args []string, stdout, stderr io.Writer) (code int, done bool) {
	pos, code, done := c.parse(args, false, stdout, stderr)
	if !done && len(pos) > 0 {
		return c.misuse(stderr, fmt.Sprintf("%s takes no arguments, got %q", c.name, pos[0])), true
	}
	return code, done
}

// parseInterspersed parses flags that may stand before, between or after
// the positional arguments.
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

// generalUsage is `citecheck help`: every command in one screen.
const generalUsage = `usage:
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
  citecheck quotes [--source ID=FILE]... [--sources MANIFEST] [--request FILE] [--format json|text|html] [--explain] [FILE|-]
                                check every quotation of a report, a structured answer or an Anthropic response
  citecheck contract            print the embedded contract JSON
  citecheck serve [--addr HOST:PORT] [flags]   the HTTP service
      every flag also from CITECHECK_<FLAG> (CITECHECK_ADDR, CITECHECK_MAX_IN_FLIGHT, …); a flag wins
  citecheck version             the module version and VCS revision of this build
  citecheck mcp                 MCP over stdio, for desktop clients
  citecheck pipe                the framed protocol the Python package drives (docs/python.md)
  citecheck help COMMAND        that command's usage and every flag (also: citecheck COMMAND --help)`

// cmdHelp is `citecheck help [COMMAND]`.
func cmdHelp(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		fmt.Fprintln(stdout, generalUsage)
		return exitValid
	case len(args) > 1:
		return generalMisuse(stderr, fmt.Sprintf("help takes one command, got %s", strings.Join(args, " ")))
	case args[0] == "annotations":
		fmt.Fprintln(stdout, annotationsUsage)
		return exitValid
	}
	c, ok := commands()[args[0]]
	if !ok {
		return generalMisuse(stderr, fmt.Sprintf("unknown command %q", args[0]))
	}
	c.writeUsage(stdout)
	return exitValid
}

// generalMisuse reports a command line wrong before any command: one line,
// then the general usage.
func generalMisuse(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "citecheck: %s\n\n%s\n", msg, generalUsage)
	return exitError
}

// commands are the commands with a flag set of their own, as `help`
// shows them; building one is building its flag set, nothing more.
func commands() map[string]*command {
	run, _ := runCommand()
	serve, _ := serveCommand()
	quotes, _ := quotesCommand()
	pipe, _ := pipeCommand()
	return map[string]*command{
		"run":      run,
		"serve":    serve,
		"quotes":   quotes,
		"contract": contractCommand(),
		"mcp":      mcpCommand(),
		"pipe":     pipe,
		"version":  versionCommand(),
	}
}
