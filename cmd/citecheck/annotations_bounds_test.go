package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/citecheck/citecheck/annotation"
)

// annotationOn is a one-line annotation quoting exact on iri.
func annotationOn(id, iri, exact string) string {
	return `{"id":"` + id + `","target":{"source":"` + iri + `","selector":{"type":"TextQuoteSelector","exact":"` + exact + `"}}}` + "\n"
}

// Each source is read up to --max-source-size, and one that cannot be
// read fails the annotations on it, with the reason, not the others: they
// are checked and written, and the run exits 2.
func TestAnnotationsSourceIsReadUpToItsBound(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	good := write("good.txt", "the old pier stands")
	input := write("two.jsonl", annotationOn("on-good", "urn:good", "old pier")+annotationOn("on-bad", "urn:bad", "x"))
	for _, c := range []struct {
		name, bad, limit, reason, code string
	}{
		{"source-bound/a device without end stops at the bound", "/dev/zero", "1MiB", "/dev/zero: larger than --max-source-size (1MiB)", "limit_exceeded"},
		{"source-bound/a file over the bound is refused before it is read", write("big.txt", strings.Repeat("a", 4097)), "4KiB", "big.txt: larger than --max-source-size (4KiB)", "limit_exceeded"},
		{"source-bound/a file at the bound is read", write("fits.txt", "x"+strings.Repeat("a", 4095)), "4KiB", "", ""},
		{"source-bound/an endless binary device stops at its first bad byte", "/dev/urandom", "1GiB", "not UTF-8: invalid byte", "invalid_input"},
		{"source-bound/a file cut in a rune stops at it", write("cut.txt", "caf\xc3"), "64MiB", "cut.txt: not UTF-8: invalid byte 0xC3 at byte offset 3", "invalid_input"},
		{"source-bound/a missing file", filepath.Join(dir, "nope.txt"), "64MiB", "nope.txt: no such file or directory", "internal"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Stat(c.bad); c.bad[0] == '/' && strings.HasPrefix(c.bad, "/dev/") && err != nil {
				t.Skip(c.bad, " is not here")
			}
			code, lines, _, stderr := annotationsCLI(t, "--max-source-size", c.limit, "--source", "urn:good="+good, "--source", "urn:bad="+c.bad, input)
			if len(lines) != 2 || lines[0].Outcome != "anchored" {
				t.Fatalf("lines %+v: want both, the first anchored", lines)
			}
			if c.reason == "" {
				if code != exitValid || lines[1].Outcome != "anchored" {
					t.Errorf("exit %d, %+v; want the source read", code, lines[1])
				}
				return
			}
			if code != exitError || lines[1].Outcome != "error" || lines[1].Error == nil || !strings.Contains(lines[1].Error.Message, c.reason) || lines[1].Error.Code != c.code {
				t.Errorf("exit %d, line %+v; want exit 2 and the error %s %q", code, lines[1].Error, c.code, c.reason)
			}
			if lines[1].Error != nil && (lines[1].Error.Path != "/target" || lines[1].Pointer != "") {
				t.Errorf("the error points at %q, not the target", lines[1].Error.Path)
			}
			if !strings.Contains(stderr, "source not read: ") || !strings.Contains(stderr, "1 errors") {
				t.Errorf("stderr %q does not say which source was not read", stderr)
			}
		})
	}
	if code, _, _, stderr := annotationsCLI(t, "--max-source-size", "64MB", "--source", "urn:good="+good, input); code != exitError || !strings.Contains(stderr, "64KiB or 64MiB") {
		t.Errorf("a size without a binary unit: exit %d, %q", code, stderr)
	}
}

// One HTML source nested deeper than the HTML parser goes (512 open
// elements) fails that source, not the run.
func TestAnnotationsDeepHTMLFailsOnlyThatSource(t *testing.T) {
	dir := t.TempDir()
	deep := filepath.Join(dir, "deep.html")
	os.WriteFile(deep, []byte("<body>"+strings.Repeat("<div>", 600)+"x"), 0o644)
	good := filepath.Join(dir, "good.txt")
	os.WriteFile(good, []byte("the old pier stands"), 0o644)
	input := filepath.Join(dir, "two.jsonl")
	os.WriteFile(input, []byte(annotationOn("on-good", "urn:good", "old pier")+annotationOn("on-deep", "urn:deep", "x")), 0o644)
	code, lines, _, stderr := annotationsCLI(t, "--source", "urn:good="+good, "--source", "urn:deep="+deep, input)
	if code != exitError || len(lines) != 2 || lines[0].Outcome != "anchored" || lines[1].Outcome != "error" || !strings.Contains(lines[1].Error.Message, "deep.html") {
		t.Errorf("exit %d, lines %+v, stderr %q", code, lines, stderr)
	}
}

