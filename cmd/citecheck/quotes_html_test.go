package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citecheck/citecheck/internal/testkit"
	"github.com/citecheck/citecheck/server"
)

// quotesGuideRuns are the `citecheck quotes` commands of docs/quotes.md's
// worked examples, each with its arguments as this package runs them
// (repoPath) and without --format.
func quotesGuideRuns(t *testing.T) [][]string {
	t.Helper()
	var runs [][]string
	for _, m := range guideCommand.FindAllStringSubmatch(readFile(t, "../../docs/quotes.md"), -1) {
		args := strings.Fields(m[1])
		if args[0] != "quotes" {
			continue
		}
		var kept []string
		for i := 0; i < len(args); i++ {
			if args[i] == "--format" {
				i++
				continue
			}
			kept = append(kept, repoPath(args[i]))
		}
		runs = append(runs, kept)
	}
	if len(runs) < 4 {
		t.Fatalf("%d quotes examples in docs/quotes.md, want one for each shape", len(runs))
	}
	return runs
}

// htmlOutcomes is testkit.DataOutcomes of page, failing t on an error.
func htmlOutcomes(t *testing.T, page string) []string {
	t.Helper()
	out, err := testkit.DataOutcomes(page)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// `quotes --format html` of each worked example of docs/quotes.md is one
// page whose elements' data-outcome, in document order, are the JSON
// lines' outcomes; the exit status and the summary on standard error are
// the JSON run's.
func TestQuotesHTMLOutcomesAreTheJSONLines(t *testing.T) {
	t.Parallel()
	for _, args := range quotesGuideRuns(t) {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			j := runCLI(t, nil, append(slices.Clone(args), "--format", "json")...)
			h := runCLI(t, nil, append(slices.Clone(args), "--format", "html")...)
			if h.code != j.code || h.stderr != j.stderr {
				t.Errorf("html: exit %d, %q; json: exit %d, %q", h.code, h.stderr, j.code, j.stderr)
			}
			if strings.Count(h.stdout, "<html") != 1 || !strings.HasPrefix(h.stdout, "<!DOCTYPE html>") {
				t.Errorf("not one page:\n%.300s", h.stdout)
			}
			want, got := lineOutcomes(t, j.stdout), htmlOutcomes(t, h.stdout)
			if !slices.Equal(got, want) {
				t.Errorf("data-outcome %q, JSON lines %q", got, want)
			}
		})
	}
}

// A refused input prints no page, as it prints no JSON line.
func TestQuotesHTMLOfARefusedInputIsNothing(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"citations": [`), 0o644)
	r := runCLI(t, nil, "quotes", "--format", "html", "--source=3="+quotesFixtures+"kafka.txt", bad)
	if r.code != exitError || r.stdout != "" || !strings.Contains(r.stderr, "not JSON") {
		t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

var updateHTML = flag.Bool("update-html", false, "rewrite testdata/quotes-*.html from the current output")

// The page of a small report (the example of docs/quotes.md) and of an
// Anthropic response, to the byte, but for the renderer's style sheet,
// script and the script's hash (report's own golden pages hold those):
// golden files (go test ./cmd/citecheck -run TestQuotesHTMLGolden
// -update-html rewrites them).
func TestQuotesHTMLGolden(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"quotes-report.html", []string{"quotes", "--format", "html", "--explain", "--sources", quotesFixtures + "sources.tsv", quotesFixtures + "report.md"}},
		{"quotes-anthropic.html", []string{"quotes", "--format", "html", "--explain", "--request", quotesFixtures + "anthropic-request.json", quotesFixtures + "anthropic-response.json"}},
	} {
		got := testkit.WithoutPageOwnParts([]byte(runCLI(t, nil, c.args...).stdout))
		path := filepath.Join("testdata", c.name)
		if *updateHTML {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./cmd/citecheck -run TestQuotesHTMLGolden -update-html writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the page differs from the golden file (-update-html rewrites it after a review)", c.name)
		}
	}
}

// POST /v1/quotes/report answers, for check_quotes's arguments, the page
// `quotes --format html --explain` writes for the same text (a file
// named "text", the route's name for it) and sources, to the byte
// (spec §5.15): one renderer, one adapter, for the service and the
// command.
func TestQuotesReportRouteIsTheCommandsPage(t *testing.T) {
	dir := t.TempDir()
	report := readFile(t, repoPath("examples/quotes/report.md"))
	if err := os.WriteFile(filepath.Join(dir, "text"), []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"quotes", "--format", "html", "--explain"}
	type source struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	}
	var sources []source
	for _, s := range []struct{ id, file string }{{"1", "austen.txt"}, {"2", "declaration.txt"}, {"3", "kafka.txt"}} {
		path, err := filepath.Abs(repoPath("examples/quotes/" + s.file))
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, "--source", s.id+"="+path)
		sources = append(sources, source{s.id, readFile(t, path)})
	}
	// The command names its input as given: run it from dir, as "text".
	t.Chdir(dir)
	cli := runCLI(t, nil, append(args, "text")...)
	if cli.code != exitFailed {
		t.Fatalf("the example has failing quotations: exit %d, %s", cli.code, cli.stderr)
	}
	body, err := json.Marshal(map[string]any{"text": report, "sources": sources})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(server.New(server.Config{}))
	defer srv.Close()
	resp, err := http.Post(srv.URL+"/v1/quotes/report", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || string(got) != cli.stdout {
		t.Errorf("status %d; the route's page differs from the command's:\nroute: %.400s\ncommand: %.400s", resp.StatusCode, got, cli.stdout)
	}
}
