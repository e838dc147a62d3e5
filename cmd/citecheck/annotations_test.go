package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/annotation"
	"github.com/citecheck/citecheck/htmltext"
)

const (
	estuaryIRI = "https://example.org/field-notes/estuary"
	harbourIRI = "https://example.org/field-notes/harbour"
	fixtures   = "testdata/annotations/"
)

// outcomeLine is the part of an output line the tests read.
type outcomeLine struct {
	Index   int    `json:"index"`
	Pointer string `json:"pointer"`
	ID      string `json:"id"`
	Outcome string `json:"outcome"`
	Targets []struct {
		Outcome   string `json:"outcome"`
		Version   string `json:"version"`
		Selectors []struct {
			Type     string          `json:"selector_type"`
			Reason   *string         `json:"reason"`
			Detail   json.RawMessage `json:"detail"`
			Findings []struct {
				Kind       string `json:"kind"`
				Start, End int
				Units      string `json:"units"`
			} `json:"findings"`
		} `json:"selectors"`
		Repair *struct{ Start, End int } `json:"repair"`
	} `json:"targets"`
	Error *struct{ Code, Message, Path string } `json:"error"`
}

func annotationsCLI(t *testing.T, args ...string) (int, []outcomeLine, string, string) {
	t.Helper()
	r := runCLI(t, nil, append([]string{"annotations"}, args...)...)
	var lines []outcomeLine
	for _, l := range strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n") {
		if l == "" || !strings.HasPrefix(l, `{"index"`) {
			continue
		}
		var o outcomeLine
		if err := json.Unmarshal([]byte(l), &o); err != nil {
			t.Fatalf("output line %q: %v", l, err)
		}
		lines = append(lines, o)
	}
	return r.code, lines, r.stdout, r.stderr
}

func outcomes(lines []outcomeLine) map[string]string {
	m := map[string]string{}
	for _, l := range lines {
		m[l.ID] = l.Outcome
	}
	return m
}

// The fixture: a Hypothesis search response (as the API returns it, every
// member of each row) of annotations made on estuary-v1.txt, whose text
// has emoji before several of the passages annotated.
var v1Outcomes = map[string]string{
	"anchored-cp":         "anchored",  // code point positions, quote and position agree
	"utf16-positions":     "moved",     // positions counted in UTF-16 code units, as Hypothesis does
	"ambiguous-settled":   "anchored",  // the quote occurs twice; the position says which
	"ambiguous-utf16":     "moved",     // the same, but the position is in UTF-16 code units
	"ambiguous-unsettled": "ambiguous", // the quote occurs twice and nothing says which
	"quote-only":          "anchored",
	"page-note":           "unchecked", // a page note has no selector
	"two-targets":         "no_source", // its second target's document was not supplied
	"cannery":             "anchored",
}

func TestAnnotationsOnAHypothesisExport(t *testing.T) {
	for _, input := range []string{"hypothesis-search.json", "hypothesis.jsonl"} {
		t.Run(input, func(t *testing.T) {
			code, lines, _, stderr := annotationsCLI(t, "--source", estuaryIRI+"="+fixtures+"estuary-v1.txt", fixtures+input)
			if code != exitFailed {
				t.Errorf("exit %d, want 1 (some annotations do not anchor)", code)
			}
			if got := outcomes(lines); !reflect.DeepEqual(got, v1Outcomes) {
				t.Errorf("outcomes %v\nwant %v", got, v1Outcomes)
			}
			for i, l := range lines {
				if l.Index != i {
					t.Errorf("line %d has index %d: output is not in input order", i, l.Index)
				}
			}
			want := "citecheck: 9 annotations: 4 anchored, 2 moved, 1 ambiguous, 0 orphaned, 1 unchecked, 1 no_source; 0 errors\n" +
				"  sources not supplied: \"" + harbourIRI + "\" (1 targets)\n"
			if stderr != want {
				t.Errorf("stderr %q\nwant %q", stderr, want)
			}
		})
	}
}

