package server

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
)

// The load test of issue 34: the dearest check_quotes bodies beside the
// dearest explain and execute bodies, over /mcp and HTTP, from clients
// that wait and clients that hang up (half of them mid-body), while a
// cheap client makes small execute calls.

// dearQuotesCalls are the two dearest check_quotes calls the tool admits
// (its doc comment), as /mcp bodies: 256 unmarked quotations of about 40
// units, in no source, against 16 sources of 3,800 bytes (each quotation
// scanned and diagnosed in every source), and 16 such quotations against
// 16 sources of 60 KB.
func dearQuotesCalls() [][]byte {
	c := testkit.NewCorpus(34)
	quotations := func(n int) string {
		var b strings.Builder
		for range n {
			// Words of the sources in an order they do not have: each
			// is a near miss that the diagnosis searches for.
			var q []string
			for l := 0; l < 36; {
				w := c.Word()
				q = append(q, w)
				l += len(w) + 1
			}
			fmt.Fprintf(&b, "He wrote “%s” once.\n", strings.Join(q, " "))
		}
		return b.String()
	}
	sources := func(size int) []map[string]string {
		var s []map[string]string
		for i := range 16 {
			s = append(s, map[string]string{"id": fmt.Sprint(i), "text": c.Prose(size)})
		}
		return s
	}
	return [][]byte{
		mcpToolCall(MCPQuotesToolName, map[string]any{"text": quotations(256), "sources": sources(3800)}),
		mcpToolCall(MCPQuotesToolName, map[string]any{"text": quotations(16), "sources": sources(60 << 10)}),
	}
}

// mcpToolCall is the /mcp body of a call of tool with args.
func mcpToolCall(tool string, args any) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, tool, mustJSON(args))
}

// mcpRunCall is the /mcp body of a call of execute or explain on input.
func mcpRunCall(tool string, input []byte) []byte {
	return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":{"id":%q,"version":%q,"input":%s}}}`,
		tool, citecheck.ToolID, citecheck.ToolVersion, input)
}

// TestLoadDearQuotesLeaveExecuteAnswered: on the default configuration,
// eight clients send, over and over, the dearest bodies (the two dearest
// check_quotes calls; the dearest explain body explained and executed,
// over HTTP and over /mcp), and four more send them and hang up (two
// mid-body, two 0.3 s after the whole body), while a cheap client makes
// 40 small execute calls, one every 50 ms: every one is answered 200.
// Bounded: each client stops when the cheap client is done, or after
// 90 s.
func TestLoadDearQuotesLeaveExecuteAnswered(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	addr := strings.TrimPrefix(ts.URL, "http://")
	explain := dearestExplainBody()
	type dear struct {
		path string
		body []byte
	}
	quotes := dearQuotesCalls()
	dears := []dear{
		{"/mcp", quotes[0]}, {"/mcp", quotes[1]},
		{explainPath, explain}, {executePath, explain},
		{"/mcp", mcpRunCall(MCPExplainToolName, explain)}, {"/mcp", mcpRunCall(MCPToolName, explain)},
		{"/mcp", quotes[0]}, {explainPath, explain},
	}
	stop := make(chan struct{})
	var once sync.Once
	end := func() { once.Do(func() { close(stop) }) }
	defer time.AfterFunc(90*time.Second, end).Stop()
	var wg sync.WaitGroup
	var sent, hungUp atomic.Int64
	for _, d := range dears {
		wg.Go(func() {
			client := &http.Client{Timeout: 60 * time.Second}
			for {
				select {
				case <-stop:
					return
				default:
				}
				req, _ := http.NewRequest("POST", ts.URL+d.path, bytes.NewReader(d.body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if resp, err := client.Do(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					sent.Add(1)
				}
			}
		})
	}
	for i := range 4 {
		d := dears[i]
		wg.Add(1)
		go attack(&wg, stop, addr, func(c net.Conn) {
			raw := rawPost(d.path, d.body)
			if i%2 == 0 {
				raw = raw[:len(raw)-len(d.body)/2] // hang up mid-body
			}
			c.Write(raw)
			select {
			case <-stop:
			case <-time.After(300 * time.Millisecond):
			}
			hungUp.Add(1)
		})
	}
	waitFor(t, "the dear calls to be under way", func() bool {
		return sent.Load() >= 4 || metricValue(t, ts, "citecheck_checks_in_flight") >= float64(ts.cfg.MaxInFlight-reservedSlots(ts.cfg.MaxInFlight))
	})
	example := exampleInput(t)
	want, _, _ := inProcess(example)
	const calls = 40
	failed := 0
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for i := range calls {
		<-tick.C
		resp, out, err := send("POST", ts.URL+executePath, "application/json", example)
		if err != nil || resp.StatusCode != 200 || !bytes.Equal(out, want) {
			failed++
			status := 0
			if resp != nil {
				status = resp.StatusCode
			}
			t.Errorf("execute call %d: %d %v %.200s", i, status, err, out)
		}
	}
	end()
	wg.Wait()
	t.Logf("%d of %d small execute calls refused; %d dear calls answered, %d hang-ups", failed, calls, sent.Load(), hungUp.Load())
	waitFor(t, "checks_in_flight back to 0", func() bool { return metricValue(t, ts, "citecheck_checks_in_flight") == 0 })
}
