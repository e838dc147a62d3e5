package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/citecheck/citecheck"
)

// The attacks of issue 13, each on loopback, bounded in count and time.

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// metricValue scrapes /metrics for one sample ("name" or
// `name{label="value"}`); 0 when it is absent.
func metricValue(t *testing.T, ts *testServer, sample string) float64 {
	t.Helper()
	_, body := do(t, "GET", ts.URL+"/metrics", "", nil)
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, sample+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return f
		}
	}
	return 0
}

// fastClientsServed posts the example from n clients at once and checks
// that every one gets the in-process answer.
func fastClientsServed(t *testing.T, ts *testServer, n int) {
	t.Helper()
	example := exampleInput(t)
	want, _, _ := inProcess(example)
	got := make(chan answer, n)
	for range n {
		go func() { got <- <-postAsync(ts.URL+executePath, example) }()
	}
	for range n {
		a := <-got
		if a.err != nil || a.status != 200 || !bytes.Equal(a.body, want) {
			t.Errorf("a fast client got %d %v %.200s", a.status, a.err, a.body)
		}
	}
}

// TestSlowSendersCostBodyMemoryNotSlots: as many clients as there are
// check slots send their head and then trickle nothing; they hold body
// memory (their declared lengths) but no slot, and three times as many
// fast clients at once are all answered.
func TestSlowSendersCostBodyMemoryNotSlots(t *testing.T) {
	const slots, declared = 4, 100_000
	ts := start(t, Config{MaxInFlight: slots, QueueWait: 100 * time.Millisecond,
		ReadTimeout: time.Minute, BodyRateGrace: time.Minute})
	for range slots {
		conn := rawRequest(t, ts, "Content-Length: "+strconv.Itoa(declared)+"\r\n")
		io.WriteString(conn, `{"sources":`)
	}
	waitFor(t, "the slow bodies to reserve body memory", func() bool { return ts.bodies.inUse() == slots*declared })
	if n := ts.slots.inUse(); n != 0 {
		t.Fatalf("slow senders hold %d check slots", n)
	}
	fastClientsServed(t, ts, 3*slots)
	if got := ts.bodies.inUse(); got != slots*declared {
		t.Errorf("body memory in use %d after the fast clients, want the slow ones' %d", got, slots*declared)
	}
}

// TestBodyBelowMinRateIsCut: a slow body that holds the whole budget is cut
// once it falls below MinBodyRate after the grace, with a 400 that says so
// and a closed connection; a fast client that waited for the budget is then
// served.
func TestBodyBelowMinRateIsCut(t *testing.T) {
	const declared = 100_000
	ts := start(t, Config{BodyMemory: declared, MinBodyRate: 1000, BodyRateGrace: 300 * time.Millisecond,
		ReadTimeout: time.Minute, QueueWait: 20 * time.Second})
	conn := rawRequest(t, ts, "Content-Length: "+strconv.Itoa(declared)+"\r\n")
	io.WriteString(conn, `{"sources":`)
	waitFor(t, "the slow body to reserve the budget", func() bool { return ts.bodies.inUse() == declared })

	fast := make(chan answer, 1)
	go func() { fast <- <-postAsync(ts.URL+executePath, exampleInput(t)) }()

	began := time.Now()
	resp, body := readResponse(t, conn, 10*time.Second)
	e := errorOf(t, body)
	if resp.StatusCode != 400 || e.Code != citecheck.CodeInvalidInput || !strings.Contains(e.Message, "slower than 1000 bytes/s") {
		t.Fatalf("slow body: %d %s", resp.StatusCode, body)
	}
	if !resp.Close {
		t.Error("the connection of a cut body is kept open")
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("cut after %v, ReadTimeout is a minute and the grace 300 ms", d)
	}
	if a := <-fast; a.err != nil || a.status != 200 {
		t.Fatalf("the fast client that waited for the budget: %d %v %s", a.status, a.err, a.body)
	}
}

// TestBodyAboveMinRateIsRead: a body that arrives in pieces but above the
// minimum rate is read whole and answered.
func TestBodyAboveMinRateIsRead(t *testing.T) {
	ts := start(t, Config{MinBodyRate: 1000, BodyRateGrace: 100 * time.Millisecond})
	example := exampleInput(t)
	conn := rawRequest(t, ts, "Content-Length: "+strconv.Itoa(len(example))+"\r\n")
	go func() {
		// 100 bytes every 20 ms: 5000 bytes/s, five times the minimum.
		for b := example; len(b) > 0; b = b[min(100, len(b)):] {
			conn.Write(b[:min(100, len(b))])
			time.Sleep(20 * time.Millisecond)
		}
	}()
	resp, body := readResponse(t, conn, 10*time.Second)
	if want, _, _ := inProcess(example); resp.StatusCode != 200 || !bytes.Equal(body, want) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}

