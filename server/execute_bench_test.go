//go:build load

package server

import (
	"bytes"
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

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
