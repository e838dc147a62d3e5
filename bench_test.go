package citecheck

import (
	"encoding/json"
	"testing"

	"github.com/citecheck/citecheck/internal/testkit"
	"github.com/citecheck/citecheck/internal/utext"
)

// The benchmarks measure the engine on the workloads of workloads_test.go:
//
//	BenchmarkRun/<w>                Decode + Check, the whole call
//	BenchmarkDecode/<w>             Decode alone (spec §1, the scan budget included)
//	BenchmarkDecodeEncodingJSON/<w> encoding/json v1 into plain structs: the
//	                                baseline Decode must not be slower than
//	BenchmarkCheck/<w>              Check alone, on a request decoded once
//
// Throughput (b.SetBytes) is in request body bytes for all four, so the
// columns compare directly.

func BenchmarkRun(b *testing.B) {
	for _, w := range benchWorkloads() {
		b.Run(w.name, func(b *testing.B) {
			b.SetBytes(int64(len(w.body)))
			b.ReportAllocs()
			for b.Loop() {
				if res, err := Run(w.body); err != nil || !res.Valid {
					b.Fatalf("workload does not pass: %v %v", err, res)
				}
			}
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, w := range benchWorkloads() {
		b.Run(w.name, func(b *testing.B) {
			b.SetBytes(int64(len(w.body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(w.body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeEncodingJSON(b *testing.B) {
	for _, w := range benchWorkloads() {
		b.Run(w.name, func(b *testing.B) {
			b.SetBytes(int64(len(w.body)))
			b.ReportAllocs()
			for b.Loop() {
				// testkit.Request is what a user of encoding/json would
				// decode a body into: typed structs and no strictness
				// (duplicates, unknown members, integers as float64
				// literals are all let through), so this is the cost floor
				// of "just parse it".
				var req testkit.Request
				if err := json.Unmarshal(w.body, &req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkCheck(b *testing.B) { benchEachWorkload(b, Check) }

// benchEachWorkload times check on each decoded workload, which must pass.
func benchEachWorkload(b *testing.B, check func(*Request) *Result) {
	for _, w := range benchWorkloads() {
		b.Run(w.name, func(b *testing.B) {
			req, err := Decode(w.body)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(w.body)))
			b.ReportAllocs()
			for b.Loop() {
				if res := check(req); !res.Valid {
					b.Fatalf("workload does not pass: %s", res.AppendJSON(nil))
				}
			}
		})
	}
}

// TestBenchmarkWorkloadsAreValidAndPass makes sure the benchmarks measure
// real work: every workload is a valid request within every limit, and every
// citation in it passes, so the whole batch is checked (a workload that
// failed at citation 0 would time almost nothing).
func TestBenchmarkWorkloadsAreValidAndPass(t *testing.T) {
	t.Parallel()
	for _, w := range benchWorkloads() {
		t.Run(w.name, func(t *testing.T) {
			req, err := Decode(w.body)
			if err != nil {
				t.Fatalf("workload is refused: %s: %s (path %q)", AsError(err).Code, AsError(err).Message, AsError(err).Path)
			}
			if len(req.Citations) != w.citations {
				t.Fatalf("%d citations decoded, %d built", len(req.Citations), w.citations)
			}
			res := Check(req)
			if !res.Valid || res.CitationsChecked != w.citations {
				t.Fatalf("workload does not pass: %s", res.AppendJSON(nil))
			}
			units := map[[2]string]int{}
			for _, s := range req.Sources {
				units[[2]string{s.SourceID, s.Version}] = utext.UTF16Len(s.Text)
			}
			scan := 0
			for _, c := range req.Citations {
				if c.Selector.Type == QuoteSelector {
					scan += units[[2]string{c.SourceID, c.Version}]
				}
			}
			t.Logf("%d bytes, %d sources, %d citations, %d scan units", len(w.body), len(req.Sources), len(req.Citations), scan)
		})
	}
}

// TestBenchmarkWorkloadsHaveTheirShape checks what each workload claims to
// stress, so that a change to a builder cannot quietly make it easy.
func TestBenchmarkWorkloadsHaveTheirShape(t *testing.T) {
	t.Parallel()
	byName := map[string]benchWorkload{}
	for _, w := range benchWorkloads() {
		byName[w.name] = w
	}
	decode := func(name string) *Request {
		req, err := Decode(byName[name].body)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return req
	}
	quoteCitations := func(req *Request) int {
		n := 0
		for _, c := range req.Citations {
			if c.Selector.Type == QuoteSelector {
				n++
			}
		}
		return n
	}

	t.Run("rag_typical has 4 sources of about 20 KB, curly quotes, 12 + 12 citations", func(t *testing.T) {
		req := decode("rag_typical")
		curly := false
		for _, s := range req.Sources {
			if len(s.Text) < 18000 || len(s.Text) > 24000 {
				t.Errorf("source %s/%s is %d bytes", s.SourceID, s.Version, len(s.Text))
			}
			curly = curly || testkit.CountOverlapping(s.Text, "\u201c") > 0 || testkit.CountOverlapping(s.Text, "\u2019") > 0
		}
		if len(req.Sources) != 4 || !curly || quoteCitations(req) != 12 || len(req.Citations) != 24 {
			t.Fatalf("sources %d, curly quotes %v, quote citations %d of %d", len(req.Sources), curly, quoteCitations(req), len(req.Citations))
		}
	})
	t.Run("max_limits is close to 1 MiB and scans exactly max_scan_units", func(t *testing.T) {
		w := byName["max_limits"]
		req := decode("max_limits")
		if len(w.body) < MaxInputBytes-4096 || len(w.body) > MaxInputBytes {
			t.Errorf("body is %d bytes", len(w.body))
		}
		if n := len(req.Sources[0].Text); n != MaxTextBytes {
			t.Errorf("source is %d bytes", n)
		}
		if units := quoteCitations(req) * utext.UTF16Len(req.Sources[0].Text); quoteCitations(req) != 32 || units != MaxScanUnits {
			t.Errorf("%d quote citations scanning %d units", quoteCitations(req), units)
		}
		for _, c := range req.Citations {
			if c.Selector.Type == QuoteSelector && (len(c.Selector.Exact) < 50 || len(c.Selector.Exact) > 300 || testkit.CountOverlapping(req.Sources[0].Text, c.Selector.Exact) != 1) {
				t.Errorf("%s: exact of %d chars occurs %d times", c.CitationID, len(c.Selector.Exact), testkit.CountOverlapping(req.Sources[0].Text, c.Selector.Exact))
			}
		}
	})
	t.Run("adversarial_overlap's exact occurs about 508,000 times", func(t *testing.T) {
		req := decode("adversarial_overlap")
		if n := testkit.CountOverlapping(req.Sources[0].Text, req.Citations[0].Selector.Exact); n != 2*(262140-8000+1)-1 {
			t.Fatalf("exact occurs %d times", n)
		}
	})
	t.Run("unicode_heavy has astral chars, skin tones, ZWJ and combining marks", func(t *testing.T) {
		req := decode("unicode_heavy")
		text := req.Sources[0].Text
		for _, want := range []string{"\u200D", "\U0001F3FD", "\u0301"} {
			if testkit.CountOverlapping(text, want) == 0 {
				t.Errorf("text lacks %+q", want)
			}
		}
		if len(text) < 190*1024 || quoteCitations(req) != 32 || len(req.Citations) != 64 {
			t.Errorf("%d bytes, %d quote citations of %d", len(text), quoteCitations(req), len(req.Citations))
		}
	})
}