// Each checked selector carries the engine's reason and detail: the UTF-16
// annotation's quote is found once, elsewhere than its stored start.
func TestAnnotationsCarryTheEnginesReasonAndDetail(t *testing.T) {
	_, lines, _, _ := annotationsCLI(t, "--source", estuaryIRI+"="+fixtures+"estuary-v1.txt", fixtures+"hypothesis.jsonl")
	l := lines[1]
	if l.ID != "utf16-positions" {
		t.Fatalf("line 1 is %s", l.ID)
	}
	sels := l.Targets[0].Selectors
	if len(sels) != 2 || sels[0].Type != "TextPositionSelector" || *sels[0].Reason != "quote_mismatch" ||
		sels[1].Type != "TextQuoteSelector" || *sels[1].Reason != "position_mismatch" {
		t.Fatalf("selectors %+v", sels)
	}
	var d struct {
		ClaimedStart  int `json:"claimed_start"`
		ResolvedStart int `json:"resolved_start"`
	}
	json.Unmarshal(sels[1].Detail, &d)
	// Two astral characters (🌿 🌊) stand before the quote: UTF-16 counts
	// three more (🐟 too), the stored start is 3 beyond the code point one.
	if d.ClaimedStart-d.ResolvedStart != 3 {
		t.Errorf("claimed_start %d, resolved_start %d: want UTF-16's 3 more", d.ClaimedStart, d.ResolvedStart)
	}
	if r := l.Targets[0].Repair; r == nil || r.Start != d.ResolvedStart {
		t.Errorf("repair %+v, want one at %d", r, d.ResolvedStart)
	}
	// The diagnosis says why: both selectors' numbers are right as UTF-16
	// code units (spec §5's offset_units finding, the Hypothesis case).
	for _, sel := range sels {
		found := false
		for _, f := range sel.Findings {
			found = found || f.Kind == "offset_units" && f.Units == "utf16"
		}
		if !found {
			t.Errorf("%s: findings %+v lack offset_units utf16", sel.Type, sel.Findings)
		}
	}
}

// The same export checked against the document as edited after the
// annotations were made (a paragraph inserted, one removed).
func TestAnnotationsOnAnEditedDocument(t *testing.T) {
	code, lines, _, _ := annotationsCLI(t, "--source", estuaryIRI+"="+fixtures+"estuary-v2.txt", fixtures+"hypothesis-search.json")
	want := map[string]string{
		"anchored-cp":         "orphaned",  // its prefix ran into the inserted paragraph
		"utf16-positions":     "moved",     // pushed down by the insertion
		"ambiguous-settled":   "ambiguous", // its position no longer says which
		"ambiguous-utf16":     "ambiguous",
		"ambiguous-unsettled": "ambiguous",
		"quote-only":          "orphaned", // its suffix ran into the removed paragraph
		"page-note":           "unchecked",
		"two-targets":         "moved",    // moved beats no_source
		"cannery":             "orphaned", // the sentence is gone
	}
	if got := outcomes(lines); !reflect.DeepEqual(got, want) || code != exitFailed {
		t.Errorf("exit %d, outcomes %v\nwant %v", code, got, want)
	}
}

// An annotation on an HTML page counts positions over the body's
// textContent; the page is read as that text by its extension, or by
// --html whatever its name.
func TestAnnotationsOnAnHTMLPage(t *testing.T) {
	page, _ := os.ReadFile(fixtures + "estuary.html")
	text, _ := htmltext.BodyText(page)
	want, _ := os.ReadFile(fixtures + "estuary.html.txt")
	if text != string(want) {
		t.Fatalf("the page's text is %q, the fixture's positions count over %q", text, want)
	}
	renamed := filepath.Join(t.TempDir(), "estuary.page")
	os.WriteFile(renamed, page, 0o644)
	for _, args := range [][]string{
		{"--source", "https://example.org/estuary.html=" + fixtures + "estuary.html"},
		{"--html", "--source", "https://example.org/estuary.html=" + renamed},
	} {
		_, lines, _, _ := annotationsCLI(t, append(args, fixtures+"estuary-page.jsonld")...)
		got := outcomes(lines)
		if got["urn:uuid:6b2a1c4e-1f0d-4c2e-9a51-0c8f2f0a1d01"] != "moved" || got["urn:uuid:6b2a1c4e-1f0d-4c2e-9a51-0c8f2f0a1d02"] != "anchored" {
			t.Errorf("%v: outcomes %v, want moved (UTF-16 positions) and anchored", args, got)
		}
	}
	// Without --html, the same file is plain text: the markup is text too.
	_, lines, _, _ := annotationsCLI(t, "--source", "https://example.org/estuary.html="+renamed, fixtures+"estuary-page.jsonld")
	if o := outcomes(lines)["urn:uuid:6b2a1c4e-1f0d-4c2e-9a51-0c8f2f0a1d02"]; o == "anchored" {
		t.Errorf("a page read as plain text still anchored its positions")
	}
}

