package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/quotes"
	reportpkg "github.com/citecheck/citecheck/report"
)

// quotesOptions are the flags of `citecheck quotes`.
type quotesOptions struct {
	specs             []string
	manifest, request string
	format, color     string
	explain, asHTML   bool
	maxSource         int64
}

func quotesCommand() (*command, *quotesOptions) {
	c := newCommand("quotes",
		"citecheck quotes [--source ID=FILE]... [--sources MANIFEST] [--request FILE] [--format json|text|html] [--explain] [FILE|-]",
		"Checks every quotation of a report (Markdown or plain text), every citation of a structured answer\n"+
			`({"citations": [{"source_id", "quote"}]}) or of an Anthropic Messages response against the sources,`+"\n"+
			"and prints one JSON line per quotation: no_source, verbatim, moved, elsewhere, near, not_found or\n"+
			"not_checked (docs/quotes.md); --format html writes one self-contained page for people instead\n"+
			"(docs/report-html.md). Exit 0 when every one is verbatim, 1 otherwise, 2 for bad input.")
	o := &quotesOptions{maxSource: defaultMaxSourceBytes}
	fs := c.flags
	fs.Func("source", "the text of source `ID=FILE` (repeatable); .html/.htm files are read as their body's textContent", func(v string) error {
		o.specs = append(o.specs, v)
		return nil
	})
	fs.StringVar(&o.manifest, "sources", "", "a `MANIFEST` of sources: TSV lines ID<TAB>FILE (files relative to it), or JSON [{\"iri\":…,\"file\":…}]")
	fs.StringVar(&o.request, "request", "", "for an Anthropic response: the Messages request `FILE` it answered, whose documents are sources \"0\", \"1\", …")
	fs.StringVar(&o.format, "format", "json", "json (one object per quotation, in order), text (a report for people) or html (one self-contained page for people: the report with each quotation marked, and the source beside it)")
	fs.StringVar(&o.color, "color", "auto", "colour the text report: auto (on a terminal, unless NO_COLOR is set), always or never")
	fs.BoolVar(&o.explain, "explain", false, "give each failing quotation the fix the checks determine: a marker, a span or the source's words")
	fs.BoolVar(&o.asHTML, "html", false, "read every source as HTML, whatever its extension")
	fs.Var(byteSize{&o.maxSource}, "max-source-size", "the most the input, the request or a source file may hold (bytes, or with KiB, MiB, GiB)")
	return c, o
}

// cmdQuotes is `citecheck quotes` (spec §5.13). Exit statuses: 0 every
// quotation is verbatim, 1 some are not, 2 bad input or command line.
func cmdQuotes(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c, o := quotesCommand()
	pos, code, done := c.parse(args, true, stdout, stderr)
	switch {
	case done:
		return code
	case len(pos) > 1:
		return c.misuse(stderr, "quotes takes one input file (or - for standard input)")
	case o.format != "json" && o.format != "text" && o.format != "html":
		return c.misuse(stderr, "--format is json, text or html")
	case o.color != "auto" && o.color != "always" && o.color != "never":
		return c.misuse(stderr, "--color is auto, always or never")
	case len(o.specs) == 0 && o.manifest == "" && o.request == "":
		return c.misuse(stderr, "quotes needs sources: --source ID=FILE, --sources MANIFEST or, for an Anthropic response, --request FILE")
	}
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "citecheck: "+format+"\n", args...)
		return exitError
	}
	name := stdinName
	in := stdin
	if len(pos) == 1 && pos[0] != "-" {
		name = pos[0]
		f, err := os.Open(name)
		if err != nil {
			return fail("%v", err)
		}
		defer f.Close()
		in = f
	}
	input, err := readAllBounded(in, o.maxSource)
	if err != nil {
		return fail("%s: %v", name, err)
	}
	shape, err := quotes.Detect(input)
	if err != nil {
		return fail("%s: %s", name, message(err))
	}
	if o.request != "" && shape != quotes.Anthropic {
		return c.misuse(stderr, fmt.Sprintf("--request is the request an Anthropic response answered; %s is a %s", name, shape))
	}
	var sources []quotes.Source
	var docs []quotes.Document
	if o.request != "" {
		f, err := os.Open(o.request)
		if err != nil {
			return fail("--request: %v", err)
		}
		b, err := readAllBounded(f, o.maxSource)
		f.Close()
		if err != nil {
			return fail("--request %s: %v", o.request, err)
		}
		docs, err = quotes.ReadRequest(b)
		if err != nil {
			return fail("--request %s: %s", o.request, message(err))
		}
		sources = quotes.Sources(docs)
	}
	files, err := loadSourceFiles(o.specs, "ID", o.manifest, o.asHTML, o.maxSource)
	if err != nil {
		return fail("%v", err)
	}
	for _, f := range files {
		if f.err != nil {
			return fail("source %q: %s", f.id, f.err.Message)
		}
		sources = append(sources, quotes.Source{ID: f.id, Text: f.text})
	}
	text := o.format == "text"
	q := quotesRun{
		Run:   quotes.Run{Shape: shape, Input: input, Name: name, Documents: docs, Sources: sources, Explain: o.explain},
		text:  text,
		html:  o.format == "html",
		color: text && (o.color == "always" || o.color == "auto" && isTerminal(stdout) && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"),
	}
	counts, stopped := q.write(ctx, stdout)
	if stopped != nil {
		return fail("%s", stopped.Message)
	}
	quotesSummary(stderr, counts)
	if counts[quotes.Verbatim] != sum(counts) {
		return exitFailed
	}
	return exitValid
}

