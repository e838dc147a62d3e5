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

	"github.com/citecheck/citecheck/internal/testkit"
)

// The load test of issue 34: the dearest check_quotes bodies beside the
// dearest explain and execute bodies, from clients that wait and clients
// that hang up, while a fast client makes small execute calls.

// dearQuotesCalls are the two dearest check_quotes calls of issue 34 as
// /mcp bodies: about 1 MiB of 31,700 short unmarked quotations against
// 16 one-character sources (each quotation checked against every
// source), and upper-cased quotations of a 500 KB source (each a near
// miss that needs the diagnosis).
func dearQuotesCalls() [][]byte {
	var many strings.Builder
	for many.Len() < 1<<20-64 {
		many.WriteString("“the of and to in a is that” ")
	}
	var tiny []map[string]string
	for i := range 16 {
		tiny = append(tiny, map[string]string{"id": fmt.Sprint(i), "text": string(rune('a' + i))})
	}
	source := testkit.NewCorpus(34).Prose(500 << 10)
	rng := testkit.NewRand(34)
	var upper strings.Builder
	for range 60 {
		at := rng.IntN(len(source) - 400)
		for !isBoundary(source, at) {
			at++
		}
		end := at + 200
		for !isBoundary(source, end) {
			end++
		}
		fmt.Fprintf(&upper, "“%s” [1]\n", strings.ToUpper(source[at:end]))
	}
	call := func(args any) []byte {
		return fmt.Appendf(nil, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, MCPQuotesToolName, mustJSON(args))
	}
	return [][]byte{
		call(map[string]any{"text": many.String(), "sources": tiny}),
		call(map[string]any{"text": upper.String(), "sources": []map[string]string{{"id": "1", "text": source}}}),
	}
}

func isBoundary(s string, i int) bool { return i >= len(s) || s[i] < 0x80 || s[i] >= 0xC0 }

// TestLoadDearQuotesLeaveExecuteAnswered: on the default configuration,
// eight clients send the dearest check_quotes, explain and execute bodies
// over and over, and four more send them and hang up mid-request, while a
// fast client makes 12 small execute calls one after another: every one
// of them is answered 200. Bounded: each client stops when the fast
// client is done, or after 60 s.
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
	dears := []dear{{"/mcp", quotes[0]}, {"/mcp", quotes[1]}, {explainPath, explain}, {executePath, explain}}
	stop := make(chan struct{})
	var once sync.Once
	end := func() { once.Do(func() { close(stop) }) }
	defer time.AfterFunc(60*time.Second, end).Stop()
	var wg sync.WaitGroup
	var sent, hungUp atomic.Int64
	for i := range 8 {
		d := dears[i%len(dears)]
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
		d := dears[i%len(dears)]
		wg.Add(1)
		go attack(&wg, stop, addr, func(c net.Conn) {
			c.Write(rawPost(d.path, d.body))
			select {
			case <-stop:
			case <-time.After(300 * time.Millisecond):
			}
			hungUp.Add(1)
		})
	}
	waitFor(t, "the dear calls to be under way", func() bool {
		return sent.Load() >= 4 || metricValue(t, ts, "citecheck_checks_in_flight") >= float64(ts.cfg.MaxInFlight)
	})
	example := exampleInput(t)
	want, _, _ := inProcess(example)
	failed := 0
	for i := range 12 {
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
	t.Logf("%d of 12 small execute calls refused; %d dear calls answered, %d hang-ups", failed, sent.Load(), hungUp.Load())
	waitFor(t, "checks_in_flight back to 0", func() bool { return metricValue(t, ts, "citecheck_checks_in_flight") == 0 })
}
