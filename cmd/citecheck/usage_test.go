package main

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
)

// The command as a user meets it (spec §4.4): every --help exits 0 and
// lists that command's flags; every wrong use exits 2 with one line saying
// what is wrong, then the usage of that command, not the general one.

func TestEveryHelpExits0AndListsThatCommandsFlags(t *testing.T) {
	t.Parallel()
	runFlags := []string{"-input", "-base-url", "-jsonl", "-all", "-explain", "-fix", "-format", "-color"}
	serveFlags := []string{"-addr", "-public-url", "-max-in-flight", "-queue-wait", "-body-memory", "-min-body-rate",
		"-body-rate-grace", "-max-conns", "-read-header-timeout", "-read-timeout", "-write-timeout", "-idle-timeout",
		"-shutdown-timeout", "-drain-delay", "-cors-origin"}
	annotationsFlags := []string{"--source", "--sources", "--html", "--format", "--fix"}
	for _, c := range []struct {
		args  []string
		usage string   // the synopsis the help starts with
		flags []string // each listed; none: it says it takes none
	}{
		{[]string{"run", "--help"}, "citecheck run citation-batch-check 1.0.0", runFlags},
		{[]string{"run", "-h"}, "citecheck run citation-batch-check 1.0.0", runFlags},
		{[]string{"run", citecheck.ToolID, citecheck.ToolVersion, "--input", "x.json", "--help"}, "citecheck run citation-batch-check 1.0.0", runFlags},
		{[]string{"help", "run"}, "citecheck run citation-batch-check 1.0.0", runFlags},
		{[]string{"annotations", "--help"}, "citecheck annotations", annotationsFlags},
		{[]string{"help", "annotations"}, "citecheck annotations", annotationsFlags},
		{[]string{"serve", "--help"}, "citecheck serve", serveFlags},
		{[]string{"serve", "-h"}, "citecheck serve", serveFlags},
		{[]string{"help", "serve"}, "citecheck serve", serveFlags},
		{[]string{"version", "--help"}, "citecheck version", nil},
		{[]string{"mcp", "--help"}, "citecheck mcp", nil},
		{[]string{"mcp", "-h"}, "citecheck mcp", nil},
		{[]string{"contract", "--help"}, "citecheck contract", nil},
		{[]string{"help"}, "citecheck run", nil},
		{[]string{"--help"}, "citecheck run", nil},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			got := runCLI(t, nil, c.args...)
			if got.code != exitValid || got.stderr != "" {
				t.Fatalf("exit %d, stderr %q: help is not a mistake", got.code, got.stderr)
			}
			if !strings.HasPrefix(got.stdout, "usage:") || !strings.Contains(got.stdout, c.usage) {
				t.Errorf("stdout does not start with the usage of %q:\n%s", c.usage, got.stdout)
			}
			for _, f := range c.flags {
				if !strings.Contains(got.stdout, "  "+f+" ") && !strings.Contains(got.stdout, "  "+f+"\n") && !strings.Contains(got.stdout, "["+f) {
					t.Errorf("%s is not listed:\n%s", f, got.stdout)
				}
			}
			if c.flags == nil && c.args[0] != "help" && c.args[0] != "--help" && !strings.Contains(got.stdout, "takes no flags") {
				t.Errorf("a command without flags does not say so:\n%s", got.stdout)
			}
		})
	}
}

