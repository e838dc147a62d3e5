package server

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
)

// rawRequest opens a TCP connection and writes a request head for execute.
func rawRequest(t *testing.T, ts *testServer, headers string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	head := "POST " + executePath + " HTTP/1.1\r\nHost: " + strings.TrimPrefix(ts.URL, "http://") +
		"\r\nContent-Type: application/json\r\n" + headers + "\r\n"
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	return conn
}

func readResponse(t *testing.T, conn net.Conn, within time.Duration) (*http.Response, []byte) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(within))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer within %v: %v", within, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

// TestOversizedDeclaredBody: a Content-Length of 10 MiB is refused with 413
// before a single body byte is sent, so the server cannot have read it.
func TestOversizedDeclaredBody(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	conn := rawRequest(t, ts, "Content-Length: 10485760\r\n")
	resp, body := readResponse(t, conn, 5*time.Second)
	if resp.StatusCode != 413 {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if e := errorOf(t, body); e.Code != citecheck.CodeLimitExceeded || e.Limit != citecheck.LimitInputBytes || e.Max != citecheck.MaxInputBytes {
		t.Fatalf("error %+v", e)
	}
	if !resp.Close {
		t.Error("the server keeps the connection open with 10 MiB unread")
	}
}

// TestOversizedBodyWithClient: the same through net/http's client, with a
// 10 MiB body it counts: the answer is 413, and far from all of the body
// was taken from the reader.
func TestOversizedBodyWithClient(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	const size = 10 << 20
	cr := &testkit.CountingReader{R: io.LimitReader(testkit.Endless(' '), size)}
	req, _ := http.NewRequest("POST", ts.URL+executePath, cr)
	req.ContentLength = size
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 413 || errorOf(t, body).Code != citecheck.CodeLimitExceeded {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if n := cr.N(); n >= size {
		t.Fatalf("the client sent the whole %d bytes", n)
	} else {
		t.Logf("client sent %d of %d bytes", n, size)
	}
}

// TestOversizedChunkedBody: with no Content-Length the server reads up to
// the limit and answers 413 while the body is still coming: it stopped
// reading there rather than waiting for the end.
func TestOversizedChunkedBody(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	conn := rawRequest(t, ts, "Transfer-Encoding: chunked\r\n")
	go func() {
		chunk := bytes.Repeat([]byte(" "), 64<<10)
		for sent := 0; sent < 2<<20; sent += len(chunk) {
			if _, err := fmt.Fprintf(conn, "%x\r\n%s\r\n", len(chunk), chunk); err != nil {
				return
			}
		}
		// No last chunk: the body never ends.
	}()
	resp, body := readResponse(t, conn, 5*time.Second)
	if resp.StatusCode != 413 || errorOf(t, body).Limit != citecheck.LimitInputBytes {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}

// TestSlowBody: a client that sends the head and then trickles (here:
// stops) its body is cut off by ReadTimeout, and its slot is freed.
func TestSlowBody(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{ReadTimeout: 300 * time.Millisecond})
	conn := rawRequest(t, ts, "Content-Length: 100\r\n")
	io.WriteString(conn, `{"sources":`)
	began := time.Now()
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err == nil {
		body, _ := io.ReadAll(resp.Body)
		// The read failed under the handler: the body could not be read.
		if resp.StatusCode != 400 || errorOf(t, body).Code != citecheck.CodeInvalidInput {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the server still waits for the body after its ReadTimeout")
	}
	if d := time.Since(began); d > 3*time.Second {
		t.Fatalf("cut off after %v", d)
	}
	waitIdle(t, ts)
}

// TestSlowHeaders: a client that never finishes its head is dropped after
// ReadHeaderTimeout.
func TestSlowHeaders(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{ReadHeaderTimeout: 200 * time.Millisecond})
	conn, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "POST "+executePath+" HTTP/1.1\r\nHost: x\r\n")
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = io.ReadAll(conn) // the server closes; any answer is fine
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the connection is still open 5 s after ReadHeaderTimeout")
	}
}

// waitIdle waits until no request holds a slot.
func waitIdle(t *testing.T, ts *testServer) {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Second); ts.slots.inUse() > 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d slots still held", ts.slots.inUse())
		}
	}
}

// holdSlots makes every request that takes a slot wait in the hook until
// release is called; entered receives one value per request in the hook.
func holdSlots(s *Server) (entered chan struct{}, release func()) {
	entered = make(chan struct{}, 64)
	gate := make(chan struct{})
	var once sync.Once
	s.testHookHoldingSlot = func(*http.Request) {
		entered <- struct{}{}
		<-gate
	}
	return entered, func() { once.Do(func() { close(gate) }) }
}

// within waits for ch to deliver, failing t after 10 s: every wait on
// another goroutine is bounded, so a broken server fails the test rather
// than hanging it.
func within[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not happen within 10 s", what)
		panic("unreachable")
	}
}

