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
	resp, out, err := send(method, url, contentType, body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, out
}

// send is do without a test: for goroutines other than the test's, which
// must not call t.Fatal. A nil body sends none.
func send(method, url, contentType string, body []byte) (*http.Response, []byte, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, r)
	if err != nil {
		return nil, nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return resp, out, err
}

// answer is what a request sent by postAsync got.
type answer struct {
	status int
	body   []byte
	err    error
}

// postAsync posts body as JSON to url from a new goroutine and delivers the
// answer on the channel, so that the test goroutine, not the sender, judges
// it (and may call t.Fatal).
func postAsync(url string, body []byte) <-chan answer {
	ch := make(chan answer, 1)
	go func() {
		resp, out, err := send(http.MethodPost, url, "application/json", body)
		a := answer{body: out, err: err}
		if resp != nil {
			a.status = resp.StatusCode
		}
		ch <- a
	}()
	return ch
}

// check fails t if the request could not be made, and returns a.
func (a answer) check(t testing.TB) answer {
	t.Helper()
	if a.err != nil {
		t.Fatalf("request failed: %v", a.err)
	}
	return a
}

// inProcess is the answer the CLI gives in-process for body: ReadBody
// (the size limit), then Run.
func inProcess(body []byte) ([]byte, *citecheck.Result, *citecheck.Error) {
	b, e := citecheck.ReadBody(bytes.NewReader(body))
	var res *citecheck.Result
	if e == nil {
		res, e = citecheck.Run(b)
	}
	return citecheck.AppendEnvelope(nil, res, e), res, citecheck.AsError(e)
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
