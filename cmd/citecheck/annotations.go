package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/annotation"
	reportpkg "github.com/citecheck/citecheck/report"
)

const annotationsUsage = `usage:
  citecheck annotations [--source IRI=FILE]... [--source =FILE] [--sources MANIFEST] [--html] [--max-source-size SIZE] [--format json|text|html] [--fix] [--output FILE] [FILE|-]
      --source            the text of the document at IRI (repeatable); .html/.htm files are read as their body's textContent;
                          =FILE, with no IRI, the text of the targets that name no source
      --sources           a manifest of sources: JSON [{"iri":…,"file":…,"version":…}] or TSV lines IRI<TAB>FILE[<TAB>VERSION]
      --html              read every source as HTML, whatever its extension
      --format            json (one object per annotation, in input order), text, or html (one self-contained page a person reads)
      --max-source-size   the most a source file may hold (bytes, or with KiB, MiB, GiB; default 64MiB)
      --fix               write the annotations back with repaired selectors, every other byte as it was
      --output            write to FILE (through a temporary file renamed into place; FILE may be the input) instead of standard output`

// cmdAnnotations checks an annotation store's export against the sources
// it annotates (docs/annotations.md). Exit statuses: 0 every annotation is
// anchored (with --fix: once repaired), 1 some are not, 2 an error.
func cmdAnnotations(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	var (
		specs            []string
		manifest, format string
		asHTML, fix      bool
		output           string
		maxSource        int64 = defaultMaxSourceBytes
	)
	fs := flag.NewFlagSet("citecheck annotations", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Func("source", "IRI=FILE", func(v string) error { specs = append(specs, v); return nil })
	fs.StringVar(&manifest, "sources", "", "a manifest of sources")
	fs.BoolVar(&asHTML, "html", false, "read every source as HTML")
	fs.StringVar(&format, "format", "json", "json or text")
	fs.BoolVar(&fix, "fix", false, "write the annotations back repaired")
	fs.StringVar(&output, "output", "", "write to FILE instead of standard output")
	fs.Var(byteSize{&maxSource}, "max-source-size", "the most a source file may hold")
	pos, err := parseInterspersed(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprintln(stdout, annotationsUsage)
		return exitValid
	case err != nil:
		return annotationsUsageError(stderr, err.Error())
	case len(pos) > 1:
		return annotationsUsageError(stderr, "annotations takes one input file (or - for standard input)")
	case format != "json" && format != "text" && format != "html":
		return annotationsUsageError(stderr, "--format is json, text or html")
	case fix && format != "json":
		return annotationsUsageError(stderr, "--fix writes the annotations themselves; --format does not apply")
	}
	sources, err := loadSources(specs, manifest, asHTML, maxSource)
	if err != nil {
		fmt.Fprintf(stderr, "citecheck: %v\n", err)
		return exitError
	}
	checker, err := annotation.NewChecker(sources, citecheck.DefaultLimits())
	if err != nil {
		fmt.Fprintf(stderr, "citecheck: %v\n", err)
		return exitError
	}
	checker.Locate = fix
	in := stdin
	if len(pos) == 1 && pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			fmt.Fprintf(stderr, "citecheck: %v\n", err)
			return exitError
		}
		defer f.Close()
		in = f
	}
	dest, err := newDestination(output, stdout, fix)
	if err != nil {
		fmt.Fprintf(stderr, "citecheck: %v\n", err)
		return exitError
	}
	out := bufio.NewWriterSize(dest, 64<<10)
	name := "-"
	if len(pos) == 1 {
		name = pos[0]
	}
	st, err := checkAnnotations(ctx, in, out, checker, fix, format)
	if err == nil && format == "html" {
		_, err = out.Write(annotationsPage(name, st.items))
	}
	if ferr := out.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("writing the output: %w", ferr)
	}
	if err == nil {
		err = dest.commit()
	}
	dest.discard()
	for _, s := range sources {
		if s.Err != nil {
			st.badSources = append(st.badSources, s.Err.Message)
		}
	}
	st.summary(stderr, fix)
	switch {
	case err != nil:
		if fix || output != "" {
			fmt.Fprintf(stderr, "citecheck: %v; nothing was written\n", err)
		} else {
			fmt.Fprintf(stderr, "citecheck: %v\n", err)
		}
		return exitError
	case st.errors > 0 || len(st.badSources) > 0:
		return exitError
	case st.notAnchored() > 0:
		return exitFailed
	}
	return exitValid
}

