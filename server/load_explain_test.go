package server

import (
	"bytes"
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

// The load test of issue 21, run by default (bounded in count, a few
// seconds): the dearest body to explain, from clients that wait for the
// answer and from clients that hang up, beside a client of small execute
// calls.

// dearestExplainBody is the request dearest to explain beside checking it
// (testkit's hostile alphabet2: 1 MiB, random text over two letters, a
// 2,000-byte block that occurs twice, 30 ambiguous quote citations inside
// it, and position citations whose quotes are the block plus one foreign
// letter).
func dearestExplainBody() []byte {
	return testkit.HostileRequest("alphabet2", 21, testkit.HostileShape{}).Body()
}

// TestLoadDearExplainsLeaveExecuteAnswered: on the default configuration,
// four clients explain the dearest body over and over and four more send
// it and hang up after 0.3 s, over and over, while a fast client makes 12
// small execute calls one after another: every one of them is answered
// 200. Once the clients stop, every check slot comes back.
func TestLoadDearExplainsLeaveExecuteAnswered(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	body := dearestExplainBody()
	url := ts.URL + explainPath
	addr := strings.TrimPrefix(ts.URL, "http://")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var explained, hungUp atomic.Int64
	for range 4 {
		wg.Go(func() {
			client := &http.Client{Timeout: 60 * time.Second}
			for {
				select {
				case <-stop:
					return
				default:
				}
				resp, err := client.Post(url, "application/json", bytes.NewReader(body))
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					explained.Add(1)
				}
			}
		})
		wg.Add(1)
		go attack(&wg, stop, addr, func(c net.Conn) {
			c.Write(rawPost(explainPath, body))
			select {
			case <-stop:
			case <-time.After(300 * time.Millisecond):
			}
			hungUp.Add(1)
		})
	}
	// The fast client starts once the explains are under way: every slot
	// dear requests may hold taken at once (slots.go), or, on a machine fast enough to explain the body in a
	// few milliseconds (when a scrape may never see all four), as many
	// explains answered as there are explaining clients.
	waitFor(t, "the explains to be under way", func() bool {
		return explained.Load() >= 4 || metricValue(t, ts, "citecheck_checks_in_flight") >= float64(ts.cfg.MaxInFlight-reservedSlots(ts.cfg.MaxInFlight))
	})
	example := exampleInput(t)
	want, _, _ := inProcess(example)
	for i := range 12 {
		resp, out, err := send("POST", ts.URL+executePath, "application/json", example)
		if err != nil || resp.StatusCode != 200 || !bytes.Equal(out, want) {
			status := 0
			if resp != nil {
				status = resp.StatusCode
			}
			t.Errorf("execute call %d: %d %v %.200s", i, status, err, out)
		}
	}
	close(stop)
	wg.Wait()
	t.Logf("%d explains answered, %d hang-ups, beside 12 execute calls", explained.Load(), hungUp.Load())
	waitFor(t, "checks_in_flight back to 0", func() bool { return metricValue(t, ts, "citecheck_checks_in_flight") == 0 })
}

// TestHangUpsOnDearExplainsReturnTheSlots: three clients (the dear share
// of four slots, slots.go) send the dearest body to explain and hang up once it is in its slot (a test hook holds
// it there until its context ends, so the hang-up comes while the work is
// to do, however fast the machine); every explain stops before its work
// (outcome overloaded, where it would have been failed) and
// checks_in_flight is 0 again.
func TestHangUpsOnDearExplainsReturnTheSlots(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{MaxInFlight: 4})
	const n = 3 // 4 − reservedSlots(4)
	held := make(chan struct{}, n)
	ts.testHookHoldingSlot = func(r *http.Request) { holdUntilDone(held)(r.Context()) }
	body := dearestExplainBody()
	var conns []net.Conn
	for range n {
		c, err := net.Dial("tcp", strings.TrimPrefix(ts.URL, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		go c.Write(rawPost(explainPath, body))
		conns = append(conns, c)
	}
	for range n {
		select {
		case <-held:
		case <-time.After(20 * time.Second):
			t.Fatal("the explains did not reach their slots")
		}
	}
	for _, c := range conns {
		c.Close()
	}
	waitFor(t, "checks_in_flight back to 0", func() bool { return metricValue(t, ts, "citecheck_checks_in_flight") == 0 })
	waitFor(t, "three stopped explains counted", func() bool {
		return metricValue(t, ts, `citecheck_http_requests_total{outcome="overloaded",route="POST /v1/tools/{id}/versions/{version}/explain"}`) == n
	})
}
