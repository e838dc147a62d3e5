package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
	"github.com/citecheck/citecheck/server"
)

// The CLI is driven in-process through run(), with the streams it would get
// from the operating system replaced by buffers. spec §4.4: the output is
// the envelope on one line, the exit status is 0 valid, 1 a citation failed,
// 2 an error (error object on stdout, one line on stderr).

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

type cliOutcome struct {
	code           int
	stdout, stderr string
}

func runCLI(t *testing.T, stdin io.Reader, args ...string) cliOutcome {
	t.Helper()
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), args, stdin, &out, &errb)
	return cliOutcome{code, out.String(), errb.String()}
}

// writeInput writes body to a temporary file and returns its name.
func writeInput(t *testing.T, body string) string {
	t.Helper()
	name := filepath.Join(t.TempDir(), "input.json")
	if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// libraryAnswer is what the library says of body read from a stream: the
// line the CLI must print and the exit status it stands for.
func libraryAnswer(body []byte) (string, int) {
	b, e := citecheck.ReadBody(bytes.NewReader(body))
	var res *citecheck.Result
	if e == nil {
		res, e = citecheck.Run(b)
	}
	code := exitValid
	switch {
	case e != nil:
		code = exitError
	case !res.Valid:
		code = exitFailed
	}
	return string(citecheck.AppendEnvelope(nil, res, e)) + "\n", code
}

// assertOneLine checks that s is exactly one line of text.
func assertOneLine(t *testing.T, what, s string) {
	t.Helper()
	if !strings.HasSuffix(s, "\n") || strings.Count(s, "\n") != 1 {
		t.Errorf("%s must be one line, got %q", what, s)
	}
}

const (
	validBody   = `{"sources":[{"source_id":"a","version":"v1","text":"abcdef"}],"citations":[{"citation_id":"c1","source_id":"a","version":"v1","selector":{"type":"TextPositionSelector","start":1,"end":3},"quote":"bc"}]}`
	failedBody  = `{"sources":[{"source_id":"a","version":"v1","text":"abcdef"}],"citations":[{"citation_id":"c1","source_id":"a","version":"v1","selector":{"type":"TextQuoteSelector","exact":"zz"}}]}`
	invalidBody = `{"sources":[{"source_id":"a","version":"v1","text":"abcdef"}],"citations":[{"citation_id":"c1","source_id":"a","version":"v1","selector":{"type":"TextQuoteSelector","exect":"bc"}}]}`
)

var limitBody = `{"sources":[{"source_id":"a","version":"v1","text":"` + strings.Repeat("a", citecheck.MaxTextBytes+1) + `"}],"citations":[{"citation_id":"c1","source_id":"a","version":"v1","selector":{"type":"TextPositionSelector","start":1,"end":3},"quote":"aa"}]}`

func TestRunExitStatus(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		body string
		code int
		want string // a fragment of stdout
	}{
		{"exit/0 when every citation holds", validBody, 0, `{"result":{"valid":true,`},
		{"exit/1 when a citation fails", failedBody, 1, `{"result":{"valid":false,"reason":"exact_not_found",`},
		{"exit/2 for invalid_input, the error object on stdout", invalidBody, 2, `{"error":{"code":"invalid_input",`},
		{"exit/2 for limit_exceeded, the error object on stdout", limitBody, 2, `{"error":{"code":"limit_exceeded",`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := runCLI(t, nil, "run", citecheck.ToolID, citecheck.ToolVersion, "--input", writeInput(t, c.body))
			want, code := libraryAnswer([]byte(c.body))
			if got.code != c.code || code != c.code {
				t.Fatalf("exit %d (library says %d), want %d; stderr %q", got.code, code, c.code, got.stderr)
			}
			if got.stdout != want || !strings.HasPrefix(got.stdout, c.want) {
				t.Fatalf("stdout %q\nwant   %q", got.stdout, want)
			}
			assertOneLine(t, "stdout", got.stdout)
			if c.code == 0 {
				if got.stderr != "" {
					t.Errorf("stderr %q, want nothing", got.stderr)
				}
			} else {
				assertOneLine(t, "stderr", got.stderr)
			}
		})
	}
}

func TestRunReadsStandardInputWithInputDash(t *testing.T) {
	t.Parallel()
	for _, body := range []string{validBody, failedBody, invalidBody} {
		got := runCLI(t, strings.NewReader(body), "run", citecheck.ToolID, citecheck.ToolVersion, "--input", "-")
		want, code := libraryAnswer([]byte(body))
		if got.stdout != want || got.code != code {
			t.Fatalf("--input -: exit %d stdout %q; want %d %q", got.code, got.stdout, code, want)
		}
	}
}