// smallBuffers is a listener whose connections have a 4 KiB send buffer,
// so that an answer to a client that does not read blocks the server's
// write at once, as it would over a slow network.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(4096)
	}
	return c, err
}

// dialSmallWindow dials with a 4 KiB receive buffer, set before the
// connection is made so the window stays small.
func dialSmallWindow(t *testing.T, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// bigErrorBody is a body whose error answer is about n bytes: an unknown
// member named with n bytes, which the error's path repeats exactly.
func bigErrorBody(n int) []byte { return []byte(`{"` + strings.Repeat("n", n) + `":1}`) }

// nonReaders sends n requests whose error answer is about size bytes on
// connections with small buffers, and never reads the answers.
func nonReaders(t *testing.T, addr string, n, size int) []net.Conn {
	body := bigErrorBody(size)
	var conns []net.Conn
	for range n {
		c := dialSmallWindow(t, addr)
		fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", executePath, len(body), body)
		conns = append(conns, c)
	}
	return conns
}

// TestNonReadingClientsDoNotHoldSlots: twice as many clients as slots send
// a request whose answer is about 256 KiB and never read it. Their answers
// are written after their slots are released, so while they block, their
// answers hold body memory and no slot, and fast clients are served.
func TestNonReadingClientsDoNotHoldSlots(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	const slots, n, size = 2, 4, 256 << 10
	ts := startOn(t, Config{MaxInFlight: slots, QueueWait: 10 * time.Second, WriteTimeout: time.Minute}, smallBuffers{ln})
	conns := nonReaders(t, ln.Addr().String(), n, size)
	waitFor(t, "the answers to block in their writes", func() bool {
		return ts.bodies.inUse() >= n*size && ts.slots.inUse() == 0
	})
	fastClientsServed(t, ts, 2*slots)
	for _, c := range conns {
		c.Close()
	}
	waitFor(t, "the closed clients' answers to give their memory back", func() bool { return ts.bodies.inUse() == 0 })
}

// TestAnswerWriteDeadline: an answer nobody reads is abandoned at
// WriteTimeout from when it was ready, and its memory given back, while
// its client still holds the connection open.
func TestAnswerWriteDeadline(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	ts := startOn(t, Config{WriteTimeout: 300 * time.Millisecond, Logger: slog.New(slog.NewJSONHandler(&logs, nil))}, smallBuffers{ln})
	nonReaders(t, ln.Addr().String(), 1, 256<<10)
	// The access-log line is written when the handler returns.
	waitFor(t, "the unread answer's handler to return", func() bool { return strings.Contains(logs.String(), `"outcome":"invalid_input"`) })
	if n := ts.bodies.inUse(); n != 0 {
		t.Errorf("%d bytes of body memory still held", n)
	}
}

// TestErrorAnswersAreSmall: an answer to a body with a huge member name or
// number repeats the input once, in the exact path, and only a bounded cut
// of it in the message: over HTTP about the path, over MCP (text and
// structured content both carry the envelope) about twice the path.
func TestErrorAnswersAreSmall(t *testing.T) {
	ts := start(t, Config{})
	const n = 256 << 10 // as large as a body may hold, in proportion: the race detector makes 1 MiB slow
	number := `{"sources":[{"source_id":"s","version":"v","text":"t"}],"citations":[{"citation_id":"c","source_id":"s","version":"v","selector":{"type":"TextPositionSelector","start":` +
		strings.Repeat("9", n) + `,"end":1},"quote":"t"}]}`
	for _, c := range []struct {
		name     string
		body     []byte
		pathSize int
	}{
		{"member name", bigErrorBody(n), n + 1},
		{"number literal", []byte(number), len("/citations/0/selector/start")},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := post(t, ts.URL+executePath, c.body)
			e := errorOf(t, body)
			if resp.StatusCode != 400 || len(e.Path) != c.pathSize {
				t.Fatalf("%d, path of %d bytes, want %d", resp.StatusCode, len(e.Path), c.pathSize)
			}
			if max := c.pathSize + 1024; len(body) > max {
				t.Errorf("HTTP answer is %d bytes, over %d", len(body), max)
			}
			call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute","arguments":{"id":"` +
				citecheck.ToolID + `","version":"` + citecheck.ToolVersion + `","input":` + string(c.body) + `}}}`
			mresp, mbody := mcpPost(t, ts, []byte(call), nil)
			if mresp.StatusCode != 200 || !bytes.Contains(mbody, []byte(`"isError":true`)) {
				t.Fatalf("/mcp: %d %.300s", mresp.StatusCode, mbody)
			}
			if max := 2*c.pathSize + 4096; len(mbody) > max {
				t.Errorf("MCP answer is %d bytes, over %d", len(mbody), max)
			}
			t.Logf("path %d bytes: HTTP answer %d bytes, MCP answer %d bytes", c.pathSize, len(body), len(mbody))
		})
	}
}