// --fix writes the whole repaired export or nothing: input whose last
// bytes are not JSON leaves standard output empty, exit 2 with the reason.
func TestAnnotationsFixWritesAllOrNothing(t *testing.T) {
	src := estuaryIRI + "=" + fixtures + "estuary-v1.txt"
	broken := writeInput(t, readFile(t, fixtures+"hypothesis.jsonl")+`{"id":`)
	r := runCLI(t, nil, "annotations", "--fix", "--source", src, broken)
	if r.code != exitError || r.stdout != "" || !strings.Contains(r.stderr, "not JSON") || !strings.Contains(r.stderr, "nothing was written") {
		t.Errorf("exit %d, %d bytes written, stderr %q; want exit 2, nothing written and the reason", r.code, len(r.stdout), r.stderr)
	}
}

// --output FILE replaces FILE only with the whole output, keeps its mode,
// and FILE may be the input itself; a run that fails leaves FILE as it
// was, and no temporary file behind.
func TestAnnotationsOutputReplacesTheFileWhole(t *testing.T) {
	src := estuaryIRI + "=" + fixtures + "estuary-v1.txt"
	dir := t.TempDir()
	file := filepath.Join(dir, "export.jsonl")
	input := readFile(t, fixtures+"hypothesis.jsonl")
	os.WriteFile(file, []byte(input), 0o640)
	os.Chmod(file, 0o640)
	r := runCLI(t, nil, "annotations", "--fix", "--output", file, "--source", src, file)
	if r.code != exitFailed || r.stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if got, want := readFile(t, file), readFile(t, fixtures+"hypothesis.v1.fixed.golden"); got != want {
		t.Errorf("the file is not the repaired export")
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want 0640 kept", fi.Mode().Perm())
	}
	os.WriteFile(file, []byte(input+"{"), 0o640)
	r = runCLI(t, nil, "annotations", "--fix", "--output", file, "--source", src, file)
	if r.code != exitError || readFile(t, file) != input+"{" {
		t.Errorf("a failed run: exit %d, and the file changed", r.code)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left in the directory: %v", entries)
	}
	// Through a symbolic link: the file it names is replaced, the link kept.
	os.WriteFile(file, []byte(input), 0o640)
	link := filepath.Join(t.TempDir(), "link.jsonl")
	os.Symlink(file, link)
	r = runCLI(t, nil, "annotations", "--fix", "--output", link, "--source", src, link)
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 || readFile(t, file) != readFile(t, fixtures+"hypothesis.v1.fixed.golden") {
		t.Errorf("--output through a link: exit %d, the link replaced or the file not repaired", r.code)
	}
}

// An export that starts with a UTF-8 byte order mark is read, and --fix
// keeps the mark.
func TestAnnotationsByteOrderMarkIsKeptByFix(t *testing.T) {
	src := estuaryIRI + "=" + fixtures + "estuary-v1.txt"
	in := writeInput(t, "\uFEFF"+readFile(t, fixtures+"hypothesis.jsonl"))
	r := runCLI(t, nil, "annotations", "--fix", "--source", src, in)
	if want := "\uFEFF" + readFile(t, fixtures+"hypothesis.v1.fixed.golden"); r.stdout != want || r.code != exitFailed {
		t.Errorf("exit %d, stderr %q; the output is not the mark and the repaired export", r.code, r.stderr)
	}
}