func TestRunTakesFlagsBeforeOrAfterPositionalArguments(t *testing.T) {
	t.Parallel()
	f := writeInput(t, failedBody)
	want, code := libraryAnswer([]byte(failedBody))
	for _, args := range [][]string{
		{"run", "--input", f, citecheck.ToolID, citecheck.ToolVersion},
		{"run", citecheck.ToolID, "--input", f, citecheck.ToolVersion},
		{"run", citecheck.ToolID, citecheck.ToolVersion, "--input", f},
		{"run", citecheck.ToolID, citecheck.ToolVersion, "--input=" + f},
		{"run", "-input", f, citecheck.ToolID, citecheck.ToolVersion},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			got := runCLI(t, nil, args...)
			if got.stdout != want || got.code != code {
				t.Fatalf("exit %d stdout %q stderr %q", got.code, got.stdout, got.stderr)
			}
		})
	}
}

// Every public conformance case through the CLI gives the library's answer,
// byte for byte, and the matching exit status.
func TestRunAnswersEveryConformanceCaseAsTheLibrary(t *testing.T) {
	t.Parallel()
	n := 0
	for _, c := range testkit.Conformance(t) {
		body := c.Body
		n++
		t.Run(c.Name, func(t *testing.T) {
			got := runCLI(t, bytes.NewReader(body), "run", citecheck.ToolID, citecheck.ToolVersion, "--input", "-")
			want, code := libraryAnswer(body)
			if got.stdout != want || got.code != code {
				t.Fatalf("exit %d, want %d\n got %.300s\nwant %.300s", got.code, code, got.stdout, want)
			}
			if code != exitValid {
				assertOneLine(t, "stderr", got.stderr)
			}
		})
	}
	if n == 0 {
		t.Fatal("no conformance cases")
	}
}

func TestRunUnknownToolOrVersionExits2NamingWhatExists(t *testing.T) {
	t.Parallel()
	f := writeInput(t, validBody)
	for _, c := range []struct{ name, id, version string }{
		{"unknown tool", "citation-check", citecheck.ToolVersion},
		{"unknown version", citecheck.ToolID, "2.0.0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := runCLI(t, nil, "run", c.id, c.version, "--input", f)
			if got.code != exitError {
				t.Fatalf("exit %d", got.code)
			}
			var env struct{ Error *citecheck.Error }
			if err := json.Unmarshal([]byte(got.stdout), &env); err != nil || env.Error == nil {
				t.Fatalf("stdout is not an error envelope: %q", got.stdout)
			}
			if env.Error.Code != citecheck.CodeNotFound || !strings.Contains(env.Error.Message, citecheck.ToolID+" "+citecheck.ToolVersion) {
				t.Fatalf("want not_found naming %s %s, got %+v", citecheck.ToolID, citecheck.ToolVersion, env.Error)
			}
			assertOneLine(t, "stdout", got.stdout)
			assertOneLine(t, "stderr", got.stderr)
		})
	}
}

func TestContractPrintsTheContractUnchanged(t *testing.T) {
	t.Parallel()
	got := runCLI(t, nil, "contract")
	if got.code != 0 || got.stdout != string(citecheck.ContractJSON()) {
		t.Fatalf("exit %d, stdout differs from ContractJSON", got.code)
	}
	// The contract as the repository holds it (a copy of the seed).
	name := filepath.Join("..", "..", "contracts", "citation-batch-check@1.0.0.contract.json")
	want, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if got.stdout != string(want) {
		t.Errorf("contract differs from %s", name)
	}
}

func TestRunRefusesAnOversizedStdinWithoutReadingItAll(t *testing.T) {
	t.Parallel()
	r := &testkit.CountingReader{R: testkit.Endless(' ')}
	got := runCLI(t, r, "run", citecheck.ToolID, citecheck.ToolVersion, "--input", "-")
	if got.code != exitError {
		t.Fatalf("exit %d", got.code)
	}
	var env struct{ Error *citecheck.Error }
	if err := json.Unmarshal([]byte(got.stdout), &env); err != nil || env.Error == nil {
		t.Fatalf("stdout is not an error envelope: %q", got.stdout)
	}
	e := env.Error
	if e.Code != citecheck.CodeLimitExceeded || e.Limit != citecheck.LimitInputBytes || e.Max != citecheck.MaxInputBytes || e.Actual != citecheck.MaxInputBytes+1 || e.Path != "" {
		t.Fatalf("got %+v", e)
	}
	if r.N() > citecheck.MaxInputBytes+1 {
		t.Fatalf("read %d bytes of standard input; at most %d needed", r.N(), citecheck.MaxInputBytes+1)
	}
	assertOneLine(t, "stderr", got.stderr)
}

