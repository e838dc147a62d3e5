//go:build load

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
//	go test -tags load -run '^$' -bench ExecuteCPU -count 8 ./server/
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
// between requests. Each client writes a request prepared once, in one
// write, and reads the answer with http.ReadResponse, as a load generator
// would: the clients' own cost stays small beside the server's. req/s is
// the throughput; cpu-ns/op is the whole process's CPU per request, the
// clients' included (the same at every commit). Like BenchmarkExecuteCPU
// it runs at older commits:
//
//	go test -tags load -run '^$' -bench ExecuteLoopback -count 8 ./server/
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
	req := fmt.Appendf(nil, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		executePath, ln.Addr(), len(body))
	req = append(req, body...)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	b.SetParallelism(2)
	cpu0 := processCPU()
	b.RunParallel(func(pb *testing.PB) {
		conn, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			b.Error(err)
			return
		}
		defer conn.Close()
		br := bufio.NewReader(conn)
		for pb.Next() {
			if _, err := conn.Write(req); err != nil {
				b.Error(err)
				return
			}
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Close {
				b.Errorf("status %d, close %v", resp.StatusCode, resp.Close)
				return
			}
		}
	})
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "req/s")
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