// TestBurst: with every slot held, one more request waits QueueWait and is
// refused with 503, Retry-After and the overloaded error; the held ones
// then finish normally.
func TestBurst(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{MaxInFlight: 2, QueueWait: 100 * time.Millisecond})
	entered, release := holdSlots(ts.Server)
	defer release()
	example := exampleInput(t)
	held := []<-chan answer{postAsync(ts.URL+executePath, example), postAsync(ts.URL+executePath, example)}
	for range held {
		within(t, entered, "a held request taking its slot")
	}
	began := time.Now()
	resp, body := post(t, ts.URL+executePath, example)
	if resp.StatusCode != 503 || errorOf(t, body).Code != citecheck.CodeOverloaded {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if ra := resp.Header.Get("Retry-After"); ra != "1" {
		t.Errorf("Retry-After %q", ra)
	}
	if d := time.Since(began); d < 100*time.Millisecond {
		t.Errorf("refused after %v, before QueueWait", d)
	}
	// MCP shares the slots.
	mresp, mbody := do(t, "POST", ts.URL+"/mcp", "application/json", []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	if mresp.StatusCode != 503 || errorOf(t, mbody).Code != citecheck.CodeOverloaded {
		t.Fatalf("/mcp: %d %s", mresp.StatusCode, mbody)
	}
	release()
	for _, ch := range held {
		if a := within(t, ch, "a held request's answer").check(t); a.status != 200 {
			t.Errorf("a held request got %d", a.status)
		}
	}
	// And the slots are free again.
	waitIdle(t, ts)
	if resp, _ := post(t, ts.URL+executePath, example); resp.StatusCode != 200 {
		t.Fatalf("after the burst: %d", resp.StatusCode)
	}
}

// TestQueueWaitAdmits: a request that finds the slots full but one frees
// within QueueWait is served, not refused.
func TestQueueWaitAdmits(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{MaxInFlight: 1, QueueWait: 5 * time.Second})
	entered, release := holdSlots(ts.Server)
	defer release()
	queued := make(chan struct{}, 1)
	ts.testHookQueued = func(*http.Request) { queued <- struct{}{} }
	example := exampleInput(t)
	first := postAsync(ts.URL+executePath, example)
	within(t, entered, "the first request taking the slot")
	second := postAsync(ts.URL+executePath, example)
	within(t, queued, "the second request queueing for the slot")
	release()
	a, b := within(t, first, "the first answer").check(t), within(t, second, "the second answer").check(t)
	if a.status != 200 || b.status != 200 {
		t.Fatalf("statuses %d %d", a.status, b.status)
	}
}

// TestShutdownLetsInFlightFinish: cancelling the context while a request is
// being checked stops new connections but lets that request answer 200.
func TestShutdownLetsInFlightFinish(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{ShutdownTimeout: 10 * time.Second})
	entered, release := holdSlots(ts.Server)
	defer release()
	example := exampleInput(t)
	got := postAsync(ts.URL+executePath, example)
	within(t, entered, "the request taking its slot")
	stopped := make(chan error, 1)
	go func() { stopped <- ts.stop() }()
	// Shutdown begins by closing the listener: new connections are refused
	// while the request is still in flight.
	addr := strings.TrimPrefix(ts.URL, "http://")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Now().After(deadline) {
			t.Fatal("new connections are still accepted 10 s after shutdown began")
		}
	}
	// Serve must not return while the request is in flight.
	select {
	case err := <-stopped:
		t.Fatalf("Serve returned (%v) with a request in flight", err)
	default:
	}
	release()
	a := within(t, got, "the in-flight request's answer").check(t)
	want, _, _ := inProcess(example)
	if a.status != 200 || !bytes.Equal(a.body, want) {
		t.Fatalf("in-flight request: %d %s", a.status, a.body)
	}
	if err := within(t, stopped, "Serve returning"); err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

func exampleInput(t testing.TB) []byte {
	tool, err := parseContract(citecheck.ContractJSON())
	if err != nil {
		t.Fatal(err)
	}
	return tool.Examples[0].Input
}

// TestShortBody: a body shorter than its Content-Length is invalid_input,
// in the engine's words for a body that could not be read.
func TestShortBody(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	conn := rawRequest(t, ts, "Content-Length: 100\r\n")
	io.WriteString(conn, `{"sources":`)
	conn.(*net.TCPConn).CloseWrite()
	resp, body := readResponse(t, conn, 5*time.Second)
	_, want := citecheck.ReadBody(io.MultiReader(strings.NewReader(`{"sources":`), failingReader{io.ErrUnexpectedEOF}))
	if resp.StatusCode != 400 || !bytes.Equal(body, citecheck.AppendEnvelope(nil, nil, want)) {
		t.Fatalf("%d %s\nwant %s", resp.StatusCode, body, citecheck.AppendEnvelope(nil, nil, want))
	}
}
