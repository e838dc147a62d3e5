package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
)

// bulkWorkload is a JSONL input of typical requests, generated the same way
// on every run.
type bulkWorkload struct {
	name  string
	lines [][]byte
}

// typicalRequests builds n requests as a dataset evaluation would send
// them: each has `sources` texts of about `size` bytes of English-like prose
// and `cites` citations, half position and half quote selectors (prefix and
// suffix on some, claimed_start on a third), and one request in four has a
// citation an LLM got wrong (a changed character).
func typicalRequests(n, sources, size, cites int) [][]byte {
	rng := rand.New(rand.NewPCG(7, uint64(n*sources*size*cites)))
	words := strings.Fields("the of and to in a is that for it as was with be by on not he this are or his from at which but have an they you were her she there been one all we their has would when if so no out up into more citation source evidence model answer claim passage report study data result")
	type src struct {
		SourceID string `json:"source_id"`
		Version  string `json:"version"`
		Text     string `json:"text"`
	}
	type sel struct {
		Type   string `json:"type"`
		Start  *int   `json:"start,omitempty"`
		End    *int   `json:"end,omitempty"`
		Exact  string `json:"exact,omitempty"`
		Prefix string `json:"prefix,omitempty"`
		Suffix string `json:"suffix,omitempty"`
	}
	type cit struct {
		CitationID   string `json:"citation_id"`
		SourceID     string `json:"source_id"`
		Version      string `json:"version"`
		Selector     sel    `json:"selector"`
		Quote        string `json:"quote,omitempty"`
		ClaimedStart *int   `json:"claimed_start,omitempty"`
	}
	out := make([][]byte, n)
	for i := range out {
		var req struct {
			Sources   []src `json:"sources"`
			Citations []cit `json:"citations"`
		}
		texts := make([][]rune, sources)
		for s := range sources {
			var b strings.Builder
			for b.Len() < size {
				b.WriteString(words[rng.IntN(len(words))])
				switch rng.IntN(12) {
				case 0:
					b.WriteString(". ")
				case 1:
					b.WriteString(", ")
				default:
					b.WriteByte(' ')
				}
			}
			texts[s] = []rune(b.String())
			req.Sources = append(req.Sources, src{"doc-" + string(rune('a'+s)), "v1", b.String()})
		}
		wrong := -1
		if i%4 == 0 {
			wrong = rng.IntN(cites)
		}
		for k := range cites {
			s := k % sources
			t := texts[s]
			// A passage of 40–120 code points, extended until it is unique so
			// that quote citations resolve.
			start := rng.IntN(len(t) - 200)
			end := start + 40 + rng.IntN(80)
			for strings.Count(req.Sources[s].Text, string(t[start:end])) > 1 && end < len(t) {
				end++
			}
			quote := string(t[start:end])
			if k == wrong {
				r := []rune(quote)
				r[len(r)/2] = '#'
				quote = string(r)
			}
			c := cit{CitationID: "c" + string(rune('0'+k/10)) + string(rune('0'+k%10)), SourceID: req.Sources[s].SourceID, Version: "v1"}
			if k%2 == 0 {
				c.Selector = sel{Type: "TextPositionSelector", Start: &start, End: &end}
				c.Quote = quote
			} else {
				c.Selector = sel{Type: "TextQuoteSelector", Exact: quote}
				if k%4 == 1 {
					c.Selector.Prefix = string(t[max(0, start-12):start])
					c.Selector.Suffix = string(t[end:min(len(t), end+12)])
				}
				if k%3 == 0 {
					c.ClaimedStart = &start
				}
			}
			req.Citations = append(req.Citations, c)
		}
		b, err := json.Marshal(req)
		if err != nil {
			panic(err)
		}
		out[i] = b
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
// all of this machine's cores (GOMAXPROCS workers), output discarded.
func BenchmarkBulk(b *testing.B) {
	for _, w := range bulkWorkloads {
		lines := typicalRequests(w.n, w.sources, w.size, w.citings)
		input := append(bytes.Join(lines, []byte("\n")), '\n')
		b.Run(w.name, func(b *testing.B) {
			b.SetBytes(int64(len(input)))
			for b.Loop() {
				if code := runBulk(context.Background(), bytes.NewReader(input), io.Discard, io.Discard, bulkOptions{}); code != exitFailed {
					b.Fatalf("exit %d", code)
				}
			}
			b.ReportMetric(float64(w.n)*float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}

// BenchmarkSingleRequest is the figure to set beside BenchmarkBulk: the
// same requests answered one after another in one goroutine, as a loop over
// the one-request run does in-process (decode, check, envelope).
func BenchmarkSingleRequest(b *testing.B) {
	for _, w := range bulkWorkloads {
		lines := typicalRequests(w.n, w.sources, w.size, w.citings)
		b.Run(w.name, func(b *testing.B) {
			var out []byte
			for b.Loop() {
				for _, l := range lines {
					res, e := citecheck.Run(l)
					out = citecheck.AppendEnvelope(out[:0], res, e)
				}
			}
			b.ReportMetric(float64(w.n)*float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}

// TestTypicalRequestsAreValidOrFailOnce keeps the benchmark honest: every
// generated request decodes, and exactly the planted ones fail.
func TestTypicalRequestsAreValidOrFailOnce(t *testing.T) {
	for i, l := range typicalRequests(40, 2, 4<<10, 8) {
		res, e := citecheck.Run(l)
		if e != nil {
			t.Fatalf("request %d: %s", i, e.Message)
		}
		if res.Valid == (i%4 == 0) {
			t.Fatalf("request %d: valid %v (reason %v)", i, res.Valid, res.Reason)
		}
	}
}
