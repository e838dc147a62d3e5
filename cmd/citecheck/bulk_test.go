package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
)

// bulkCLI runs the CLI in-process, as a shell would, and returns the exit
// status, stdout and stderr. (Named apart from run_test.go's helpers.)
func bulkCLI(t testing.TB, stdin io.Reader, args ...string) (int, string, string) {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"run", citecheck.ToolID, citecheck.ToolVersion}, args...), stdin, &out, &errb)
	return code, out.String(), errb.String()
}

// bulkFile writes content to a temporary file and returns its name.
func bulkFile(t testing.TB, content []byte) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "input.jsonl")
	if err := os.WriteFile(name, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// conformanceLines returns the bodies of the module's conformance cases
// that fit on one JSONL line: those with no newline byte (pretty-printed
// bodies have raw newlines between tokens, so they cannot be one line).
func conformanceLines(t testing.TB) [][]byte {
	t.Helper()
	var lines [][]byte
	for _, c := range testkit.Conformance(t) {
		if !bytes.ContainsRune(c.Body, '\n') {
			lines = append(lines, c.Body)
		}
	}
	return lines
}

// bulkFailed and bulkInvalid go with run_test.go's validBody: two failing
// citations, and a body the schema refuses.
const (
	bulkFailed  = `{"sources":[{"source_id":"a","version":"v1","text":"abcdef"}],"citations":[{"citation_id":"c1","source_id":"a","version":"v1","selector":{"type":"TextQuoteSelector","exact":"zz"}},{"citation_id":"c2","source_id":"b","version":"v1","selector":{"type":"TextQuoteSelector","exact":"zz"}}]}`
	bulkInvalid = `{"sources":[{"source_id":"a","version":"v1","text":"abcdef"}],"citations":[{"citation_id":"c1","source_id":"a","version":"v1","selector":{"type":"TextQuoteSelector","exect":"bc"}}]}`
)

// TestBulkAnswersEachLineAsTheOneRequestRun: for every conformance body that
// fits on a line, plus lines over 1 MiB, malformed, empty and CRLF-ended
// lines, the --jsonl output line is byte for byte what `run --input -` of
// that line prints, in input order; with and without --all, with --explain
// and with --fix (whose one-request run prints the request without adding
// a newline).
func TestBulkAnswersEachLineAsTheOneRequestRun(t *testing.T) {
	t.Parallel()
	lines := conformanceLines(t)
	big := 0
	for _, l := range lines {
		if len(l) > citecheck.MaxInputBytes/2 {
			big++
		}
	}
	if len(lines) < 150 || big < 2 {
		t.Fatalf("only %d one-line conformance bodies, %d of them large", len(lines), big)
	}
	lines = append(lines,
		[]byte(`{"sources": [`), // malformed
		[]byte{},                // empty
		bytes.Repeat([]byte{' '}, citecheck.MaxInputBytes+5), // over the limit
		append([]byte(validBody), '\r'),                      // CRLF-ended: the CR is part of the body
		bytes.Repeat([]byte("x"), 3<<20),                     // far over the limit
		[]byte(bulkFailed),
	)
	input := append(bytes.Join(lines, []byte("\n")), '\n')
	for _, mode := range []string{"", "--all", "--explain", "--fix"} {
		t.Run("mode="+mode, func(t *testing.T) {
			args := []string{"--jsonl", "--input", bulkFile(t, input)}
			single := []string{"--input", "-"}
			if mode != "" {
				args, single = append(args, mode), append(single, mode)
			}
			code, stdout, _ := bulkCLI(t, nil, args...)
			if code != exitError {
				t.Errorf("exit %d, want 2: some lines are errors", code)
			}
			got := strings.SplitAfter(stdout, "\n")
			if got[len(got)-1] == "" {
				got = got[:len(got)-1]
			}
			if len(got) != len(lines) {
				t.Fatalf("%d answers for %d lines", len(got), len(lines))
			}
			for i, l := range lines {
				_, want, _ := bulkCLI(t, bytes.NewReader(l), single...)
				if mode == "--fix" && !strings.HasSuffix(want, "\n") {
					want += "\n"
				}
				if got[i] != want {
					t.Fatalf("line %d:\n got %.300s\nwant %.300s", i+1, got[i], want)
				}
			}
		})
	}
}

func TestBulkExitStatus(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		lines []string
		want  int
	}{
		{"0 when every request is valid", []string{validBody, validBody}, exitValid},
		{"1 when a request failed and none was an error", []string{validBody, bulkFailed, validBody}, exitFailed},
		{"2 when any line was an error, even among failures", []string{bulkFailed, bulkInvalid, validBody}, exitError},
		{"0 for an empty input: nothing failed", nil, exitValid},
	} {
		t.Run(c.name, func(t *testing.T) {
			in := strings.Join(c.lines, "\n")
			code, stdout, _ := bulkCLI(t, strings.NewReader(in), "--jsonl", "--input", "-")
			if code != c.want {
				t.Errorf("exit %d, want %d", code, c.want)
			}
			if n := strings.Count(stdout, "\n"); n != len(c.lines) {
				t.Errorf("%d answers for %d lines", n, len(c.lines))
			}
		})
	}
}