func TestEveryWrongUseExits2WithOneLineThenThatCommandsUsage(t *testing.T) {
	t.Parallel()
	f := writeInput(t, validBody)
	for _, c := range []struct {
		name string
		args []string
		line string // the first line of stderr contains it
		of   string // whose usage follows: a command, or "" for the general usage
	}{
		{"version with an argument", []string{"version", "extra"}, `version takes no arguments, got "extra"`, "version"},
		{"--version with an argument", []string{"--version", "extra"}, `version takes no arguments, got "extra"`, "version"},
		{"mcp with an argument", []string{"mcp", "extra"}, `mcp takes no arguments, got "extra"`, "mcp"},
		{"contract with an argument", []string{"contract", "extra"}, `contract takes no arguments, got "extra"`, "contract"},
		{"serve with an argument", []string{"serve", "extra"}, `serve takes no arguments, got "extra"`, "serve"},
		{"serve with an unknown flag", []string{"serve", "--bogus"}, "serve: flag provided but not defined: -bogus", "serve"},
		{"serve with an address without a port", []string{"serve", "--addr", "localhost"}, `--addr (or CITECHECK_ADDR) "localhost" is not HOST:PORT`, "serve"},
		{"serve with a public URL without a scheme", []string{"serve", "--public-url", "cite.example.org"}, `--public-url "cite.example.org" must be an http(s) URL`, "serve"},
		{"serve with a bad duration", []string{"serve", "--queue-wait", "soon"}, `serve: invalid value "soon" for flag -queue-wait`, "serve"},
		{"mcp with a flag", []string{"mcp", "--verbose"}, "mcp: flag provided but not defined: -verbose", "mcp"},
		{"version with a flag", []string{"version", "--short"}, "version: flag provided but not defined: -short", "version"},
		{"run with an extra argument after --input", []string{"run", citecheck.ToolID, citecheck.ToolVersion, "--input", f, "extra"},
			`run takes a tool id and a version; "extra" is one argument too many`, "run"},
		{"run with an extra argument before --input", []string{"run", citecheck.ToolID, citecheck.ToolVersion, "extra", "--input", f},
			`run takes a tool id and a version; "extra" is one argument too many`, "run"},
		{"run without arguments", []string{"run"}, "run takes a tool id and a version: run citation-batch-check 1.0.0", "run"},
		{"run without a version", []string{"run", citecheck.ToolID, "--input", f}, "run takes a tool id and a version: run citation-batch-check 1.0.0", "run"},
		{"run without --input", []string{"run", citecheck.ToolID, citecheck.ToolVersion}, "--input FILE (or - for standard input) is required", "run"},
		{"run with an unknown flag", []string{"run", citecheck.ToolID, citecheck.ToolVersion, "--input", f, "--verbose"}, "run: flag provided but not defined: -verbose", "run"},
		{"run with --input and no value", []string{"run", citecheck.ToolID, citecheck.ToolVersion, "--input"}, "run: flag needs an argument: -input", "run"},
		{"run with a bad --format", []string{"run", citecheck.ToolID, citecheck.ToolVersion, "--input", f, "--format", "yaml"}, "--format is json, text or html", "run"},
		{"run with a --base-url that is no http URL", []string{"run", citecheck.ToolID, citecheck.ToolVersion, "--input", f, "--base-url", "127.0.0.1:8080"}, `--base-url "127.0.0.1:8080" must be an http(s) URL`, "run"},
		{"annotations with two inputs", []string{"annotations", "a.json", "b.json"}, "annotations takes one input file", "annotations"},
		{"help for an unknown command", []string{"help", "frobnicate"}, `unknown command "frobnicate"`, ""},
		{"an unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`, ""},
		{"no command", nil, "a command is needed", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := runCLI(t, nil, c.args...)
			if got.code != exitError || got.stdout != "" {
				t.Fatalf("exit %d, stdout %q: want 2 and nothing on stdout", got.code, got.stdout)
			}
			first, rest, _ := strings.Cut(got.stderr, "\n")
			if !strings.HasPrefix(first, "citecheck: ") || !strings.Contains(first, c.line) {
				t.Errorf("first line %q does not say %q", first, c.line)
			}
			help := runCLI(t, nil, "help")
			if c.of != "" {
				help = runCLI(t, nil, "help", c.of)
			}
			if strings.TrimLeft(rest, "\n") != help.stdout {
				t.Errorf("after the first line, not the usage of %q:\n%s", c.of, rest)
			}
		})
	}
}

// TestInputThatIsADirectoryIsAUsageErrorLikeAMissingFile: --input names
// something that is no file to read; both are the usage error, found
// before anything is answered, so --jsonl prints no summary before it.
func TestInputThatIsADirectoryIsAUsageErrorLikeAMissingFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		name, input, message string
	}{
		{"a missing file", filepath.Join(dir, "missing.json"), "cannot read --input: open "},
		{"a directory", dir, "cannot read --input: " + dir + " is a directory"},
	} {
		for _, mode := range [][]string{nil, {"--jsonl"}, {"--all"}, {"--fix"}, {"--format", "text"}} {
			args := append([]string{"run", citecheck.ToolID, citecheck.ToolVersion, "--input", c.input}, mode...)
			t.Run(c.name+" "+strings.Join(mode, " "), func(t *testing.T) {
				got := runCLI(t, nil, args...)
				if got.code != exitError {
					t.Fatalf("exit %d", got.code)
				}
				var env struct{ Error *citecheck.Error }
				if err := json.Unmarshal([]byte(got.stdout), &env); err != nil || env.Error == nil ||
					env.Error.Code != citecheck.CodeUsage || !strings.HasPrefix(env.Error.Message, c.message) {
					t.Errorf("stdout %q: want the usage error %q…", got.stdout, c.message)
				}
				assertOneLine(t, "stdout", got.stdout)
				assertOneLine(t, "stderr", got.stderr)
				if !strings.HasPrefix(got.stderr, "citecheck: usage: "+c.message) {
					t.Errorf("stderr %q", got.stderr)
				}
			})
		}
	}
}

// TestBaseURLWithoutAServiceIsUnavailable: no service at --base-url is
// the code unavailable (spec §4.4), not internal: nothing in this command
// or the request is at fault.
func TestBaseURLWithoutAServiceIsUnavailable(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	notOurs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "<html>Bad Gateway</html>", http.StatusBadGateway)
	}))
	defer notOurs.Close()
	cut := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "100")
		w.Write([]byte(`{"result":`))
	}))
	defer cut.Close()
	f := writeInput(t, validBody)
	for _, c := range []struct{ name, url, message string }{
		{"nothing listening", closed, "cannot reach the service at --base-url"},
		{"another server answering", notOurs.URL, "the service answered 502 Bad Gateway with something else than an envelope"},
		{"an answer cut short", cut.URL, "reading the service's answer"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := runCLI(t, nil, "run", citecheck.ToolID, citecheck.ToolVersion, "--input", f, "--base-url", c.url)
			var env struct{ Error *citecheck.Error }
			if got.code != exitError || json.Unmarshal([]byte(got.stdout), &env) != nil || env.Error == nil ||
				env.Error.Code != citecheck.CodeUnavailable || !strings.Contains(env.Error.Message, c.message) {
				t.Fatalf("exit %d stdout %q: want unavailable, %q", got.code, got.stdout, c.message)
			}
			assertOneLine(t, "stderr", got.stderr)
		})
	}
}