// The usage mistakes themselves are TestEveryWrongUseExits2WithOneLineThenThatCommandsUsage's table.
func TestUsageMistakesExit2(t *testing.T) {
	t.Parallel()
	t.Run("an input file that cannot be read", func(t *testing.T) {
		got := runCLI(t, nil, "run", citecheck.ToolID, citecheck.ToolVersion, "--input", filepath.Join(t.TempDir(), "missing.json"))
		if got.code != exitError || !strings.HasPrefix(got.stdout, `{"error":{"code":"usage",`) {
			t.Fatalf("exit %d stdout %q", got.code, got.stdout)
		}
		assertOneLine(t, "stderr", got.stderr)
	})
	t.Run("help exits 0 with the usage on stdout", func(t *testing.T) {
		got := runCLI(t, nil, "help")
		if got.code != 0 || !strings.Contains(got.stdout, "citecheck run citation-batch-check 1.0.0") {
			t.Fatalf("exit %d stdout %q", got.code, got.stdout)
		}
	})
}

// --base-url sends the call to a running service; the CLI prints and exits
// exactly as the in-process run does.
func TestRunWithBaseURLAnswersAsInProcess(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(server.New(server.Config{}))
	defer srv.Close()
	for _, body := range []string{validBody, failedBody, invalidBody, limitBody} {
		f := writeInput(t, body)
		local := runCLI(t, nil, "run", citecheck.ToolID, citecheck.ToolVersion, "--input", f)
		remote := runCLI(t, nil, "run", citecheck.ToolID, citecheck.ToolVersion, "--input", f, "--base-url", srv.URL+"/")
		if local.stdout != remote.stdout || local.code != remote.code || local.stderr != remote.stderr {
			t.Errorf("in-process: %d %q %q\n   remote: %d %q %q", local.code, local.stdout, local.stderr, remote.code, remote.stdout, remote.stderr)
		}
	}
}

// Golden files: the exact bytes of a few runs, to review by eye. Regenerate
// with `go test ./cmd/citecheck -run Golden -update`.
func TestRunGolden(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		args  []string
		stdin string
	}{
		{"valid", []string{"run", citecheck.ToolID, citecheck.ToolVersion, "--input", "../../examples/valid.json"}, ""},
		{"version-mismatch", []string{"run", citecheck.ToolID, citecheck.ToolVersion, "--input", "../../examples/version-mismatch.json"}, ""},
		{"invalid-input", []string{"run", citecheck.ToolID, citecheck.ToolVersion, "--input", "-"}, invalidBody},
		{"limit-exceeded", []string{"run", citecheck.ToolID, citecheck.ToolVersion, "--input", "-"}, limitBody},
		{"not-found", []string{"run", citecheck.ToolID, "9.9.9", "--input", "-"}, validBody},
		{"explain", []string{"run", citecheck.ToolID, citecheck.ToolVersion, "--explain", "--input", "testdata/explain-request.json"}, ""},
		{"explain-text", []string{"run", citecheck.ToolID, citecheck.ToolVersion, "--explain", "--format", "text", "--color", "never", "--input", "testdata/explain-request.json"}, ""},
		{"explain-jsonl", []string{"run", citecheck.ToolID, citecheck.ToolVersion, "--explain", "--jsonl", "--input", "testdata/explain-requests.jsonl"}, ""},
		{"fix", []string{"run", citecheck.ToolID, citecheck.ToolVersion, "--fix", "--input", "testdata/explain-request.json"}, ""},
		{"fix-jsonl", []string{"run", citecheck.ToolID, citecheck.ToolVersion, "--fix", "--jsonl", "--input", "testdata/explain-requests.jsonl"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := runCLI(t, strings.NewReader(c.stdin), c.args...)
			var b strings.Builder
			b.WriteString("$ citecheck " + strings.Join(c.args, " ") + "\n")
			b.WriteString("exit " + string(rune('0'+got.code)) + "\n")
			b.WriteString("--- stdout\n" + got.stdout)
			b.WriteString("--- stderr\n" + got.stderr)
			golden := filepath.Join("testdata", c.name+".golden")
			if *update {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if b.String() != string(want) {
				t.Fatalf("output differs from %s (run with -update if the change is right)\n got:\n%s\nwant:\n%s", golden, b.String(), want)
			}
		})
	}
}

// A request's id on standard error is a JSON string with every code point
// a terminal or the bidi algorithm acts on written as \uXXXX: it can set
// no title, move no cursor and reorder no line.
func TestIDForTerminalEscapesWhatATerminalActsOn(t *testing.T) {
	for _, c := range []struct{ id, want string }{
		{"c1", `"c1"`},
		{"\x1b]0;t\x07\x1b[31m", `"\u001b]0;t\u0007\u001b[31m"`},
		{"\u009b2J\u007f", `"\u009b2J\u007f"`},
		{"\u202eevil\u2066\u2069\u200f\u061c", `"\u202eevil\u2066\u2069\u200f\u061c"`},
		{"a\u2028b\u2029", `"a\u2028b\u2029"`},
		{"é \"\\ 東", `"é \"\\ 東"`},
	} {
		if got := idForTerminal(c.id); got != c.want {
			t.Errorf("idForTerminal(%q) = %s, want %s", c.id, got, c.want)
		}
	}
}
