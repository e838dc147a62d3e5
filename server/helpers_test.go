package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/conformance"
)

// testServer is a real server on a random loopback port.
type testServer struct {
	*Server
	URL  string
	stop func() error // cancels the context and waits for Serve to return
}

// start runs New(cfg) on 127.0.0.1:0 until the test ends (or stop).
func start(t testing.TB, cfg Config) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return startOn(t, cfg, ln)
}

// startOn is start on a listener of the test's own.
func startOn(t testing.TB, cfg Config, ln net.Listener) *testServer {
	t.Helper()
	s := New(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	var stopped bool
	var stopErr error
	stop := func() error {
		if !stopped {
			stopped = true
			cancel()
			select {
			case stopErr = <-done:
			case <-time.After(30 * time.Second):
				t.Error("Serve did not return after cancel")
			}
		}
		return stopErr
	}
	t.Cleanup(func() { stop() })
	return &testServer{Server: s, URL: "http://" + ln.Addr().String(), stop: stop}
}

// executePath is the execute route of the tool.
const executePath = "/v1/tools/citation-batch-check/versions/1.0.0/execute"

// post sends body as JSON to url and returns the status and body.
func post(t testing.TB, url string, body []byte) (*http.Response, []byte) {
	t.Helper()
	return do(t, http.MethodPost, url, "application/json", body)
}

func do(t testing.TB, method, url, contentType string, body []byte) (*http.Response, []byte) {
	t.Helper()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, out
}

// inProcess is the answer the CLI gives in-process for body: ReadBody
// (the size limit), then Run.
func inProcess(body []byte) ([]byte, *citecheck.Result, *citecheck.Error) {
	b, e := citecheck.ReadBody(bytes.NewReader(body))
	var res *citecheck.Result
	if e == nil {
		res, e = citecheck.Run(b)
	}
	return citecheck.AppendEnvelope(nil, res, e), res, e
}

// loadConformance reads every public conformance case.
func loadConformance(t testing.TB) []conformance.Case {
	t.Helper()
	cases, err := conformance.Load("../testdata/conformance.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// errorOf parses an {"error": …} body, failing the test if it is not one.
func errorOf(t testing.TB, body []byte) citecheck.Error {
	t.Helper()
	var env struct {
		Error *citecheck.Error `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&env); err != nil || env.Error == nil {
		t.Fatalf("not an error envelope (%v): %s", err, body)
	}
	return *env.Error
}