// --fix writes the input back with the repairs; re-checked, every repaired
// annotation anchors, and every member but the repaired positions is as it
// was (the golden file shows the bytes).
func TestAnnotationsFix(t *testing.T) {
	for _, c := range []struct{ doc, input, golden string }{
		{"estuary-v1.txt", "hypothesis-search.json", "hypothesis-search.v1.fixed.golden"},
		{"estuary-v2.txt", "hypothesis-search.json", "hypothesis-search.v2.fixed.golden"},
		{"estuary-v1.txt", "hypothesis.jsonl", "hypothesis.v1.fixed.golden"},
	} {
		t.Run(c.golden, func(t *testing.T) {
			src := estuaryIRI + "=" + fixtures + c.doc
			_, before, _, _ := annotationsCLI(t, "--source", src, fixtures+c.input)
			r := runCLI(t, nil, "annotations", "--fix", "--source", src, fixtures+c.input)
			golden := fixtures + c.golden
			if *update {
				os.WriteFile(golden, []byte(r.stdout), 0o644)
			}
			want, _ := os.ReadFile(golden)
			if r.stdout != string(want) {
				t.Errorf("--fix output differs from %s (go test -update rewrites it)", golden)
			}
			fixed := filepath.Join(t.TempDir(), "fixed"+filepath.Ext(c.input))
			os.WriteFile(fixed, []byte(r.stdout), 0o644)
			_, after, _, _ := annotationsCLI(t, "--source", src, fixed)
			repaired := 0
			for i, b := range before {
				for _, tg := range b.Targets {
					if tg.Repair != nil {
						repaired++
						if after[i].Targets[0].Outcome != "anchored" && after[i].Outcome != "anchored" {
							t.Errorf("%s was repaired but re-checks %s", b.ID, after[i].Outcome)
						}
					}
				}
				if b.Outcome == "anchored" && after[i].Outcome != "anchored" {
					t.Errorf("%s anchored before --fix, %s after", b.ID, after[i].Outcome)
				}
			}
			if repaired == 0 {
				t.Fatal("nothing was repaired: the test proves nothing")
			}
			if !strings.Contains(r.stderr, "--fix repaired") {
				t.Errorf("stderr %q lacks the repair count", r.stderr)
			}
			assertOnlyPositionsChanged(t, readFile(t, fixtures+c.input), r.stdout)
		})
	}
}