// mcpPost posts one message to /mcp with the headers a client sends, plus
// extra.
func mcpPost(t *testing.T, ts *testServer, msg []byte, extra map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", bytes.NewReader(msg))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range extra {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

// TestMCPRefusesCrossOriginRequests: a page of another site cannot call
// /mcp (403, an error object); the server's own origin, clients that are
// not browsers, and the origins the server allows can.
func TestMCPRefusesCrossOriginRequests(t *testing.T) {
	ts := start(t, Config{AllowedOrigins: []string{"https://app.example.org"}})
	ping := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	for _, c := range []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"no Origin (not a browser)", nil, 200},
		{"own origin", map[string]string{"Origin": ts.URL}, 200},
		{"allowed origin", map[string]string{"Origin": "https://app.example.org"}, 200},
		{"same-origin fetch", map[string]string{"Sec-Fetch-Site": "same-origin"}, 200},
		{"another site", map[string]string{"Origin": "http://evil.example"}, 403},
		{"opaque origin", map[string]string{"Origin": "null"}, 403},
		{"cross-site fetch without Origin", map[string]string{"Sec-Fetch-Site": "cross-site"}, 403},
		{"same host, other port", map[string]string{"Origin": "http://127.0.0.1:1"}, 403},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := mcpPost(t, ts, ping, c.headers)
			if resp.StatusCode != c.want {
				t.Fatalf("%d, want %d: %s", resp.StatusCode, c.want, body)
			}
			if c.want == 403 && !strings.Contains(errorOf(t, body).Message, "cross-origin") {
				t.Errorf("%s", body)
			}
		})
	}
}

// TestMCPRefusesBatchesAndMangledIDs: a JSON-RPC batch is refused whatever
// the protocol version header says (one request is one call, as on
// execute), and so is an id the SDK would answer changed; an id it answers
// as sent passes.
func TestMCPRefusesBatchesAndMangledIDs(t *testing.T) {
	ts := start(t, Config{})
	ping := func(id string) string { return `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}` }
	for _, c := range []struct {
		name, msg string
		ok        bool
	}{
		{"batch", "[" + ping("1") + "," + ping("2") + "]", false},
		{"batch of one", "[" + ping("1") + "]", false},
		{"fractional id", ping("1.2"), false},
		{"exponent id", ping("1e3"), false},
		{"id past 2^53", ping("9007199254740993"), false},
		{"id past 2^63", ping("9223372036854775808"), false},
		{"minus zero id", ping("-0"), false},
		{"object id", ping("{}"), false},
		{"not JSON", "not json", false},
		{"integer id", ping("9007199254740991"), true},
		{"negative id", ping("-7"), true},
		{"string id", ping(`"1.2"`), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			resp, body := mcpPost(t, ts, []byte(c.msg), nil)
			if !c.ok {
				if resp.StatusCode != 400 || errorOf(t, body).Code != citecheck.CodeInvalidInput {
					t.Fatalf("%d %s", resp.StatusCode, body)
				}
				return
			}
			var got struct {
				ID json.RawMessage `json:"id"`
			}
			if resp.StatusCode != 200 || json.Unmarshal(body, &got) != nil {
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
			var sent struct {
				ID json.RawMessage `json:"id"`
			}
			json.Unmarshal([]byte(c.msg), &sent)
			if !bytes.Equal(got.ID, sent.ID) {
				t.Errorf("id %s answered as %s", sent.ID, got.ID)
			}
		})
	}
}

// idleConn opens a connection, makes one request on it and leaves it open
// and idle (keep-alive).
func idleConn(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return c
}

// inState counts the connections l holds in state st.
func (l *connLimiter) inState(st http.ConnState) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for c := range l.conns {
		if c.state == st {
			n++
		}
	}
	return n
}