// A target with two TextPositionSelectors, both counted in UTF-16 code
// units, is repaired in both, and the written export re-checks anchored.
func TestAnnotationsFixRepairsEveryPositionSelector(t *testing.T) {
	text := "🌿 the old pier stands"
	dir := t.TempDir()
	src := filepath.Join(dir, "doc.txt")
	os.WriteFile(src, []byte(text), 0o644)
	in := filepath.Join(dir, "in.json")
	os.WriteFile(in, []byte(`{"id":"two","target":[{"source":"urn:doc","selector":[{"type":"TextPositionSelector","start":7,"end":15},`+
		`{"type":"TextQuoteSelector","exact":"old pier"},{"type":"TextPositionSelector","start":7,"end":15}]}]}`), 0o644)
	out := filepath.Join(dir, "out.json")
	r := runCLI(t, nil, "annotations", "--fix", "--output", out, "--source", "urn:doc="+src, in)
	if r.code != exitValid || !strings.Contains(r.stderr, "--fix repaired 1; 1 anchor as written, 0 still do not") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if got := readFile(t, out); strings.Count(got, `"start":6,"end":14`) != 2 {
		t.Errorf("both position selectors should read 6-14: %s", got)
	}
	if code, lines, _, _ := annotationsCLI(t, "--source", "urn:doc="+src, out); code != exitValid || lines[0].Outcome != "anchored" {
		t.Errorf("the written export re-checks %+v (exit %d)", lines, code)
	}
}

// endless is an endless source of text with one bad byte at bad (none
// when bad < 0), counting the bytes read from it, each Read at most step
// bytes.
type endless struct {
	text      string
	bad, read int64
	step      int
}

func (e *endless) Read(p []byte) (int, error) {
	if e.step > 0 && len(p) > e.step {
		p = p[:e.step]
	}
	for i := range p {
		if e.read == e.bad {
			p[i] = 0xFF
		} else {
			p[i] = e.text[e.read%int64(len(e.text))]
		}
		e.read++
	}
	return len(p), nil
}

// A source is validated as it is read: one that is not UTF-8 fails at its
// first bad byte (the first of a rune the bad byte cuts), having read no more than a few buffers past it, however
// long it goes on; an endless one stops at the bound; a rune cut by a read
// is not a bad byte.
func TestAnnotationsSourceFailsAtItsFirstBadByte(t *testing.T) {
	for _, c := range []struct {
		name        string
		src         *endless
		max, most   int64
		code, where string
	}{
		{"utf8/a bad byte after 100 KiB of text", &endless{text: "the tide turns ", bad: 100 << 10}, 1 << 30, 512 << 10, "invalid_input", "invalid byte 0xFF at byte offset 102400"},
		{"utf8/a bad byte at the start", &endless{text: "é", bad: 0}, 1 << 30, 64 << 10, "invalid_input", "invalid byte 0xFF at byte offset 0"},
		{"utf8/a bad byte after a rune cut by every read", &endless{text: "é🌿", bad: 6001, step: 1}, 1 << 30, 64 << 10, "invalid_input", "invalid byte 0xC3 at byte offset 6000"},
		{"utf8/runes cut by every read, then the bound", &endless{text: "é🌿", bad: -1, step: 3}, 300 << 10, 300<<10 + 1, "limit_exceeded", "larger than --max-source-size (300KiB)"},
		{"utf8/endless text stops at the bound", &endless{text: "ab", bad: -1}, 1 << 20, 1<<20 + 1, "limit_exceeded", "larger than --max-source-size (1MiB)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, e := readText(c.src, -1, c.max)
			if e == nil {
				t.Fatalf("read %d bytes without an error", len(b))
			}
			if e.Code != c.code || !strings.Contains(e.Message, c.where) {
				t.Errorf("%s %q; want %s %q", e.Code, e.Message, c.code, c.where)
			}
			if c.src.read > c.most {
				t.Errorf("read %d bytes; want at most %d", c.src.read, c.most)
			}
		})
	}
	// The same runes cut by every read, ending: read whole.
	text := strings.Repeat("é🌿x", 1000)
	b, e := readText(&cut{s: text}, -1, 1<<20)
	if e != nil || string(b) != text {
		t.Errorf("a valid text read a byte at a time: %v, %d bytes of %d", e, len(b), len(text))
	}
}

// cut reads s a byte at a time.
type cut struct{ s string }

func (c *cut) Read(p []byte) (int, error) {
	if c.s == "" {
		return 0, io.EOF
	}
	p[0], c.s = c.s[0], c.s[1:]
	return 1, nil
}