func TestBulkMalformedLineDoesNotStopTheRun(t *testing.T) {
	t.Parallel()
	in := validBody + "\n{not json\n" + bulkFailed + "\n\xff\xfe\n" + validBody + "\n"
	code, stdout, stderr := bulkCLI(t, strings.NewReader(in), "--jsonl", "--input", "-")
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	want := []string{`{"result":{"valid":true`, `{"error":{"code":"invalid_input"`, `{"result":{"valid":false`, `{"error":{"code":"invalid_input"`, `{"result":{"valid":true`}
	if len(lines) != len(want) {
		t.Fatalf("%d answers, want %d:\n%s", len(lines), len(want), stdout)
	}
	for i := range want {
		if !strings.HasPrefix(lines[i], want[i]) {
			t.Errorf("line %d: %s, want %s…", i+1, lines[i], want[i])
		}
	}
	if code != exitError {
		t.Errorf("exit %d, want 2", code)
	}
	wantSummary := "citecheck: 5 requests: 2 valid, 1 failed, 2 errors\n" +
		"  failed by reason: exact_not_found 1\n" +
		"  errors by code: invalid_input 2\n"
	if stderr != wantSummary {
		t.Errorf("stderr:\n%s\nwant:\n%s", stderr, wantSummary)
	}
}

func TestBulkSummaryCountsEveryFailingCitationWithAll(t *testing.T) {
	t.Parallel()
	in := bulkFailed + "\n" + validBody + "\n"
	code, _, stderr := bulkCLI(t, strings.NewReader(in), "--jsonl", "--all", "--input", "-")
	want := "citecheck: 2 requests: 1 valid, 1 failed, 0 errors\n" +
		"  failing citations by reason: unknown_source 1, exact_not_found 1\n"
	if code != exitFailed || stderr != want {
		t.Errorf("exit %d stderr:\n%s\nwant 1 and:\n%s", code, stderr, want)
	}
}

func TestBulkLastLineWithoutNewlineIsALine(t *testing.T) {
	t.Parallel()
	code, stdout, _ := bulkCLI(t, strings.NewReader(validBody+"\n"+bulkFailed), "--jsonl", "--input", "-")
	if code != exitFailed || strings.Count(stdout, "\n") != 2 {
		t.Fatalf("exit %d, stdout %q", code, stdout)
	}
}

// TestBulkTextReportsOnlyWhatFailed: with --format text a person reads the
// failing lines, each under its line number; valid lines say nothing (the
// summary counts them).
func TestBulkTextReportsOnlyWhatFailed(t *testing.T) {
	t.Parallel()
	in := validBody + "\n" + bulkFailed + "\n" + bulkInvalid + "\n"
	code, stdout, _ := bulkCLI(t, strings.NewReader(in), "--jsonl", "--format", "text", "--input", "-")
	if code != exitError {
		t.Errorf("exit %d, want 2", code)
	}
	if strings.Contains(stdout, "── line 1 ──") || !strings.Contains(stdout, "── line 2 ──\ncitation 0 \"c1\": exact_not_found") ||
		!strings.Contains(stdout, "── line 3 ──\n✗ error invalid_input at /citations/0/selector/exect") {
		t.Errorf("stdout:\n%s", stdout)
	}
	if strings.Contains(stdout, "\x1b[") {
		t.Error("colour escapes in piped output")
	}
}

