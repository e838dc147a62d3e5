package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The worked examples of docs/quotes.md, one for each shape, are the
// command's real output (spec §5.13).
func TestQuotesGuideShowsTheRealOutput(t *testing.T) {
	t.Parallel()
	if n := runGuideExamples(t, "../../docs/quotes.md"); n < 4 {
		t.Fatalf("%d examples in docs/quotes.md, want one for each shape", n)
	}
}

const quotesFixtures = "../../examples/quotes/"

// Exit statuses (spec §5.13): 0 every quotation verbatim, 1 some are not,
// 2 for bad input, with one line on standard error and nothing on
// standard output.
func TestQuotesExitStatuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	kafka := "--source=3=" + quotesFixtures + "kafka.txt"
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string // a part of the one line on stderr, for exit 2
	}{
		{"every quotation verbatim", []string{kafka, write("ok.md", "„Als Gregor Samsa eines Morgens aus unruhigen Träumen erwachte“ [3]")}, exitValid, ""},
		{"no quotation at all", []string{kafka, write("none.md", "Nothing quoted here.")}, exitValid, ""},
		{"one not verbatim", []string{kafka, write("bad.md", "„Als Gregor Samsa eines Abends erwachte“ [3]")}, exitFailed, ""},
		{"bad JSON", []string{kafka, write("bad.json", `{"citations": [`)}, exitError, "not JSON"},
		{"JSON of no shape", []string{kafka, write("other.json", `{"answer": "x"}`)}, exitError, "neither an Anthropic response"},
		{"a wrong structured answer", []string{kafka, write("wrong.json", `{"citations": [{"source_id": 3}]}`)}, exitError, `has no "quote"`},
		{"a report that is not UTF-8", []string{kafka, write("latin1.md", "caf\xe9 «x» [3]")}, exitError, "not UTF-8"},
		{"an input that cannot be read", []string{kafka, filepath.Join(dir, "missing.md")}, exitError, "no such file"},
		{"a source that cannot be read", []string{"--source", "3=" + filepath.Join(dir, "missing.txt"), write("a.md", "x")}, exitError, `source "3"`},
		{"a source that is a folder", []string{"--source", "3=" + dir, write("g.md", "x")}, exitError, `source "3": ` + dir + ": a folder, not a file"},
		{"a source that is not UTF-8", []string{"--source", "3=" + write("latin1.txt", "caf\xe9"), write("b.md", "x")}, exitError, "not UTF-8"},
		{"a source id twice", []string{kafka, kafka, write("c.md", "x")}, exitError, "supplied twice"},
		{"a bad manifest line", []string{"--sources", write("m.tsv", "3\n"), write("d.md", "x")}, exitError, "line 1"},
		{"a request that is not JSON", []string{"--request", write("req.json", "{"), quotesFixtures + "anthropic-response.json"}, exitError, "--request"},
		{"--request with a report", []string{"--request", quotesFixtures + "anthropic-request.json", write("e.md", "x")}, exitError, "--request is the request an Anthropic response answered"},
		{"no sources", []string{write("f.md", "x")}, exitError, "quotes needs sources"},
		{"two inputs", []string{kafka, "a.md", "b.md"}, exitError, "one input file"},
		{"a bad format", []string{kafka, "--format", "xml", "-"}, exitError, "--format is json, text or html"},
		{"an unknown flag", []string{"--nope"}, exitError, "flag provided but not defined"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, nil, append([]string{"quotes"}, c.args...)...)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", r.code, c.code, r.stdout, r.stderr)
			}
			if c.code == exitError {
				first, _, _ := strings.Cut(r.stderr, "\n")
				if r.stdout != "" || !strings.Contains(first, c.stderr) || !strings.HasPrefix(first, "citecheck: ") {
					t.Errorf("stdout %q, stderr %q; want one line with %q", r.stdout, r.stderr, c.stderr)
				}
			}
		})
	}
}

// Standard input is read with - or with no input argument; --help prints
// the usage with every flag.
func TestQuotesReadsStandardInputAndHelps(t *testing.T) {
	t.Parallel()
	in := "«La liberté consiste à pouvoir faire tout ce qui ne nuit pas à autrui» [2]"
	for _, args := range [][]string{{"-"}, {}} {
		r := runCLI(t, strings.NewReader(in), append([]string{"quotes", "--sources", quotesFixtures + "sources.tsv"}, args...)...)
		if r.code != exitValid || !strings.Contains(r.stdout, `"outcome":"verbatim"`) {
			t.Errorf("%v: exit %d, %q %q", args, r.code, r.stdout, r.stderr)
		}
	}
	r := runCLI(t, nil, "quotes", "--help")
	for _, flag := range []string{"-source", "-sources", "-request", "-format", "-explain", "-html", "-max-source-size", "-color"} {
		if r.code != exitValid || !strings.Contains(r.stdout, flag) {
			t.Errorf("--help lacks %s: %s", flag, r.stdout)
		}
	}
}

// A citation of a request's PDF is not_checked, saying how to give the
// text, in both formats ("no source is supplied" was wrong: the request
// supplies it); --source 0=FILE gives its text, and it is checked.
func TestQuotesSaysAPDFCarriesNoText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	req := write("req.json", `{"model":"m","messages":[{"role":"user","content":[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="}}]}]}`)
	resp := write("resp.json", `{"type":"message","content":[{"type":"text","text":"…","citations":[{"type":"page_location","cited_text":"Als Gregor Samsa eines Morgens","document_index":0,"start_page_number":1,"end_page_number":2}]}]}`)
	r := runCLI(t, nil, "quotes", "--request", req, resp)
	if r.code != exitFailed || !strings.Contains(r.stdout, `"outcome":"not_checked"`) || !strings.Contains(r.stdout, "--source 0=FILE") {
		t.Errorf("json: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, nil, "quotes", "--format", "text", "--request", req, resp)
	if r.code != exitFailed || strings.Contains(r.stdout, "no source") || !strings.Contains(r.stdout, "from which citecheck reads no text") {
		t.Errorf("text: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, nil, "quotes", "--request", req, "--source", "0="+quotesFixtures+"kafka.txt", resp)
	if r.code != exitValid || !strings.Contains(r.stdout, `"outcome":"verbatim"`) {
		t.Errorf("with its text: exit %d, %q %q", r.code, r.stdout, r.stderr)
	}
}

// A run its signal stopped says so in plain words, with how far it got,
// not in Go's ("context canceled").
func TestQuotesStoppedByAnInterruptSaysSo(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // as the signal context is once SIGINT arrives
	var out, errb bytes.Buffer
	report := writeInput(t, "„Als Gregor Samsa eines Morgens aus unruhigen Träumen erwachte“ [3] and «Les hommes naissent libres et égaux en droits» [3]")
	code := run(ctx, []string{"quotes", "--source=3=" + quotesFixtures + "kafka.txt", report}, strings.NewReader(""), &out, &errb)
	if want := "citecheck: stopped by an interrupt after 0 of 2 quotations"; code != exitError || !strings.HasPrefix(errb.String(), want) || strings.Contains(errb.String(), "context") {
		t.Errorf("exit %d, stderr %q; want %q", code, errb.String(), want)
	}
}
