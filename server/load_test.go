// The load test: it measures rather than checks, so it runs only when
// CITECHECK_LOAD=1 asks for it (go test and go vet still build it, every
// time); loopback only, bounded in time and count. Run it with
//
//	CITECHECK_LOAD=1 go test -run Load -v -count=1 ./server/
//
// and see docs/service-hardening.md (and the README's "The service"
// section) for the figures it printed on our machine.
package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
)

var (
	loadDuration    = flag.Duration("load.duration", 5*time.Second, "how long each throughput run lasts")
	loadConcurrency = flag.Int("load.concurrency", 8, "client connections in a throughput run")
	loadMaxRequests = flag.Int("load.max-requests", 200000, "stop a throughput run after this many requests")
	loadBursts      = flag.Int("load.bursts", 5, "bursts of 64 maximum-size bodies in the memory run")
)

// batch builds nsrc sources of textBytes ASCII prose (testkit's corpus)
// and ncit citations, alternately a position citation of 120 characters and
// a quote anchor of 80 with a 16-character prefix; all of them hold, so
// every citation is checked.
// loadTest skips a load test unless CITECHECK_LOAD=1.
func loadTest(t *testing.T) {
	t.Helper()
	if os.Getenv("CITECHECK_LOAD") != "1" {
		t.Skip("a load test: CITECHECK_LOAD=1 runs it")
	}
}

func batch(nsrc, textBytes, ncit int) []byte {
	corpus := testkit.NewCorpus(uint64(nsrc*textBytes + ncit))
	corpus.ASCII = true
	var req testkit.Request
	for i := range nsrc {
		req.Sources = append(req.Sources, testkit.NewSource("doc-"+strconv.Itoa(i), "v1", corpus.Prose(textBytes)))
	}
	for k := range ncit {
		src, id := req.Sources[k%nsrc], "c"+strconv.Itoa(k)
		if k%2 == 0 {
			req.Citations = append(req.Citations, testkit.PickSpan(corpus.Rand, src, id, [2]int{120, 120}))
		} else {
			req.Citations = append(req.Citations, testkit.PickAnchor(corpus.Rand, src, id,
				testkit.AnchorShape{Exact: [2]int{80, 80}, Prefix: [2]int{16, 16}}))
		}
	}
	return req.Body()
}

// typicalBatch is the everyday call: 4 sources × 20 KB of prose, 24
// citations (the bench kit's rag_typical shape).
func typicalBatch() []byte { return batch(4, 20_000, 24) }

// maxBatch is a valid body just under max_input_bytes: 2 sources of
// ~505 KB and 32 citations (16 anchors scan both texts: 16 M units, just
// under max_scan_units).
func maxBatch() []byte { return batch(2, 505_000, 32) }

func mustValid(t *testing.T, body []byte, n int) {
	t.Helper()
	res, e := citecheck.Run(body)
	if e != nil || !res.Valid || res.CitationsChecked != n {
		t.Fatalf("workload is not a valid batch of %d: %s", n, citecheck.AppendEnvelope(nil, res, e))
	}
}