// --fix over every selector combination: the summary counts what was
// repaired and what anchors as written, and re-checking the written export
// finds nothing moved, the same counts, and nothing more to repair.
func TestAnnotationsFixSummaryCountsEveryCombination(t *testing.T) {
	text := "🌿 notes 🌊 at dawn the tide turns; at noon the tide turns again. The old pier 🐟 stands."
	dir := t.TempDir()
	src := filepath.Join(dir, "doc.txt")
	os.WriteFile(src, []byte(text), 0o644)
	// Code point and UTF-16 starts of the n-th occurrence of s.
	at := func(s string, n int) (cp, u16 int) {
		i := 0
		for ; n >= 0; n-- {
			i += strings.Index(text[i:], s) + 1
		}
		before := text[:i-1]
		return utf8.RuneCountInString(before), len(utf16.Encode([]rune(before)))
	}
	pier, pierU := at("old pier", 0)
	_, tideU := at("the tide turns", 1)
	pos := func(s, e int) string { return fmt.Sprintf(`{"type":"TextPositionSelector","start":%d,"end":%d}`, s, e) }
	quote := func(exact string) string { return `{"type":"TextQuoteSelector","exact":"` + exact + `"}` }
	refined := func(sel, by string) string { return strings.TrimSuffix(sel, "}") + `,"refinedBy":` + by + `}` }
	target := func(sels ...string) string {
		return `{"source":"urn:doc","selector":[` + strings.Join(sels, ",") + `]}`
	}
	ann := func(id string, targets ...string) string {
		return `{"id":"` + id + `","target":[` + strings.Join(targets, ",") + `]}` + "\n"
	}
	export := ann("two-positions", target(pos(pierU, pierU+8), quote("old pier"), pos(pierU, pierU+8))) + // repaired
		ann("positions-disagree", target(quote("old pier"), pos(pier, pier+8), pos(pierU, pierU+8))) + // repaired
		ann("position-refined-by-quote", target(refined(pos(pierU, pierU+8), quote("pier")), quote("old pier"))) + // repaired
		ann("quote-refined-by-position", target(pos(pierU, pierU+8), refined(quote("old pier"), pos(0, 3)))) + // repaired
		ann("several-targets", target(pos(pier, pier+8), quote("old pier")), target(pos(tideU, tideU+14), quote("the tide turns"))) + // repaired
		ann("ambiguous", target(pos(3, 17), quote("the tide turns"))) + // not: nothing says which
		ann("orphaned", target(pos(3, 10), quote("new pier"))) + // not: nowhere
		ann("anchored", target(pos(pier, pier+8), quote("old pier"))) +
		ann("quote-only", target(quote("old pier"))) // a position added: repaired, anchored before and after
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(export), 0o644)
	out := filepath.Join(dir, "out.jsonl")
	r := runCLI(t, nil, "annotations", "--fix", "--output", out, "--source", "urn:doc="+src, in)
	if want := "--fix repaired 6; 7 anchor as written, 2 still do not"; r.code != exitFailed || !strings.Contains(r.stderr, want) {
		t.Fatalf("exit %d, stderr %q; want exit 1 and %q", r.code, r.stderr, want)
	}
	code, lines, _, stderr := annotationsCLI(t, "--source", "urn:doc="+src, out)
	got := outcomes(lines)
	for id, want := range map[string]string{"ambiguous": "ambiguous", "orphaned": "orphaned"} {
		if got[id] != want {
			t.Errorf("%s re-checks %s, want %s", id, got[id], want)
		}
		delete(got, id)
	}
	for id, o := range got {
		if o != "anchored" {
			t.Errorf("%s re-checks %s after --fix", id, o)
		}
	}
	if want := "9 annotations: 7 anchored, 0 moved, 1 ambiguous, 1 orphaned"; code != exitFailed || !strings.Contains(stderr, want) {
		t.Errorf("re-check: exit %d, %q; want %q", code, stderr, want)
	}
	again := runCLI(t, nil, "annotations", "--fix", "--source", "urn:doc="+src, out)
	if !strings.Contains(again.stderr, "--fix repaired 0;") || again.stdout != readFile(t, out) {
		t.Errorf("--fix of the fixed export repaired more, or changed it: %q", again.stderr)
	}
}