// TestBulkProgressOnlyOnATerminal injects the terminal decision: with it,
// stderr gets a self-overwriting progress line (with ETA when the size is
// known) that is erased before the summary; without it, not a byte of it.
func TestBulkProgressOnlyOnATerminal(t *testing.T) {
	t.Parallel()
	in := strings.Repeat(validBody+"\n", 50)
	for _, tty := range []bool{false, true} {
		var out, errb bytes.Buffer
		code := runBulk(context.Background(), strings.NewReader(in), &out, &errb,
			bulkOptions{progress: tty, size: int64(len(in))})
		if code != exitValid {
			t.Fatalf("exit %d", code)
		}
		s := errb.String()
		drawn := strings.Contains(s, "\r\x1b[K[") && strings.Contains(s, "ETA") && strings.Contains(s, "requests")
		if drawn != tty || strings.Contains(s, "\r") != tty {
			t.Errorf("tty=%v: stderr %q", tty, s)
		}
		last := s[strings.LastIndex(s, "\r\x1b[K")+len("\r\x1b[K"):]
		if tty && !strings.HasPrefix(last, "citecheck: 50 requests: 50 valid, 0 failed, 0 errors in ") {
			t.Errorf("summary after the progress line: %q", last)
		}
		if !tty && s != "citecheck: 50 requests: 50 valid, 0 failed, 0 errors\n" {
			t.Errorf("summary %q", s)
		}
	}
}

// TestBulkMemoryStaysFlat streams 20,000 requests (about 200 MB, with a few
// 3 MiB lines among them) through a pipe and samples the heap while they
// flow: it must stay far below the input's size, since only a bounded
// window of lines is ever held.
func TestBulkMemoryStaysFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("streams 200 MB")
	}
	const lines = 20000
	const bound = 64 << 20
	text := strings.Repeat("the quick brown fox jumps over the lazy dog. ", 220) // ~10 KB
	line := []byte(`{"sources":[{"source_id":"a","version":"v1","text":"` + text + `"}],"citations":[` +
		`{"citation_id":"c1","source_id":"a","version":"v1","selector":{"type":"TextQuoteSelector","exact":"lazy dog. the quick","prefix":"over the "}},` +
		`{"citation_id":"c2","source_id":"a","version":"v1","selector":{"type":"TextPositionSelector","start":4,"end":9},"quote":"quick"}]}` + "\n")
	huge := append(bytes.Repeat([]byte(" "), 3<<20), '\n')
	pr, pw := io.Pipe()
	var peak uint64
	runtime.GC() // before the first reading: what earlier tests left is not this run's
	go func() {
		w := bufio.NewWriterSize(pw, 1<<20)
		var ms runtime.MemStats
		for i := range lines {
			if i%500 == 0 {
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
			if i%5000 == 4999 {
				w.Write(huge)
				continue
			}
			w.Write(line)
		}
		w.Flush()
		pw.Close()
	}()
	cw := &countingWriter{}
	code := runBulk(context.Background(), pr, cw, io.Discard, bulkOptions{})
	if code != exitError { // the huge lines are limit_exceeded
		t.Errorf("exit %d, want 2", code)
	}
	if cw.lines != lines {
		t.Errorf("%d answers, want %d", cw.lines, lines)
	}
	t.Logf("peak HeapInuse %d MiB for %d MiB of input", peak>>20, (lines*len(line))>>20)
	if peak > bound {
		t.Errorf("peak HeapInuse %d MiB, over %d MiB", peak>>20, bound>>20)
	}
}

type countingWriter struct{ lines int }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.lines += bytes.Count(p, []byte{'\n'})
	return len(p), nil
}

// TestBulkLongLineIsNotBuffered feeds one 64 MiB line: it is refused like
// the one-request run refuses it, the line after it is answered, and the
// heap never holds the line.
func TestBulkLongLineIsNotBuffered(t *testing.T) {
	pr, pw := io.Pipe()
	var peak uint64
	runtime.GC() // before the first reading: what earlier tests left is not this run's
	go func() {
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		var ms runtime.MemStats
		for range 64 {
			pw.Write(chunk)
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
		pw.Write([]byte("\n" + validBody + "\n"))
		pw.Close()
	}()
	runtime.GC()
	var out bytes.Buffer
	code := runBulk(context.Background(), pr, &out, io.Discard, bulkOptions{})
	_, want, _ := bulkCLI(t, bytes.NewReader(bytes.Repeat([]byte("x"), 64<<20)), "--input", "-")
	lines := strings.SplitAfter(out.String(), "\n")
	if code != exitError || len(lines) != 3 || lines[0] != want || !strings.HasPrefix(lines[1], `{"result":{"valid":true`) {
		t.Fatalf("exit %d, output %q; want first %q", code, out.String(), want)
	}
	if peak > 32<<20 {
		t.Errorf("peak HeapInuse %d MiB while a 64 MiB line went by", peak>>20)
	}
}

// TestBulkStopsWhenInterrupted: a cancelled context stops the run even
// while the reader waits on a pipe that says nothing more; what was read
// has been answered, and the exit status is 2.
func TestBulkStopsWhenInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	defer pw.Close()
	go pw.Write([]byte(validBody + "\n")) // then silence, never EOF
	out := &notifyingWriter{wrote: make(chan struct{}, 1)}
	go func() {
		<-out.wrote // the first answer went out: streamed, not held back
		cancel()
	}()
	var errb bytes.Buffer
	code := runBulk(ctx, pr, out, &errb, bulkOptions{})
	if code != exitError || errb.String() != "citecheck: 1 requests: 1 valid, 0 failed, 0 errors\ncitecheck: interrupted after line 1\n" {
		t.Fatalf("exit %d stderr %q", code, errb.String())
	}
	if !strings.HasPrefix(out.buf.String(), `{"result":{"valid":true`) {
		t.Fatalf("stdout %q", out.buf.String())
	}
}