// bareHandler is the yardstick: read the body through the same limit and
// decode it with encoding/json into typed structs, nothing else.
func bareHandler(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, citecheck.MaxInputBytes+1))
	if err != nil {
		http.Error(w, err.Error(), 413)
		return
	}
	var req testkit.Request
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"sources":%d,"citations":%d}`, len(req.Sources), len(req.Citations))
}

type throughput struct {
	requests      int
	errors        int
	elapsed       time.Duration
	p50, p99, max time.Duration
}

func (r throughput) rps() float64 { return float64(r.requests) / r.elapsed.Seconds() }

func (r throughput) String() string {
	return fmt.Sprintf("%d requests in %.2fs: %.0f req/s, p50 %.2f ms, p99 %.2f ms, max %.2f ms, %d errors",
		r.requests, r.elapsed.Seconds(), r.rps(), ms(r.p50), ms(r.p99), ms(r.max), r.errors)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// hammer posts body to url from conc connections for the configured time
// (or request count), and measures each request's latency.
func hammer(t *testing.T, url string, body []byte, conc int) throughput {
	t.Helper()
	tr := &http.Transport{MaxIdleConnsPerHost: conc, MaxConnsPerHost: conc, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	var (
		mu        sync.Mutex
		latencies []time.Duration
		errs      atomic.Int64
		issued    atomic.Int64
		wg        sync.WaitGroup
	)
	deadline := time.Now().Add(*loadDuration)
	began := time.Now()
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for time.Now().Before(deadline) && issued.Add(1) <= int64(*loadMaxRequests) {
				req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				t0 := time.Now()
				resp, err := client.Do(req)
				if err == nil {
					_, err = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						err = fmt.Errorf("status %d", resp.StatusCode)
					}
				}
				if err != nil {
					errs.Add(1)
					continue
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	r := throughput{requests: len(latencies), errors: int(errs.Load()), elapsed: time.Since(began)}
	slices.Sort(latencies)
	if n := len(latencies); n > 0 {
		r.p50, r.p99, r.max = latencies[n/2], latencies[n*99/100], latencies[n-1]
	}
	return r
}

// TestLoadThroughput: requests per second and latency for the typical
// batch, against the service and against the bare read-and-decode handler.
func TestLoadThroughput(t *testing.T) {
	loadTest(t)
	body := typicalBatch()
	mustValid(t, body, 24)
	t.Logf("GOMAXPROCS %d, typical batch %d bytes (4 sources × 20 KB, 24 citations)", runtime.GOMAXPROCS(0), len(body))

	ts := start(t, Config{})
	bare := &http.Server{Handler: http.HandlerFunc(bareHandler)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go bare.Serve(ln)
	defer bare.Close()
	bareURL := "http://" + ln.Addr().String() + "/"

	// Warm both up, then alternate to spread machine noise over both. One
	// connection shows the latency of a lone call; several, the throughput.
	hammer(t, ts.URL+executePath, body, *loadConcurrency)
	hammer(t, bareURL, body, *loadConcurrency)
	for _, conc := range []int{1, *loadConcurrency} {
		svc := hammer(t, ts.URL+executePath, body, conc)
		base := hammer(t, bareURL, body, conc)
		t.Logf("%d connection(s): citecheck execute:       %v", conc, svc)
		t.Logf("%d connection(s): bare read+encoding/json: %v", conc, base)
		t.Logf("%d connection(s): citecheck / bare = %.0f %%", conc, 100*svc.rps()/base.rps())
		if svc.errors > 0 {
			t.Errorf("%d errors", svc.errors)
		}
	}
}

// TestLoadHelperServer is not a test: it is the server process of
// TestLoadPeakRSS (a re-run of this test binary), so that the peak RSS
// measured is the server's alone, not the client's too.
func TestLoadHelperServer(t *testing.T) {
	inFlight := os.Getenv("CITECHECK_LOAD_SERVER")
	if inFlight == "" {
		t.Skip("run by TestLoadPeakRSS")
	}
	n, _ := strconv.Atoi(inFlight)
	cfg := Config{MaxInFlight: n, QueueWait: time.Minute}
	if v := os.Getenv("CITECHECK_LOAD_MAXCONNS"); v != "" {
		cfg.MaxConns, _ = strconv.Atoi(v)
	}
	if v := os.Getenv("CITECHECK_LOAD_BODYMEMORY"); v != "" {
		cfg.BodyMemory, _ = strconv.ParseInt(v, 10, 64)
	}
	if v := os.Getenv("CITECHECK_LOAD_QUEUEWAIT"); v != "" {
		cfg.QueueWait, _ = time.ParseDuration(v)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("ADDR", ln.Addr().String())
	ctx, cancel := context.WithCancel(context.Background())
	go func() { io.Copy(io.Discard, os.Stdin); cancel() }() // the parent closes stdin to stop us
	New(cfg).Serve(ctx, ln)
}

// startHelper runs TestLoadHelperServer in a process of its own with
// max-in-flight inFlight and the extra environment (CITECHECK_LOAD_…), and
// returns it, its address, and a stop function.
func startHelper(t *testing.T, inFlight int, env ...string) (*exec.Cmd, string, func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLoadHelperServer$", "-test.v=false")
	cmd.Env = append(append(os.Environ(), "CITECHECK_LOAD_SERVER="+strconv.Itoa(inFlight)), env...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	var addr string
	for sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), "ADDR "); ok {
			addr = a
			break
		}
	}
	go io.Copy(io.Discard, stdout)
	if addr == "" {
		t.Fatal("the helper server printed no address")
	}
	return cmd, addr, func() { stdin.Close(); cmd.Wait() }
}

// vmHWM reads a process's peak resident set size from /proc.
func vmHWM(t *testing.T, pid int) string { return procStatus(t, pid, "VmHWM") }

// procStatus reads one field of /proc/PID/status ("VmHWM", "VmRSS").
func procStatus(t *testing.T, pid int, field string) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

// TestLoadPeakRSS: the server process's peak RSS while 64 clients at once
// post maximum-size bodies, with the default in-flight bound and with the
// bound lifted to 64 (what it would cost without one).
func TestLoadPeakRSS(t *testing.T) {
	loadTest(t)
	body := maxBatch()
	mustValid(t, body, 32)
	t.Logf("maximum-size batch: %d bytes (max_input_bytes %d)", len(body), citecheck.MaxInputBytes)
	for _, inFlight := range []int{2 * runtime.GOMAXPROCS(0), 64} {
		cmd, addr, stop := startHelper(t, inFlight)
		idle := vmHWM(t, cmd.Process.Pid)
		url := "http://" + addr + executePath
		var failures atomic.Int64
		began := time.Now()
		for range *loadBursts {
			var wg sync.WaitGroup
			for range 64 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					resp, err := http.Post(url, "application/json", bytes.NewReader(body))
					if err != nil {
						failures.Add(1)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != 200 {
						failures.Add(1)
					}
				}()
			}
			wg.Wait()
		}
		elapsed := time.Since(began)
		peak := vmHWM(t, cmd.Process.Pid)
		stop()
		t.Logf("max-in-flight %2d: %d bursts of 64 × %d bytes in %.2fs (%.1f req/s), %d failures; server VmHWM %s (idle %s)",
			inFlight, *loadBursts, len(body), elapsed.Seconds(), float64(64**loadBursts)/elapsed.Seconds(), failures.Load(), peak, idle)
		if failures.Load() > 0 {
			t.Errorf("%d requests failed", failures.Load())
		}
	}
}

// BenchmarkExecuteHandler is the execute route in-process (no network):
// what a request costs the server, middleware and engine included.
//
//	go test -run '^$' -bench Handler -benchmem ./server/
func BenchmarkExecuteHandler(b *testing.B) {
	body := typicalBatch()
	s := New(Config{})
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", executePath, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}

// BenchmarkBareHandler is the yardstick handler in-process: read and
// decode with encoding/json, nothing else.
func BenchmarkBareHandler(b *testing.B) {
	body := typicalBatch()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest("POST", "/", bytes.NewReader(body))
		w := httptest.NewRecorder()
		bareHandler(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}