// nestedExport is n annotations, each with a quote selector refined depth
// levels deep, and a position selector that is off (so that --fix
// rewrites each).
func nestedExport(n, depth int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"id":"n%d","target":{"source":"urn:doc","selector":[{"type":"TextPositionSelector","start":1,"end":9},{"type":"TextQuoteSelector","exact":"old pier","refinedBy":`, i)
		b.WriteString(strings.Repeat(`{"type":"TextPositionSelector","start":0,"end":1,"refinedBy":`, depth))
		b.WriteString(`{"type":"XPathSelector","value":"/p"}`)
		b.WriteString(strings.Repeat("}", depth))
		b.WriteString("}]}}\n")
	}
	return b.String()
}

// Output is linear in the input for any nesting of refinedBy: a chain
// read whole (60 deep), and chains refused as deeper than
// annotation.MaxRefinedBy (one 9,000 deep, eight 3,000 deep), give a
// report smaller than the input (a read chain's first levels are listed,
// the rest counted; a refused one is an error item) and a --fix output
// the input's size (a refused annotation is written back as it was).
func TestAnnotationsNestingOutputIsLinear(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "doc.txt")
	os.WriteFile(src, []byte("the old pier stands"), 0o644)
	for _, c := range []struct{ n, depth int }{{8, 60}, {1, 9000}, {8, 3000}} {
		export := nestedExport(c.n, c.depth)
		in := filepath.Join(dir, "nested.jsonl")
		os.WriteFile(in, []byte(export), 0o644)
		refused := c.depth >= annotation.MaxRefinedBy
		for _, args := range [][]string{{"--format", "json"}, {"--format", "text"}, {"--fix"}} {
			r := runCLI(t, nil, append(append([]string{"annotations"}, args...), "--source", "urn:doc="+src, in)...)
			limit, exit := len(export)/10, exitFailed // a report: the chains' first levels only; each moved
			if c.depth < 100 {
				limit = len(export) / 2 // four levels listed of sixty
			}
			if args[0] == "--fix" {
				limit, exit = len(export)+16*c.n, exitValid // every byte, the positions rewritten; each repaired
			}
			if refused {
				exit = exitError
			}
			if r.code != exit || len(r.stdout) > limit || len(r.stdout) == 0 {
				t.Errorf("%d annotations %d deep, %v: exit %d, %d bytes out for %d in (at most %d)", c.n, c.depth, args, r.code, len(r.stdout), len(export), limit)
			}
			if refused && args[0] != "--fix" && !strings.Contains(r.stdout, "refinedBy chains are read 64 levels deep at most") {
				t.Errorf("%d deep, %v: the error item does not say why: %.300q", c.depth, args, r.stdout)
			}
		}
	}
}

// A truncated export (two whole lines, then half a third; or an array cut
// in an item) prints the outcome of every item read before the break, in
// json and text, then says on standard error where the input broke and
// after how many items, and exits 2; with --fix nothing is written.
func TestAnnotationsTruncatedExportPrintsWhatItRead(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "pier.txt")
	os.WriteFile(src, []byte("the old pier stands"), 0o644)
	a, b := annotationOn("first", "urn:pier", "old pier"), annotationOn("second", "urn:pier", "gone")
	for _, c := range []struct{ name, input, where string }{
		{"JSON Lines", a + b + a[:len(a)/2], "(line 3, value 2)"},
		{"array", "[" + strings.TrimSuffix(a, "\n") + ",\n" + strings.TrimSuffix(b, "\n") + ",\n" + a[:len(a)/2], "(line 3, value 0)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			input := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-"))
			os.WriteFile(input, []byte(c.input), 0o644)
			code, lines, _, stderr := annotationsCLI(t, "--source", "urn:pier="+src, input)
			if code != exitError || len(lines) != 2 || lines[0].ID != "first" || lines[0].Outcome != "anchored" || lines[1].ID != "second" || lines[1].Outcome != "orphaned" {
				t.Fatalf("exit %d, lines %+v: want both whole items' outcomes and exit 2", code, lines)
			}
			if !strings.Contains(stderr, "reading the annotations after 2 items: input is not JSON at byte ") || !strings.Contains(stderr, c.where) {
				t.Errorf("stderr %q does not say where the input broke, %s", stderr, c.where)
			}
			r := runCLI(t, nil, "annotations", "--format", "text", "--source", "urn:pier="+src, input)
			if r.code != exitError || !strings.Contains(r.stdout, `orphaned  "second"`) {
				t.Errorf("--format text: exit %d, %q", r.code, r.stdout)
			}
			r = runCLI(t, nil, "annotations", "--fix", "--source", "urn:pier="+src, input)
			if r.code != exitError || r.stdout != "" || !strings.Contains(r.stderr, "nothing was written") {
				t.Errorf("--fix: exit %d, %q, %q", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// A target that names no source (Hypothesis's own minimal fixture has
// one) is given its text with --source =FILE; without it, it is
// no_source and standard error says how to give it.
func TestAnnotationsTargetWithoutSourceIsGivenItsText(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "pier.txt")
	os.WriteFile(src, []byte("the old pier stands"), 0o644)
	input := filepath.Join(dir, "in.jsonl")
	os.WriteFile(input, []byte(`{"id":"unnamed","target":[{"selector":[{"type":"TextQuoteSelector","exact":"old pier"},{"type":"TextPositionSelector","start":4,"end":12}]}]}`+"\n"+
		annotationOn("named", "urn:a=b", "pier stands")), 0o644)
	for _, c := range []struct {
		name    string
		args    []string
		code    int
		want    map[string]string
		stderr  string
		nostder string
	}{
		{"no-source/given with =FILE", []string{"--source", "=" + src, "--source", "urn:a=b=" + src}, exitValid, map[string]string{"unnamed": "anchored", "named": "anchored"}, "2 anchored", "name no source"},
		{"no-source/not given", []string{"--source", "urn:a=b=" + src}, exitFailed, map[string]string{"unnamed": "no_source", "named": "anchored"}, "1 targets name no source: --source =FILE gives their text", "sources not supplied"},
		{"no-source/given twice", []string{"--source", "=" + src, "--source", "=" + src}, exitError, nil, "given twice", ""},
		{"no-source/= alone", []string{"--source", "="}, exitError, nil, `--source "=": want IRI=FILE`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, lines, _, stderr := annotationsCLI(t, append(c.args, input)...)
			if code != c.code {
				t.Fatalf("exit %d, want %d; %s", code, c.code, stderr)
			}
			if c.want != nil && !reflect.DeepEqual(outcomes(lines), c.want) {
				t.Errorf("outcomes %v, want %v", outcomes(lines), c.want)
			}
			if !strings.Contains(stderr, c.stderr) || c.nostder != "" && strings.Contains(stderr, c.nostder) {
				t.Errorf("stderr %q: want %q and not %q", stderr, c.stderr, c.nostder)
			}
		})
	}
}

// An export that is one page of a collection (an AnnotationPage with a
// "next", or a collection whose embedded first page has one) is checked,
// and standard error (and --format text) says that it is one page and
// where the next is; the exit status is the items' own.
func TestAnnotationsOnePageSaysWhereTheNextIs(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "pier.txt")
	os.WriteFile(src, []byte("the old pier stands"), 0o644)
	a := strings.TrimSuffix(annotationOn("first", "urn:pier", "old pier"), "\n")
	for _, c := range []struct{ name, input, next, count string }{
		{"page/with next", `{"type":"AnnotationPage","items":[` + a + `],"next":"https://e.org/p2"}`, "https://e.org/p2", ""},
		{"page/next before the items", `{"type":"AnnotationPage","next":"https://e.org/p2\u001b","items":[` + a + `]}`, `https://e.org/p2\x1b`, ""},
		{"page/a collection's first page", `{"type":"AnnotationCollection","total":5,"first":{"type":"AnnotationPage","items":[` + a + `],"next":"https://e.org/p2"}}`, "https://e.org/p2", "5 annotations in all, 1 here; "},
		{"page/a search response's total", `{"total":50,"rows":[` + a + `]}`, "", "50 annotations in all, 1 here; the others were not checked"},
		{"page/the last page", `{"type":"AnnotationPage","items":[` + a + `],"prev":"https://e.org/p1"}`, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			input := filepath.Join(dir, "in.json")
			os.WriteFile(input, []byte(c.input), 0o644)
			want := "this is one page of a collection: " + c.count
			if c.next != "" {
				want += `its next page is at "` + c.next + `", whose annotations were not checked`
			}
			part := c.next != "" || c.count != ""
			for _, format := range []string{"json", "text"} {
				r := runCLI(t, nil, "annotations", "--format", format, "--source", "urn:pier="+src, input)
				if r.code != exitValid {
					t.Fatalf("%s: exit %d: %s", format, r.code, r.stderr)
				}
				says := strings.Contains(r.stderr, want)
				if !part && strings.Contains(r.stderr, "one page") || part && !says {
					t.Errorf("%s: stderr %q, want it to say %q", format, r.stderr, want)
				}
				if format == "text" && part && !strings.Contains(r.stdout, want) {
					t.Errorf("text: stdout %q, want it to say %q", r.stdout, want)
				}
				if format == "json" && strings.Contains(r.stdout, "one page") {
					t.Errorf("json: stdout holds a line that is not an item: %q", r.stdout)
				}
			}
		})
	}
}
