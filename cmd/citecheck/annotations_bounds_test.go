package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// annotationOn is a one-line annotation quoting exact on iri.
func annotationOn(id, iri, exact string) string {
	return `{"id":"` + id + `","target":{"source":"` + iri + `","selector":{"type":"TextQuoteSelector","exact":"` + exact + `"}}}` + "\n"
}

// Each source is read up to --max-source-bytes, and one that cannot be
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
		{"source-bound/a device without end stops at the bound", "/dev/zero", "1MiB", "/dev/zero: larger than --max-source-bytes (1MiB)", "limit_exceeded"},
		{"source-bound/a file over the bound is refused before it is read", write("big.txt", strings.Repeat("a", 4097)), "4KiB", "big.txt: larger than --max-source-bytes (4KiB)", "limit_exceeded"},
		{"source-bound/a file at the bound is read", write("fits.txt", "x"+strings.Repeat("a", 4095)), "4KiB", "", ""},
		{"source-bound/an endless binary device stops at its first bad byte", "/dev/urandom", "1GiB", "not UTF-8: invalid byte", "invalid_input"},
		{"source-bound/a file cut in a rune stops at it", write("cut.txt", "caf\xc3"), "64MiB", "cut.txt: not UTF-8: invalid byte 0xC3 at byte offset 3", "invalid_input"},
		{"source-bound/a missing file", filepath.Join(dir, "nope.txt"), "64MiB", "nope.txt: no such file or directory", "internal"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := os.Stat(c.bad); c.bad[0] == '/' && strings.HasPrefix(c.bad, "/dev/") && err != nil {
				t.Skip(c.bad, " is not here")
			}
			code, lines, _, stderr := annotationsCLI(t, "--max-source-bytes", c.limit, "--source", "urn:good="+good, "--source", "urn:bad="+c.bad, input)
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
	if code, _, _, stderr := annotationsCLI(t, "--max-source-bytes", "64MB", "--source", "urn:good="+good, input); code != exitError || !strings.Contains(stderr, "64KiB or 64MiB") {
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