func readFile(t *testing.T, name string) string {
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assertOnlyPositionsChanged decodes both documents value by value, in
// member order, and compares them with every TextPositionSelector taken out
// of the selector lists (a single selector counts as a list of one): all
// else, members, values and their order, must be equal.
func assertOnlyPositionsChanged(t *testing.T, in, out string) {
	t.Helper()
	values := func(s string) []any {
		dec := json.NewDecoder(strings.NewReader(s))
		dec.UseNumber()
		var vs []any
		for dec.More() {
			vs = append(vs, ordered(t, dec))
		}
		return vs
	}
	if a, b := values(in), values(out); !reflect.DeepEqual(a, b) {
		t.Errorf("--fix changed more than positions")
	}
}

// member is one object member; an object decodes to []member, in order.
type member struct {
	name  string
	value any
}

// ordered decodes the next value with objects as ordered member lists and
// position selectors dropped from every "selector" list.
func ordered(t *testing.T, dec *json.Decoder) any {
	tok, err := dec.Token()
	if err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	switch tok {
	case json.Delim('{'):
		var obj []member
		for dec.More() {
			k, _ := dec.Token()
			v := ordered(t, dec)
			if k == "selector" {
				v = withoutPositions(v)
			}
			obj = append(obj, member{k.(string), v})
		}
		dec.Token()
		return obj
	case json.Delim('['):
		var arr []any
		for dec.More() {
			arr = append(arr, ordered(t, dec))
		}
		dec.Token()
		return arr
	}
	return tok
}

func withoutPositions(v any) any {
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	var out []any
	for _, e := range list {
		if obj, ok := e.([]member); ok && slices.ContainsFunc(obj, func(m member) bool { return m.name == "type" && m.value == "TextPositionSelector" }) {
			continue
		}
		out = append(out, e)
	}
	return out
}

func TestAnnotationsExitStatus(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	v1 := estuaryIRI + "=" + fixtures + "estuary-v1.txt"
	firstLine := strings.SplitN(readFile(t, fixtures+"hypothesis.jsonl"), "\n", 2)[0] + "\n"
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"exit/0 when every annotation anchors", []string{"--source", v1, write("one.jsonl", firstLine)}, exitValid, "1 anchored"},
		{"exit/1 when some do not", []string{"--source", v1, fixtures + "hypothesis.jsonl"}, exitFailed, "2 moved"},
		{"exit/2 when a value is not an annotation, after checking the rest", []string{"--source", v1, write("bad.jsonl", firstLine+"42\n"+firstLine)}, exitError, "2 anchored"},
		{"exit/2 on input that is not JSON", []string{"--source", v1, write("broken.json", firstLine+"{")}, exitError, "not JSON"},
		{"exit/2 on a source that is not UTF-8, naming file and byte", []string{"--source", estuaryIRI + "=" + write("latin1.txt", "caf\xe9 au lait"), fixtures + "hypothesis.jsonl"}, exitError, "latin1.txt: not UTF-8: invalid byte 0xE9 at byte offset 3"},
		{"exit/2 on a missing source file", []string{"--source", estuaryIRI + "=" + filepath.Join(dir, "nope.txt"), fixtures + "hypothesis.jsonl"}, exitError, "nope.txt"},
		{"exit/2 on a source supplied twice", []string{"--source", v1, "--source", v1, fixtures + "hypothesis.jsonl"}, exitError, "supplied twice"},
		{"exit/2 on a --source without =", []string{"--source", "estuary.txt", fixtures + "hypothesis.jsonl"}, exitError, "want IRI=FILE"},
		{"exit/2 on two inputs", []string{"--source", v1, "a", "b"}, exitError, "one input file"},
		{"exit/2 on --fix with --format text", []string{"--fix", "--format", "text", "--source", v1, "-"}, exitError, "--format does not apply"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, _, stderr := annotationsCLI(t, c.args...)
			if code != c.code || !strings.Contains(stderr, c.stderr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, c.code, c.stderr)
			}
		})
	}
	// With --fix the error goes to stderr; the value is written back as it was.
	bad := write("bad3.jsonl", firstLine+"42\n")
	if r := runCLI(t, nil, "annotations", "--fix", "--source", v1, bad); r.code != exitError || r.stdout != firstLine+"42\n" ||
		!strings.Contains(r.stderr, "error     value: not an annotation but a number  (item 1, value 1, byte ") {
		t.Errorf("--fix with an error item: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// A value that is not an annotation is a line of its own, in order.
	_, lines, _, _ := annotationsCLI(t, "--source", v1, write("bad2.jsonl", firstLine+"42\n"+firstLine))
	if len(lines) != 3 || lines[1].Outcome != "error" || lines[1].Error == nil || lines[1].Error.Code != "invalid_input" {
		t.Errorf("lines %+v: want the error as line 1", lines)
	}
}

// Sources from a manifest, JSON or TSV, files relative to it, versions
// reported with each target checked against them.
func TestAnnotationsManifest(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"estuary-v1.txt", "estuary-v2.txt"} {
		os.WriteFile(filepath.Join(dir, name), []byte(readFile(t, fixtures+name)), 0o644)
	}
	for name, content := range map[string]string{
		"sources.json": `[{"iri":"` + estuaryIRI + `","file":"estuary-v1.txt","version":"2026-03-01"},{"iri":"` + harbourIRI + `","file":"estuary-v2.txt"}]`,
		"sources.tsv":  "# iri\tfile\tversion\n" + estuaryIRI + "\testuary-v1.txt\t2026-03-01\r\n\n" + harbourIRI + "\testuary-v2.txt\n",
	} {
		t.Run(name, func(t *testing.T) {
			m := filepath.Join(dir, name)
			os.WriteFile(m, []byte(content), 0o644)
			_, lines, _, stderr := annotationsCLI(t, "--sources", m, fixtures+"hypothesis.jsonl")
			if len(lines) != 9 || strings.Contains(stderr, "not supplied") {
				t.Fatalf("%d lines, stderr %q", len(lines), stderr)
			}
			if v := lines[0].Targets[0].Version; v != "2026-03-01" {
				t.Errorf("version %q, want the manifest's", v)
			}
		})
	}
	bad := filepath.Join(dir, "bad.tsv")
	os.WriteFile(bad, []byte(estuaryIRI+"\n"), 0o644)
	if code, _, _, stderr := annotationsCLI(t, "--sources", bad, "-"); code != exitError || !strings.Contains(stderr, "line 1") {
		t.Errorf("a bad manifest line: exit %d, %q", code, stderr)
	}
}

