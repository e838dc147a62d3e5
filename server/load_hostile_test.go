// The hostile-client half of the load test (issue 13): what idle
// connections, slow senders, non-readers and held bodies cost the server
// process, measured from outside it. Run with
//
//	CITECHECK_LOAD=1 go test -run 'LoadIdle|LoadSlow|LoadBodyBudget' -v -count=1 ./server/
//
// and see docs/service-hardening.md for the figures.
package server

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/citecheck/citecheck"
)

var loadIdleConns = flag.Int("load.idle-conns", 15000, "idle keep-alive connections the client opens in TestLoadIdleConnections")

// kib parses a /proc status size ("12345 kB") into KiB.
func kib(s string) float64 {
	f, _ := strconv.ParseFloat(strings.TrimSuffix(s, " kB"), 64)
	return f
}

// healthzLatency is the fastest and the median of 20 /healthz calls on
// fresh connections.
func healthzLatency(t *testing.T, addr string) (best, median time.Duration, fails int) {
	var ds []time.Duration
	for range 20 {
		tr := &http.Transport{DisableKeepAlives: true}
		c := &http.Client{Transport: tr, Timeout: 5 * time.Second}
		t0 := time.Now()
		resp, err := c.Get("http://" + addr + "/healthz")
		if err != nil || resp.StatusCode != 200 {
			fails++
			continue
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		ds = append(ds, time.Since(t0))
	}
	slices.Sort(ds)
	if len(ds) == 0 {
		return 0, 0, fails
	}
	return ds[0], ds[len(ds)/2], fails
}

// scrape reads one sample of the helper's /metrics.
func scrape(addr, sample string) string {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return "?"
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, sample+" "); ok {
			return v
		}
	}
	return "0"
}

// TestLoadIdleConnections: the client opens many keep-alive connections
// (one /healthz each, then idle) against a server bounded at 1024
// connections and against one bounded only by its file descriptors: what
// the server holds, its resident memory, the cost of one held connection,
// and how fast a new client is answered while they are open.
func TestLoadIdleConnections(t *testing.T) {
	loadTest(t)
	n := *loadIdleConns
	for _, maxConns := range []int{1024, 19000} {
		cmd, addr, stop := startHelper(t, 2*runtime.GOMAXPROCS(0), "CITECHECK_LOAD_MAXCONNS="+strconv.Itoa(maxConns))
		base := kib(procStatus(t, cmd.Process.Pid, "VmRSS"))
		var (
			mu     sync.Mutex
			conns  []net.Conn
			failed atomic.Int64
			next   atomic.Int64
			wg     sync.WaitGroup
		)
		for range 64 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for next.Add(1) <= int64(n) {
					c, err := net.DialTimeout("tcp", addr, 5*time.Second)
					if err != nil {
						failed.Add(1)
						continue
					}
					io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
					c.SetReadDeadline(time.Now().Add(5 * time.Second))
					if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					} else {
						failed.Add(1)
					}
					mu.Lock()
					conns = append(conns, c)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		best, median, fails := healthzLatency(t, addr)
		held, _ := strconv.ParseFloat(scrape(addr, "citecheck_connections_open"), 64)
		rss := kib(procStatus(t, cmd.Process.Pid, "VmRSS"))
		hwm := vmHWM(t, cmd.Process.Pid)
		t.Logf("max-conns %5d: client opened %d idle connections (%d failed); server holds %.0f, VmRSS %.1f MiB (%.1f MiB before), VmHWM %s; %.1f KiB per held connection; fresh /healthz best %.2f ms, median %.2f ms, %d of 20 failed",
			maxConns, n, failed.Load(), held, rss/1024, base/1024, hwm, (rss-base)/max(held, 1), ms(best), ms(median), fails)
		if fails > 0 {
			t.Errorf("/healthz failed %d times with the connections open", fails)
		}
		for _, c := range conns {
			c.Close()
		}
		stop()
	}
}