func annotationsUsageError(stderr io.Writer, msg string) int {
	fmt.Fprintf(stderr, "citecheck: %s\n%s\n", msg, annotationsUsage)
	return exitError
}

// checkAnnotations streams the input through the checker in batches
// (annotation.Checker.Stream) and writes, in input order, one report per
// item in format ("json" or "text"; or, with fix, the input with the
// repaired annotations in place). With format "html" it writes nothing
// and gathers each item's report.Item in st.items, for the one page the
// caller writes at the end.
func checkAnnotations(ctx context.Context, in io.Reader, out io.Writer, c *annotation.Checker, fix bool, format string) (*annotationStats, error) {
	st := &annotationStats{by: map[annotation.Outcome]int{}, afterFix: map[annotation.Outcome]int{}, missing: annotation.Missing{}}
	text := format == "text"
	var items *annotation.HTMLItems
	if format == "html" && !fix {
		items = c.HTMLItems()
	}
	sc := annotation.NewScanner(in)
	if fix {
		sc.Rewriting()
	}
	var buf []byte
	err := c.Stream(ctx, sc, func(it annotation.Item, r *annotation.Report) error {
		buf = buf[:0]
		if items != nil {
			st.items = items.Append(st.items, it, r)
			if r == nil || r.Err != nil {
				st.errors++
			} else {
				st.add(r)
			}
			return nil
		}
		switch {
		case r != nil && r.Err != nil: // on a source that could not be read
			st.errors++
			switch {
			case fix && len(st.fixErrors) < 10: // the output is the file itself: say it on stderr
				st.fixErrors = append(st.fixErrors, string(r.AppendText(nil, it.Index)))
			case fix:
			case text:
				buf = r.AppendText(buf, it.Index)
			default:
				buf = annotation.AppendJSONLine(buf, it, r)
			}
		case r == nil:
			st.errors++
			if fix && len(st.fixErrors) < 10 { // the output is the file itself: say it on stderr
				st.fixErrors = append(st.fixErrors, string(annotation.AppendErrorText(nil, it)))
			}
			if !fix {
				if text {
					buf = annotation.AppendErrorText(buf, it)
				} else {
					buf = annotation.AppendJSONLine(buf, it, nil)
				}
			}
		default:
			st.add(r)
			switch {
			case fix:
				if err := writeRepaired(sc, out, r, st); err != nil {
					return err
				}
			case text:
				buf = r.AppendText(buf, it.Index)
			default:
				buf = annotation.AppendJSONLine(buf, it, r)
			}
		}
		if _, err := out.Write(buf); err != nil {
			return fmt.Errorf("writing the output: %w", err)
		}
		return nil
	})
	if err == nil && fix {
		err = sc.Finish(out)
	}
	if st.part, st.partial = sc.Part(); st.partial && text && err == nil {
		if _, werr := io.WriteString(out, st.part.Words()+"\n"); werr != nil {
			err = fmt.Errorf("writing the output: %w", werr)
		}
	}
	return st, err
}

// writeRepaired copies the annotation out, rewritten when a target has a
// repair, and counts it as it now stands.
func writeRepaired(sc *annotation.Scanner, out io.Writer, r *annotation.Report, st *annotationStats) error {
	repairs, after := r.Repairs()
	if repairs == nil {
		return sc.CopyThrough(out, r.Annotation)
	}
	fixed, err := r.Annotation.RewriteChecked(repairs)
	if err != nil {
		return err
	}
	st.repaired++
	st.afterFix[r.Outcome]--
	st.afterFix[after]++
	return sc.Replace(out, r.Annotation, fixed)
}