// --format text names each annotation that does not anchor, and why;
// anchored ones are not listed.
func TestAnnotationsText(t *testing.T) {
	code, _, stdout, _ := annotationsCLI(t, "--format", "text", "--source", estuaryIRI+"="+fixtures+"estuary-v1.txt", fixtures+"hypothesis-search.json")
	for _, want := range []string{`moved     "utf16-positions"  (item 1, value 0 at /rows/1)`, "position_mismatch", "repair: start", `ambiguous "ambiguous-unsettled"`, `no_source "two-targets"`, `unchecked "page-note"`} {
		if !strings.Contains(stdout, want) {
			t.Errorf("text output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "anchored-cp") || code != exitFailed {
		t.Errorf("exit %d; an anchored annotation listed:\n%s", code, stdout)
	}
}

// Standard input is read with - or with no input argument.
func TestAnnotationsReadStandardInput(t *testing.T) {
	in := readFile(t, fixtures+"hypothesis.jsonl")
	for _, args := range [][]string{{"-"}, {}} {
		r := runCLI(t, strings.NewReader(in), append([]string{"annotations", "--source", estuaryIRI + "=" + fixtures + "estuary-v1.txt"}, args...)...)
		if n := bytes.Count([]byte(r.stdout), []byte("\n")); n != 9 || r.code != exitFailed {
			t.Errorf("%v: exit %d, %d lines", args, r.code, n)
		}
	}
}

// The worked example of docs/annotations.md is this fixture's real output:
// the guide cannot drift from the command.
func TestAnnotationsGuideShowsTheRealOutput(t *testing.T) {
	guide := readFile(t, "../../docs/annotations.md")
	const cmd = "$ citecheck annotations --format text \\\n    --source https://example.org/field-notes/estuary=estuary-v1.txt hypothesis-search.json\n"
	i := strings.Index(guide, cmd)
	if i < 0 {
		t.Fatal("the guide's worked example is gone")
	}
	shown := guide[i+len(cmd):]
	shown = shown[:strings.Index(shown, "```")]
	r := runCLI(t, nil, "annotations", "--format", "text", "--source", estuaryIRI+"="+fixtures+"estuary-v1.txt", fixtures+"hypothesis-search.json")
	if got := r.stdout + r.stderr; got != shown {
		t.Errorf("docs/annotations.md shows\n%s\nthe command prints\n%s", shown, got)
	}
}

// Memory stays bounded on a large export: a Hypothesis search response of
// 40,000 rows (about 43 MB) streams through, checked and rewritten, with
// the live heap far below the input's size (2–4 MiB whatever the rows). Live: measured after a collection, since the garbage a collector
// starved of CPU (the whole suite on two cores) lets pile up says nothing
// of what the run keeps.
func TestAnnotationsMemoryStaysFlatOnALargeExport(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 86 MB")
	}
	const rows = 40000
	const bound = 12 << 20
	text := readFile(t, fixtures+"estuary-v1.txt")
	row := strings.SplitN(readFile(t, fixtures+"hypothesis.jsonl"), "\n", 3)[1] // the UTF-16 one: moved, repaired
	for _, fix := range []bool{false, true} {
		pr, pw := io.Pipe()
		var peak uint64
		go func() {
			w := bufio.NewWriterSize(pw, 1<<20)
			var ms runtime.MemStats
			fmt.Fprintf(w, `{"total":%d,"rows":[`, rows)
			for i := range rows {
				if i%2000 == 0 {
					runtime.GC()
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapAlloc)
				}
				if i > 0 {
					w.WriteByte(',')
				}
				w.WriteString(row)
			}
			w.WriteString("]}")
			w.Flush()
			pw.Close()
		}()
		runtime.GC()
		c, _ := annotation.NewChecker([]annotation.Source{{IRI: estuaryIRI, Text: text}}, citecheck.DefaultLimits())
		c.Locate = fix
		cw := &countingWriter{}
		st, err := checkAnnotations(context.Background(), pr, cw, c, fix, "json")
		if err != nil || st.total() != rows || st.by[annotation.Moved] != rows {
			t.Fatalf("fix %v: %v, %d annotations, %d moved", fix, err, st.total(), st.by[annotation.Moved])
		}
		t.Logf("fix %v: peak live heap %d MiB for %d MiB of input", fix, peak>>20, (rows*len(row))>>20)
		if peak > bound {
			t.Errorf("fix %v: peak live heap %d MiB, over %d MiB", fix, peak>>20, bound>>20)
		}
	}
}
