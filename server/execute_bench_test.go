package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// BenchmarkExecuteCPU is BenchmarkExecuteHandler reporting, beside wall
// time, the process's CPU time per request (cpu-ns/op: every thread, the
// garbage collector's included), which a loaded machine disturbs far less.
// It needs nothing the server had not before decoding was rewritten, so
// the same file runs at older commits for a before-and-after:
//
//	go test -run '^$' -bench ExecuteCPU -count 8 ./server/
func BenchmarkExecuteCPU(b *testing.B) {
	body := typicalBatch()
	s := New(Config{})
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		req := httptest.NewRequest("POST", executePath, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkExecuteLoopback is what a client gets: the typical batch
// POSTed over keep-alive loopback connections to a server run by
// Server.Serve (its connection bound, timeouts and deadlines included), by
// 2×GOMAXPROCS clients at once, so that the server's cores are never idle
// between requests. The clients run in another process (this test binary
// again, as TestLoopbackClient), as a load generator would, each writing a
// request prepared once in one write and reading the answer with
// http.ReadResponse: req/s is the throughput the clients see, and cpu-ns/op
// the server process's CPU per request alone (every thread, the garbage
// collector's included; the client process is a child, which
// RUSAGE_SELF leaves out). Like BenchmarkExecuteCPU it runs at older
// commits:
//
//	go test -run '^$' -bench ExecuteLoopback -count 8 ./server/
func BenchmarkExecuteLoopback(b *testing.B) {
	body := typicalBatch()
	s := New(Config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, ln) }()
	defer func() {
		cancel()
		<-served
	}()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()

	client := exec.Command(os.Args[0], "-test.run=^TestLoopbackClient$", "-test.count=1")
	client.Env = append(os.Environ(), fmt.Sprintf("%s=%s %d %d", loopbackClientEnv, ln.Addr(), 2*runtime.GOMAXPROCS(0), b.N))
	client.Stderr = os.Stderr
	toClient, err := client.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	fromClient, err := client.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := client.Start(); err != nil {
		b.Fatal(err)
	}
	defer client.Wait()
	defer toClient.Close()
	lines := bufio.NewScanner(fromClient)
	// expect reads the client's output up to the line want: its own test
	// framework may print before it, a failure instead of it.
	expect := func(want string) {
		for lines.Scan() {
			if lines.Text() == want {
				return
			}
			if strings.HasPrefix(lines.Text(), "client: ") {
				b.Fatal(lines.Text())
			}
		}
		b.Fatalf("the client ended before %q: %v", want, lines.Err())
	}
	expect("ready") // connected, one request answered on each connection
	b.ResetTimer()
	cpu0 := processCPU()
	io.WriteString(toClient, "go\n")
	expect("done")
	b.StopTimer()
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

// loopbackClientEnv is how BenchmarkExecuteLoopback starts its client:
// "addr connections requests".
const loopbackClientEnv = "CITECHECK_LOOPBACK_CLIENT"

// TestLoopbackClient is BenchmarkExecuteLoopback's client process, and
// skips unless started by it. It connects, sends one request on each
// connection, prints "ready", waits for "go" on its standard input, sends
// the requests over all connections at once, and prints "done" (or a line
// "client: …" on any failure).
func TestLoopbackClient(t *testing.T) {
	var addr string
	var conns, n int
	if _, err := fmt.Sscan(os.Getenv(loopbackClientEnv), &addr, &conns, &n); err != nil {
		t.Skip("run by BenchmarkExecuteLoopback")
	}
	body := typicalBatch()
	req := fmt.Appendf(nil, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		executePath, addr, len(body))
	req = append(req, body...)
	fail := func(err error) {
		fmt.Printf("client: %v\n", err)
		os.Exit(1)
	}
	type conn struct {
		net.Conn
		r *bufio.Reader
	}
	roundTrip := func(c conn) error {
		if _, err := c.Write(req); err != nil {
			return err
		}
		resp, err := http.ReadResponse(c.r, nil)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Close {
			return fmt.Errorf("status %d, close %v", resp.StatusCode, resp.Close)
		}
		return nil
	}
	cs := make([]conn, conns)
	for i := range cs {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			fail(err)
		}
		cs[i] = conn{c, bufio.NewReader(c)}
		if err := roundTrip(cs[i]); err != nil {
			fail(err)
		}
	}
	fmt.Println("ready")
	if _, err := fmt.Scanln(new(string)); err != nil {
		fail(err)
	}
	var left atomic.Int64
	left.Store(int64(n))
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Go(func() {
			for left.Add(-1) >= 0 {
				if err := roundTrip(c); err != nil {
					fail(err)
				}
			}
		})
	}
	wg.Wait()
	fmt.Println("done")
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