// TestLoadSlowClients: throughput of fast clients alone, then with as many
// slow senders (stalling bodies, reconnecting as soon as they are cut) and
// as many non-readers (1 MiB answers never read) as there are check slots;
// three rounds of each, alternating, the best of each reported (the
// machine's noise only ever slows a round down).
func TestLoadSlowClients(t *testing.T) {
	loadTest(t)
	body := typicalBatch()
	ts := start(t, Config{})
	url := ts.URL + executePath
	slots := ts.cfg.MaxInFlight
	addr := strings.TrimPrefix(ts.URL, "http://")
	big := bigErrorBody(citecheck.MaxInputBytes - 16)
	hammer(t, url, body, *loadConcurrency) // warm up
	var alone, attacked throughput
	var cut, unread, failed atomic.Int64
	for range 3 {
		if r := hammer(t, url, body, *loadConcurrency); alone.requests == 0 || r.rps() > alone.rps() {
			alone = r
		}
		stopAttack := make(chan struct{})
		var attackers sync.WaitGroup
		for range slots {
			attackers.Add(2)
			go attack(&attackers, stopAttack, addr, func(c net.Conn) {
				// A slow sender: head, one byte, then nothing; again when cut.
				fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", executePath, citecheck.MaxInputBytes)
				go func() { <-stopAttack; c.Close() }()
				io.Copy(io.Discard, c) // until the server cuts it
				cut.Add(1)
			})
			go attack(&attackers, stopAttack, addr, func(c net.Conn) {
				// A non-reader: a request with a ~1 MiB answer, never read.
				fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", executePath, len(big), big)
				unread.Add(1)
				select {
				case <-stopAttack:
				case <-time.After(ts.cfg.WriteTimeout):
				}
			})
		}
		r := hammer(t, url, body, *loadConcurrency)
		close(stopAttack)
		attackers.Wait()
		failed.Add(int64(r.errors))
		if attacked.requests == 0 || r.rps() > attacked.rps() {
			attacked = r
		}
	}
	t.Logf("%d slots; fast clients alone, best of 3: %v", slots, alone)
	t.Logf("%d slots; with %d slow senders (cut and back %d times in all) and %d non-readers (%d requests), best of 3: %v",
		slots, slots, cut.Load(), slots, unread.Load(), attacked)
	t.Logf("fast throughput under attack / alone = %.0f %%", 100*attacked.rps()/alone.rps())
	if failed.Load() > 0 {
		t.Errorf("%d fast requests failed under attack", failed.Load())
	}
}

// attack runs one attacker until stop: dial, act on the connection, close
// it, and again.
func attack(wg *sync.WaitGroup, stop <-chan struct{}, addr string, act func(net.Conn)) {
	defer wg.Done()
	for {
		select {
		case <-stop:
			return
		default:
		}
		c, err := net.Dial("tcp", addr)
		if err != nil {
			continue
		}
		act(c)
		c.Close()
	}
}

// TestLoadBodyBudget: 200 clients each send a maximum-size body but its
// last byte, and hold it; the budget admits what fits and refuses the
// rest after QueueWait. The server's peak memory follows the budget, not
// the clients.
func TestLoadBodyBudget(t *testing.T) {
	loadTest(t)
	const clients = 200
	for _, budget := range []int64{16 << 20, 64 << 20} {
		cmd, addr, stop := startHelper(t, 2*runtime.GOMAXPROCS(0), "CITECHECK_LOAD_QUEUEWAIT=1s",
			"CITECHECK_LOAD_BODYMEMORY="+strconv.FormatInt(budget, 10))
		base := vmHWM(t, cmd.Process.Pid)
		part := make([]byte, citecheck.MaxInputBytes-1)
		for i := range part {
			part[i] = ' '
		}
		var refused, held atomic.Int64
		var conns []net.Conn
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := net.Dial("tcp", addr)
				if err != nil {
					return
				}
				mu.Lock()
				conns = append(conns, c)
				mu.Unlock()
				fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", executePath, citecheck.MaxInputBytes)
				c.Write(part)
				c.SetReadDeadline(time.Now().Add(3 * time.Second))
				if resp, err := http.ReadResponse(bufio.NewReader(c), nil); err == nil {
					resp.Body.Close()
					if resp.StatusCode == 503 {
						refused.Add(1)
						return
					}
				}
				held.Add(1)
			}()
		}
		wg.Wait()
		inUse := scrape(addr, "citecheck_body_memory_bytes")
		peak := vmHWM(t, cmd.Process.Pid)
		t.Logf("body-memory %3d MiB: %d clients holding maximum-size bodies: %d held, %d refused 503; budget in use %s bytes; server VmHWM %s (idle %s)",
			budget>>20, clients, held.Load(), refused.Load(), inUse, peak, base)
		for _, c := range conns {
			c.Close()
		}
		stop()
	}
}
