package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
)

// bulkWorkload is a JSONL input of typical requests, generated the same way
// on every run.
type bulkWorkload struct {
	name  string
	lines [][]byte
}

// typicalRequests builds n requests as a dataset evaluation would send
// them: each has `sources` texts of `size` bytes of English-like prose
// (testkit's corpus) and `cites` citations, half position and half quote
// selectors (prefix and suffix on some, claimed_start on a third), and one
// request in four has a citation an LLM got wrong (a changed character).
func typicalRequests(n, sources, size, cites int) [][]byte {
	corpus := &testkit.Corpus{Rand: rand.New(rand.NewPCG(7, uint64(n*sources*size*cites)))}
	rng := corpus.Rand
	out := make([][]byte, n)
	for i := range out {
		var req testkit.Request
		texts := make([][]rune, sources)
		for s := range sources {
			src := testkit.NewSource("doc-"+string(rune('a'+s)), "v1", corpus.Prose(size))
			texts[s] = []rune(src.Text)
			req.Sources = append(req.Sources, src)
		}
		wrong := -1
		if i%4 == 0 {
			wrong = rng.IntN(cites)
		}
		for k := range cites {
			src, t := req.Sources[k%sources], texts[k%sources]
			// A passage of 40–120 code points, extended until it is unique so
			// that quote citations resolve.
			start := rng.IntN(len(t) - 200)
			end := start + 40 + rng.IntN(80)
			for testkit.CountOverlapping(src.Text, string(t[start:end])) > 1 && end < len(t) {
				end++
			}
			quote := string(t[start:end])
			if k == wrong {
				r := []rune(quote)
				r[len(r)/2] = '#'
				quote = string(r)
			}
			id := fmt.Sprintf("c%02d", k)
			if k%2 == 0 {
				req.Citations = append(req.Citations, testkit.PositionCitation(id, src.SourceID, src.Version, start, end, quote))
				continue
			}
			c := testkit.QuoteCitation(id, src.SourceID, src.Version, quote)
			if k%4 == 1 {
				c = c.WithPrefix(string(t[max(0, start-12):start])).WithSuffix(string(t[end:min(len(t), end+12)]))
			}
			if k%3 == 0 {
				c = c.WithClaimedStart(start)
			}
			req.Citations = append(req.Citations, c)
		}
		out[i] = req.Body()
	}
	return out
}

var bulkWorkloads = []struct {
	name                      string
	n, sources, size, citings int
}{
	// One answer with a few retrieved chunks: the common dataset row.
	{"small_2x4KB_8cit", 2000, 2, 4 << 10, 8},
	// The heavier RAG row of the root benchmarks: 4 sources of 20 KB, 24 citations.
	{"rag_4x20KB_24cit", 200, 4, 20 << 10, 24},
}

// BenchmarkBulk measures `run --jsonl` throughput in requests per second on
// all of this machine's cores (GOMAXPROCS workers), output discarded, and
// the process's CPU time per request (cpu-ns/req: every thread, the
// collector's included), which a machine shared with other work disturbs
// far less than the wall clock. The file needs nothing that c88877d (the
// baseline of issue 11) lacks, so the same file runs there:
//
//	go test -run '^$' -bench 'Bulk|SingleRequest' -count 8 ./cmd/citecheck/
func BenchmarkBulk(b *testing.B) {
	for _, w := range bulkWorkloads {
		lines := typicalRequests(w.n, w.sources, w.size, w.citings)
		input := append(bytes.Join(lines, []byte("\n")), '\n')
		b.Run(w.name, func(b *testing.B) {
			b.SetBytes(int64(len(input)))
			cpu0 := processCPU()
			for b.Loop() {
				if code := runBulk(context.Background(), bytes.NewReader(input), io.Discard, io.Discard, bulkOptions{}); code != exitFailed {
					b.Fatalf("exit %d", code)
				}
			}
			b.ReportMetric(float64(w.n)*float64(b.N)/b.Elapsed().Seconds(), "req/s")
			b.ReportMetric(float64(processCPU()-cpu0)/float64(w.n*b.N), "cpu-ns/req")
		})
	}
}

// processCPU is the CPU time the process has used, every thread's.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSingleRequest is the figure to set beside BenchmarkBulk: the
// same requests answered one after another in one goroutine, as a loop over
// the one-request run does in-process (decode, check, envelope).
func BenchmarkSingleRequest(b *testing.B) {
	for _, w := range bulkWorkloads {
		lines := typicalRequests(w.n, w.sources, w.size, w.citings)
		b.Run(w.name, func(b *testing.B) {
			var out []byte
			cpu0 := processCPU()
			for b.Loop() {
				for _, l := range lines {
					res, e := citecheck.Run(l)
					out = citecheck.AppendEnvelope(out[:0], res, e)
				}
			}
			b.ReportMetric(float64(w.n)*float64(b.N)/b.Elapsed().Seconds(), "req/s")
			b.ReportMetric(float64(processCPU()-cpu0)/float64(w.n*b.N), "cpu-ns/req")
		})
	}
}

// TestTypicalRequestsAreValidOrFailOnce keeps the benchmark honest: every
// generated request decodes, and exactly the planted ones fail.
func TestTypicalRequestsAreValidOrFailOnce(t *testing.T) {
	t.Parallel()
	for i, l := range typicalRequests(40, 2, 4<<10, 8) {
		res, e := citecheck.Run(l)
		if e != nil {
			t.Fatalf("request %d: %s", i, citecheck.AsError(e).Message)
		}
		if res.Valid == (i%4 == 0) {
			t.Fatalf("request %d: valid %v (reason %v)", i, res.Valid, res.Reason)
		}
	}
}