// quotesRun is one run of `quotes` over inputs held in memory (the
// checks and the lines are quotes.Run's, shared with the pipe and the
// JavaScript package), written as JSON lines or the text report.
type quotesRun struct {
	quotes.Run
	text  bool // the text report instead of JSON lines
	html  bool // the HTML report instead of JSON lines
	color bool // colour the text report
}

// write checks every quotation of the input and writes what `quotes`
// prints on standard output, returning the counts per outcome (indexed
// by quotes.Outcome). An error is why the run stopped, its message the
// command's words after "citecheck: ": what was checked before it is
// written (the HTML report's one page, written at the end, holds the
// quotations checked). Cost: quotes.Run.Each's; the run holds its input, its
// quotations and one batch's results and output, and for the HTML
// report every quotation's item (report.Item: its text, its words and
// at most two passages of 2×report.ExcerptContext code points of context
// each, a few KiB) and the page (its HTML, the input once more as text,
// and each item's markup): memory O(input + quotations), for people's
// batches; JSON lines hold one batch whatever the count.
func (q *quotesRun) write(ctx context.Context, stdout io.Writer) ([]int, *citecheck.Error) {
	ropts := reportpkg.Options{Color: q.color}
	out := bufio.NewWriterSize(stdout, 64<<10)
	var buf []byte
	var page *reportpkg.Page
	if q.html {
		name := q.Name
		if name == stdinName {
			name = "-" // as report.Document names standard input
		}
		page = quotes.NewHTMLPage(name, q.Shape, q.Input)
	}
	counts, stopped := q.Each(ctx, func(a *quotes.Answer) {
		if q.html {
			page.Items = a.AppendHTMLItems(page.Items)
			return
		}
		if q.text {
			buf = a.AppendTextResults(buf[:0], ropts)
		} else {
			buf = a.AppendLines(buf[:0])
		}
		out.Write(buf)
	})
	if q.html && (stopped == nil || len(page.Items) > 0) {
		// An input refused before any check prints nothing, as for JSON.
		out.Write(reportpkg.AppendHTML(nil, page))
	}
	if stopped != nil {
		// What was checked is written; the error says why the rest is not.
		out.Flush()
		return counts, stopped
	}
	if q.text {
		out.Write(quotes.AppendTextVerdict(nil, counts, ropts))
	}
	if err := out.Flush(); err != nil {
		return counts, &citecheck.Error{Code: citecheck.CodeInternal, Message: fmt.Sprintf("writing the output: %v", err)}
	}
	return counts, nil
}

// stdinName is standard input's name in messages.
const stdinName = "standard input"

func sum(counts []int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// message is an error's message: a *citecheck.Error's own, without its code.
func message(err error) string {
	var ce *citecheck.Error
	if errors.As(err, &ce) {
		return ce.Message
	}
	return err.Error()
}

// readAllBounded reads r to its end, refusing more than maxBytes.
func readAllBounded(r io.Reader, maxBytes int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxBytes+1))
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	if int64(len(b)) > maxBytes {
		return nil, errors.New(overSourceBound(maxBytes).Message)
	}
	return b, nil
}

// quotesSummary writes the counts per outcome (indexed by
// quotes.Outcome) to stderr; stdout stays pure.
func quotesSummary(w io.Writer, counts []int) {
	var b strings.Builder
	fmt.Fprintf(&b, "citecheck: %d quotations:", sum(counts))
	for i, o := range quotes.Outcomes() {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s %d %s", sep, counts[o], o)
	}
	b.WriteByte('\n')
	io.WriteString(w, b.String())
}
