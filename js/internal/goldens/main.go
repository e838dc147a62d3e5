// Command goldens writes the Go answers the JavaScript package's tests
// compare with, one JSON object a line: every public conformance case
// (loaded by internal/testkit, as the Go tests load them), every JSON
// parsing case of testdata/jsontestsuite and every examples/ file, each
// with the answer of the HTTP execute route (the server's handler, in
// process) and, from the CLI binary named by -cli, the lines of `run
// --all` and `run --explain`. Nothing is kept: the answers are made anew
// from the engine on each run, so a divergence fails the test that reads
// them (js/test/conformance.test.js, js/test/browser.test.js).
//
//	go run ./internal/goldens -cli /tmp/citecheck > goldens.jsonl
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"

	"github.com/citecheck/citecheck/internal/testkit"
	"github.com/citecheck/citecheck/server"
)

// golden is one body and the answers Go gives it.
type golden struct {
	Name    string `json:"name"`
	Body    []byte `json:"body"`    // base64, as encoding/json writes []byte
	Execute []byte `json:"execute"` // the route's response body
	All     []byte `json:"all"`     // `run --all`'s standard output, newline included
	Explain []byte `json:"explain"` // `run --explain`'s
}

func main() {
	cli := flag.String("cli", "", "the citecheck binary for --all and --explain (required)")
	flag.Parse()
	if *cli == "" {
		fmt.Fprintln(os.Stderr, "goldens: -cli BINARY is required")
		os.Exit(2)
	}
	if err := write(*cli); err != nil {
		fmt.Fprintln(os.Stderr, "goldens:", err)
		os.Exit(1)
	}
}

func write(cli string) error {
	cases, err := testkit.LoadConformance(testkit.Testdata("conformance.jsonl"))
	if err != nil {
		return err
	}
	var bodies []golden
	for _, c := range cases {
		bodies = append(bodies, golden{Name: "conformance/" + c.Name, Body: c.Body})
	}
	for _, glob := range []string{testkit.Testdata("jsontestsuite", "test_parsing", "*.json"), filepath.Join(filepath.Dir(testkit.Testdata()), "examples", "*.json")} {
		files, err := filepath.Glob(glob)
		if err != nil {
			return err
		}
		sort.Strings(files)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			bodies = append(bodies, golden{Name: filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f), Body: b})
		}
	}
	if len(bodies) < 100 {
		return fmt.Errorf("only %d bodies found: is testdata/ there?", len(bodies))
	}
	h := server.New(server.DefaultConfig())
	tmp, err := os.MkdirTemp("", "goldens")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	// A few bodies at a time: most of the time is the CLI's start.
	errs := make([]error, len(bodies))
	next := make(chan int)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i := range next {
				errs[i] = answer(h, cli, tmp, i, &bodies[i])
			}
		})
	}
	for i := range bodies {
		next <- i
	}
	close(next)
	wg.Wait()
	w := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(w)
	for i := range bodies {
		if errs[i] != nil {
			return fmt.Errorf("%s: %v", bodies[i].Name, errs[i])
		}
		if err := enc.Encode(&bodies[i]); err != nil {
			return err
		}
	}
	return w.Flush()
}

// answer fills in g's answers: the route's from h, the CLI's from a run
// on a copy of the body in dir.
func answer(h http.Handler, cli, dir string, i int, g *golden) error {
	req := httptest.NewRequest(http.MethodPost, "/v1/tools/citation-batch-check/versions/1.0.0/execute", bytes.NewReader(g.Body))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	g.Execute = rec.Body.Bytes()
	file := filepath.Join(dir, fmt.Sprintf("body%d.json", i))
	if err := os.WriteFile(file, g.Body, 0o644); err != nil {
		return err
	}
	var err error
	if g.All, err = run(cli, "--all", file); err != nil {
		return err
	}
	g.Explain, err = run(cli, "--explain", file)
	return err
}

// run is the CLI's standard output for the body in file; exit statuses
// 1 and 2 are answers, anything else is a failure of the run.
func run(cli, flag, file string) ([]byte, error) {
	out, err := exec.Command(cli, "run", "citation-batch-check", "1.0.0", flag, "--input", file).Output()
	if ee, ok := err.(*exec.ExitError); ok && (ee.ExitCode() == 1 || ee.ExitCode() == 2) {
		err = nil
	}
	return out, err
}
