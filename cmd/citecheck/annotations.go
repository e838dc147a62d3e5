package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/annotation"
)

const annotationsUsage = `usage:
  citecheck annotations [--source IRI=FILE]... [--sources MANIFEST] [--html] [--max-source-size SIZE] [--format json|text] [--fix] [--output FILE] [FILE|-]
      --source            the text of the document at IRI (repeatable); .html/.htm files are read as their body's textContent
      --sources           a manifest of sources: JSON [{"iri":…,"file":…,"version":…}] or TSV lines IRI<TAB>FILE[<TAB>VERSION]
      --html              read every source as HTML, whatever its extension
      --format            json (one object per annotation, in input order) or text
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
	case format != "json" && format != "text":
		return annotationsUsageError(stderr, "--format is json or text")
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
	st, err := checkAnnotations(ctx, in, out, checker, fix, format == "text")
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
// item (or, with fix, the input with the repaired annotations in place).
func checkAnnotations(ctx context.Context, in io.Reader, out io.Writer, c *annotation.Checker, fix, text bool) (*annotationStats, error) {
	st := &annotationStats{by: map[annotation.Outcome]int{}, afterFix: map[annotation.Outcome]int{}, missing: map[string]int{}}
	sc := annotation.NewScanner(in)
	if fix {
		sc.Rewriting()
	}
	var buf []byte
	err := c.Stream(ctx, sc, func(it annotation.Item, r *annotation.Report) error {
		buf = buf[:0]
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
	missing    map[string]int // IRIs not supplied, and how many targets name them
	fixErrors  []string       // with --fix, the first error items, for stderr
	badSources []string       // why each source that could not be read was not
}

func (s *annotationStats) add(r *annotation.Report) {
	s.by[r.Outcome]++
	s.afterFix[r.Outcome]++
	for j, t := range r.Targets {
		if t.Outcome == annotation.NoSource {
			s.missing[r.Annotation.Targets[j].Source]++
		}
	}
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
	for i, e := range s.badSources {
		if i == 5 {
			fmt.Fprintf(&b, "  and %d more sources could not be read\n", len(s.badSources)-5)
			break
		}
		fmt.Fprintf(&b, "  source not read: %s\n", e)
	}
	if len(s.missing) > 0 {
		iris := make([]string, 0, len(s.missing))
		for iri := range s.missing {
			iris = append(iris, iri)
		}
		slices.Sort(iris)
		b.WriteString("  sources not supplied:")
		for i, iri := range iris {
			if i == 5 {
				fmt.Fprintf(&b, " and %d more", len(iris)-5)
				break
			}
			fmt.Fprintf(&b, " %q (%d targets)", iri, s.missing[iri])
		}
		b.WriteByte('\n')
	}
	io.WriteString(w, b.String())
}

// defaultMaxSourceBytes is --max-source-size' default: far above a real
// document's text (a long book is a few MiB), far below what would
// exhaust memory.
const defaultMaxSourceBytes = 64 << 20

// loadSources reads the --source files and the manifest's. Every file is
// read as UTF-8 exactly: nothing is repaired or normalized. A file that
// cannot be read (missing, over maxBytes, not UTF-8, HTML nested too deep)
// is a source with its Err set: the annotations on it fail with the reason,
// the others are checked. The error returned is the command line's or the
// manifest's.
func loadSources(specs []string, manifest string, asHTML bool, maxBytes int64) ([]annotation.Source, error) {
	type entry struct{ iri, file, version string }
	var entries []entry
	for _, s := range specs {
		// An IRI may hold '=' (a query): the file name is after the last one.
		i := strings.LastIndex(s, "=")
		if i <= 0 || i == len(s)-1 {
			return nil, fmt.Errorf("--source %q: want IRI=FILE", s)
		}
		entries = append(entries, entry{s[:i], s[i+1:], ""})
	}
	if manifest != "" {
		m, err := readManifest(manifest)
		if err != nil {
			return nil, err
		}
		for _, e := range m {
			entries = append(entries, entry{e[0], e[1], e[2]})
		}
	}
	sources := make([]annotation.Source, 0, len(entries))
	for _, e := range entries {
		s := annotation.Source{IRI: e.iri, Version: e.version}
		s.Text, s.Err = readSourceText(e.file, asHTML, maxBytes)
		sources = append(sources, s)
	}
	return sources, nil
}

// readSourceText reads a source file as UTF-8 (see readText), and an HTML
// file (by its extension, or all with --html) as its body's textContent.
// A regular file larger than maxBytes is refused before it is read.
func readSourceText(file string, asHTML bool, maxBytes int64) (string, *citecheck.Error) {
	fail := func(e *citecheck.Error) (string, *citecheck.Error) {
		e.Message = file + ": " + e.Message
		return "", e
	}
	f, err := os.Open(file)
	if err != nil {
		return fail(&citecheck.Error{Code: citecheck.CodeInternal, Message: errors.Unwrap(err).Error()})
	}
	defer f.Close()
	size := int64(-1)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		if size = fi.Size(); size > maxBytes {
			return fail(overSourceBound(maxBytes))
		}
	}
	b, e := readText(f, size, maxBytes)
	if e != nil {
		return fail(e)
	}
	if !isHTML(file, asHTML) {
		return string(b), nil
	}
	text, err := htmlBodyText(b)
	if err != nil {
		return fail(&citecheck.Error{Code: citecheck.CodeInvalidInput, Message: err.Error()})
	}
	return text, nil
}

func overSourceBound(maxBytes int64) *citecheck.Error {
	return &citecheck.Error{Code: citecheck.CodeLimitExceeded, Message: fmt.Sprintf("larger than --max-source-size (%s)", byteSize{&maxBytes})}
}

// readText reads r to its end as UTF-8, validating each read as it comes:
// it reads at most maxBytes+1 bytes (limit_exceeded past maxBytes), and
// stops at the first byte that is not UTF-8 (invalid_input naming it), so
// that an endless or binary source is never read whole. size is r's
// length when known (-1 otherwise), to allocate once. Cost: linear in the
// bytes read; memory, those bytes (the buffer doubles, never past the
// bound).
func readText(r io.Reader, size, maxBytes int64) ([]byte, *citecheck.Error) {
	if size < 0 {
		size = 64 << 10
	} else {
		size++ // room to see the end
	}
	b := make([]byte, 0, min(size, maxBytes+1))
	r = io.LimitReader(r, maxBytes+1)
	valid := 0 // b[:valid] is checked UTF-8; the rest may be a rune cut by the read
	for {
		if len(b) == cap(b) { // doubling, but never past the bound
			b = slices.Grow(b, int(min(int64(len(b)), maxBytes+1-int64(len(b)))))
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		eof := err == io.EOF
		if err != nil && !eof {
			return nil, &citecheck.Error{Code: citecheck.CodeInternal, Message: fmt.Sprintf("reading: %v", err)}
		}
		if int64(len(b)) > maxBytes {
			return nil, overSourceBound(maxBytes)
		}
		v, bad := validPrefix(b[valid:], eof)
		valid += v
		if bad {
			return nil, &citecheck.Error{Code: citecheck.CodeInvalidInput, Message: fmt.Sprintf("not UTF-8: invalid byte 0x%02X at byte offset %d", b[valid], valid)}
		}
		if eof {
			return b, nil
		}
	}
}

// validPrefix returns how many bytes of b are whole valid UTF-8 runes,
// and whether the byte after them is invalid (rather than the start of a
// rune the next read completes; at eof, nothing is to come).
func validPrefix(b []byte, eof bool) (int, bool) {
	cut := len(b)
	if !eof { // leave a rune the read may have cut for the next round
		for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
			if utf8.RuneStart(b[i]) {
				if !utf8.FullRune(b[i:]) {
					cut = i
				}
				break
			}
		}
	}
	if utf8.Valid(b[:cut]) {
		return cut, false
	}
	i := invalidAt(b[:cut])
	return i, true
}

// isHTML reports whether the source file is read as HTML: by its
// extension, or every one with --html.
func isHTML(file string, asHTML bool) bool {
	switch strings.ToLower(filepath.Ext(file)) {
	case ".html", ".htm":
		return true
	}
	return asHTML
}

// invalidAt returns the offset of the first byte of b that does not start
// a valid UTF-8 sequence.
func invalidAt(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(b)
}

// readManifest reads a sources manifest: a JSON array of {"iri", "file",
// "version"} objects, or TSV lines IRI, file and an optional version
// (blank lines and lines starting with # are skipped). Files are relative
// to the manifest's directory. It returns (iri, file, version) triples.
func readManifest(name string) ([][3]string, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(name)
	rel := func(f string) string {
		if filepath.IsAbs(f) {
			return f
		}
		return filepath.Join(dir, f)
	}
	var out [][3]string
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		var items []struct {
			IRI     string `json:"iri"`
			File    string `json:"file"`
			Version string `json:"version"`
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&items); err != nil {
			return nil, fmt.Errorf("manifest %s: %v", name, err)
		}
		for i, it := range items {
			if it.IRI == "" || it.File == "" {
				return nil, fmt.Errorf("manifest %s: item %d needs \"iri\" and \"file\"", name, i)
			}
			out = append(out, [3]string{it.IRI, rel(it.File), it.Version})
		}
		return out, nil
	}
	for n, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSuffix(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) < 2 || len(f) > 3 || f[0] == "" || f[1] == "" {
			return nil, fmt.Errorf("manifest %s: line %d: want IRI<TAB>FILE[<TAB>VERSION]", name, n+1)
		}
		f = append(f, "")
		out = append(out, [3]string{f[0], rel(f[1]), f[2]})
	}
	return out, nil
}