// annotationStats counts the outcomes for the summary and the exit status.
type annotationStats struct {
	by         map[annotation.Outcome]int // outcomes as checked
	afterFix   map[annotation.Outcome]int // outcomes once repaired (with --fix)
	errors     int
	repaired   int
	missing    annotation.Missing // IRIs not supplied, and how many targets name them
	fixErrors  []string           // with --fix, the first error items, for stderr
	badSources []string           // why each source that could not be read was not
	part       annotation.Part    // what the input says of the whole it is part of
	partial    bool               // the input is one page of a collection
	items      []reportpkg.Item   // with --format html, every item's, in input order
}

func (s *annotationStats) add(r *annotation.Report) {
	s.by[r.Outcome]++
	s.afterFix[r.Outcome]++
	s.missing.Add(r)
}

func (s *annotationStats) total() int {
	n := 0
	for _, k := range s.by {
		n += k
	}
	return n
}

// notAnchored counts the annotations that do not anchor in what was
// written: as checked, or with --fix once repaired.
func (s *annotationStats) notAnchored() int {
	return s.total() - s.afterFix[annotation.Anchored]
}

// summary writes the counts per outcome to stderr; stdout stays pure.
func (s *annotationStats) summary(w io.Writer, fix bool) {
	var b strings.Builder
	fmt.Fprintf(&b, "citecheck: %d annotations:", s.total())
	for i, o := range annotation.Outcomes() {
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(&b, "%s %d %s", sep, s.by[o], o)
	}
	fmt.Fprintf(&b, "; %d errors\n", s.errors)
	if fix {
		fmt.Fprintf(&b, "  --fix repaired %d; %d anchor as written, %d still do not\n", s.repaired, s.afterFix[annotation.Anchored], s.notAnchored())
		for _, e := range s.fixErrors {
			b.WriteString("  " + e) // written back unchanged
		}
	}
	if s.partial {
		b.WriteString("  " + s.part.Words() + "\n")
	}
	for i, e := range s.badSources {
		if i == 5 {
			fmt.Fprintf(&b, "  and %d more sources could not be read\n", len(s.badSources)-5)
			break
		}
		fmt.Fprintf(&b, "  source not read: %s\n", e)
	}
	unnamed, named := s.missing.Words("--source =FILE")
	for _, l := range []string{unnamed, named} {
		if l != "" {
			b.WriteString("  " + l + "\n")
		}
	}
	io.WriteString(w, b.String())
}

// loadSources reads the --source files and the manifest's as annotation
// sources (see loadSourceFiles). --source =FILE, with no IRI, is the text
// of the targets that name no source (Hypothesis writes such targets in
// its own fixtures; the W3C model allows a target that is only selectors
// of the annotation's document): the file name is after the last '=', so
// an IRI is never empty otherwise.
func loadSources(specs []string, manifest string, asHTML bool, maxBytes int64) ([]annotation.Source, error) {
	var unnamed []sourceFile
	named := specs[:0:0]
	for _, s := range specs {
		if strings.LastIndex(s, "=") != 0 || len(s) == 1 {
			named = append(named, s)
			continue
		}
		if len(unnamed) > 0 {
			return nil, fmt.Errorf("--source %q: the text of targets without a source is given twice", s)
		}
		f := sourceFile{file: s[1:]}
		f.text, f.err = readSourceText(f.file, asHTML, maxBytes)
		unnamed = append(unnamed, f)
	}
	files, err := loadSourceFiles(named, "IRI", manifest, asHTML, maxBytes)
	if err != nil {
		return nil, err
	}
	files = append(unnamed, files...)
	sources := make([]annotation.Source, len(files))
	for i, f := range files {
		sources[i] = annotation.Source{IRI: f.id, Version: f.version, Text: f.text, Err: f.err}
	}
	return sources, nil
}