type notifyingWriter struct {
	buf   bytes.Buffer
	wrote chan struct{}
}

func (w *notifyingWriter) Write(p []byte) (int, error) {
	w.buf.Write(p)
	select {
	case w.wrote <- struct{}{}:
	default:
	}
	return len(p), nil
}

func TestBulkFlagMistakes(t *testing.T) {
	t.Parallel()
	f := bulkFile(t, []byte(validBody+"\n"))
	for _, args := range [][]string{
		{"--jsonl", "--input", f, "--base-url", "http://127.0.0.1:1"},
		{"--all", "--input", f, "--base-url", "http://127.0.0.1:1"},
		{"--format", "text", "--input", f, "--base-url", "http://127.0.0.1:1"},
		{"--format", "yaml", "--input", f},
		{"--color", "sometimes", "--format", "text", "--input", f},
	} {
		code, stdout, stderr := bulkCLI(t, nil, args...)
		if code != exitError || stdout != "" || !strings.HasPrefix(stderr, "citecheck: ") {
			t.Errorf("%v: exit %d stdout %q stderr %q", args, code, stdout, stderr)
		}
	}
}

// TestTextFormatOneRequest: --format text prints the report, keeps the
// exit statuses, and colours only when asked (never when piped on auto).
func TestTextFormatOneRequest(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		body, color string
		code        int
		want        string
		colored     bool
	}{
		{validBody, "auto", exitValid, "✓ valid: 1 citation holds", false},
		{bulkFailed, "auto", exitFailed, "citation 0 \"c1\": exact_not_found", false},
		{bulkFailed, "always", exitFailed, "exact_not_found", true},
		{bulkInvalid, "never", exitError, "✗ error invalid_input at /citations/0/selector/exect", false},
	} {
		code, stdout, stderr := bulkCLI(t, strings.NewReader(c.body), "--format", "text", "--color", c.color, "--input", "-")
		if code != c.code || !strings.Contains(stdout, c.want) || strings.Contains(stdout, "\x1b[") != c.colored || stderr != "" {
			t.Errorf("exit %d (want %d) stderr %q stdout:\n%s", code, c.code, stderr, stdout)
		}
	}
	code, stdout, _ := bulkCLI(t, strings.NewReader(bulkFailed), "--format", "text", "--all", "--input", "-")
	if code != exitFailed || !strings.Contains(stdout, "unknown_source") || !strings.Contains(stdout, "2 of 2 citations failed") {
		t.Errorf("--all --format text: exit %d\n%s", code, stdout)
	}
}

// TestAllOneRequest: --all prints {"all": …} with every citation's outcome
// and keeps the exit statuses.
func TestAllOneRequest(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := bulkCLI(t, strings.NewReader(bulkFailed), "--all", "--input", "-")
	var env struct {
		All *struct {
			Valid     bool `json:"valid"`
			Citations []struct {
				Reason *string `json:"reason"`
			} `json:"citations"`
		} `json:"all"`
	}
	if err := json.Unmarshal([]byte(stdout), &env); err != nil || env.All == nil || env.All.Valid || len(env.All.Citations) != 2 {
		t.Fatalf("stdout %s (%v)", stdout, err)
	}
	if code != exitFailed || *env.All.Citations[1].Reason != "unknown_source" || !strings.Contains(stderr, "2 of 2 citations failed") {
		t.Errorf("exit %d stderr %q", code, stderr)
	}
	code, stdout, _ = bulkCLI(t, strings.NewReader(validBody), "--all", "--input", "-")
	if code != exitValid || !strings.HasPrefix(stdout, `{"all":{"valid":true`) {
		t.Errorf("exit %d stdout %s", code, stdout)
	}
}