// TestIdleConnectionsAreShed: with MaxConns open and idle, and as many
// again connected in silence, the server keeps at most MaxConns open, has
// closed the longest-idle ones, and still answers a new client.
func TestIdleConnectionsAreShed(t *testing.T) {
	const max = 20
	ts := start(t, Config{MaxConns: max})
	addr := strings.TrimPrefix(ts.URL, "http://")
	var idle []net.Conn
	for range max {
		idle = append(idle, idleConn(t, addr))
	}
	// A client has its response before the server marks the connection
	// idle; one still marked active would not be shed, and a silent one
	// would go in its place.
	waitFor(t, "the served connections to be idle", func() bool { return ts.conns.Load().inState(http.StateIdle) == max })
	for range max {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
	}
	resp, body := do(t, "GET", ts.URL+"/healthz", "", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("healthz: %d %s", resp.StatusCode, body)
	}
	if open := metricValue(t, ts, "citecheck_connections_open"); open > max {
		t.Errorf("%v connections open, over %d", open, max)
	}
	// The first idle connection was the first to go.
	idle[0].SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := idle[0].Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("the longest-idle connection is still open (%v)", err)
	}
	// The kernel completes a dial before the server accepts it, so the
	// last silent connections may still be on their way to Accept.
	waitFor(t, "every idle connection to be shed", func() bool {
		return metricValue(t, ts, `citecheck_connections_shed_total{closed="idle"}`) >= max
	})
}

// TestConnectionsInRequestsAreNotShed: when every connection is in a
// request, a new one is closed at once rather than one of them.
func TestConnectionsInRequestsAreNotShed(t *testing.T) {
	ts := start(t, Config{MaxConns: 2, MaxInFlight: 2})
	entered, release := holdSlots(ts.Server)
	defer release()
	example := exampleInput(t)
	results := make(chan answer, 2)
	for range 2 {
		go func() { results <- <-postAsync(ts.URL+executePath, example) }()
		<-entered
	}
	c, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Error("a third connection was served with two in requests and MaxConns 2")
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Error("the third connection was left waiting, not closed")
	}
	release()
	for range 2 {
		if a := <-results; a.status != 200 {
			t.Errorf("a request in flight got %d %v", a.status, a.err)
		}
	}
	if refused := metricValue(t, ts, `citecheck_connections_shed_total{closed="refused"}`); refused < 1 {
		t.Error("the refusal is not counted")
	}
}

// TestContentLengthAndTransferEncodingCloses: a request with both is
// answered, and then its connection is closed (RFC 9112 §6.1).
func TestContentLengthAndTransferEncodingCloses(t *testing.T) {
	ts := start(t, Config{})
	example := exampleInput(t)
	conn := rawRequest(t, ts, "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n")
	fmt.Fprintf(conn, "%x\r\n%s\r\n0\r\n\r\n", len(example), example)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !resp.Close {
		t.Errorf("status %d, Connection: close %v", resp.StatusCode, resp.Close)
	}
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("the connection stays open after the answer (%v)", err)
	}
}

// TestNetHTTPOwnErrorsAreErrorObjects: the answers net/http writes itself
// for a request it cannot parse carry the error object too.
func TestNetHTTPOwnErrorsAreErrorObjects(t *testing.T) {
	ts := start(t, Config{})
	addr := strings.TrimPrefix(ts.URL, "http://")
	for _, c := range []struct {
		name, request string
		status        int
	}{
		{"head too large", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("b", 2*maxHeaderBytes) + "\r\n\r\n", 431},
		{"malformed request line", "NOT A REQUEST\r\n\r\n", 400},
		{"two Host headers", "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},
		{"unknown transfer coding", "POST /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			io.WriteString(conn, c.request)
			resp, body := readResponse(t, conn, 10*time.Second)
			if resp.StatusCode != c.status || resp.Header.Get("Content-Type") != "application/json" {
				t.Fatalf("%d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			if e := errorOf(t, body); e.Code != citecheck.CodeInvalidInput || !strings.HasPrefix(e.Message, "http: ") {
				t.Errorf("%+v", e)
			}
		})
	}
}

// TestWriteDeadlineStartsWhenTheAnswerIsReady: a check that takes longer
// than WriteTimeout still gets its answer to a client that reads it: the
// deadline runs from when the answer is ready, not from the request head.
func TestWriteDeadlineStartsWhenTheAnswerIsReady(t *testing.T) {
	const writeTimeout = 300 * time.Millisecond
	ts := start(t, Config{WriteTimeout: writeTimeout})
	ts.testHookHoldingSlot = func(*http.Request) { time.Sleep(2 * writeTimeout) } // a slow check
	fastClientsServed(t, ts, 1)
}
