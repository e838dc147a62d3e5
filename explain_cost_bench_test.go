package citecheck

import (
	"context"
	"testing"
	"time"

	"github.com/citecheck/citecheck/internal/testkit"
)

// BenchmarkExplainHostile compares explaining each hostile family's
// largest request (testkit.HostileRequest) with checking it to the end
// (CheckAll, what --all does), each iteration running decode, CheckAll
// and Explain in turn so that the ratios come from the same moments of a
// shared machine. It reports process CPU a stage and two ratios:
// explain/all (Explain ÷ CheckAll of the decoded request) and
// request-ratio ((Decode+Explain) ÷ (Decode+CheckAll): what --explain
// costs beside --all), and the work the budget counted beside its pool.
// The bound is a request ratio of 10 (docs/explain.md#the-bound);
// bench/explain.sh prints the fastest of several runs.
func BenchmarkExplainHostile(b *testing.B) {
	for _, fam := range testkit.HostileFamilies {
		body := testkit.HostileRequest(fam, 21, testkit.HostileShape{}).Body()
		req, err := Decode(body)
		if err != nil {
			b.Fatalf("%s: %v", fam, err)
		}
		_, budget, _ := explainBudgeted(context.Background(), req, true, explainWorkMin, explainWorkPerKiB)
		b.Run(fam, func(b *testing.B) {
			var dec, chk, exp int64
			for b.Loop() {
				t0 := processCPU()
				Decode(body)
				t1 := processCPU()
				CheckAll(req)
				t2 := processCPU()
				Explain(req)
				t3 := processCPU()
				dec, chk, exp = dec+t1-t0, chk+t2-t1, exp+t3-t2
			}
			n := float64(b.N)
			b.ReportMetric(float64(dec)/n, "decode-cpu-ns/op")
			b.ReportMetric(float64(chk)/n, "all-cpu-ns/op")
			b.ReportMetric(float64(exp)/n, "explain-cpu-ns/op")
			b.ReportMetric(float64(exp)/float64(max(chk, 1)), "explain/all")
			b.ReportMetric(float64(dec+exp)/float64(max(dec+chk, 1)), "request-ratio")
			// The work the bound counts (deterministic), and the pool.
			b.ReportMetric(float64(budget.Spent()), "work-units")
			b.ReportMetric(float64(budget.Pool()), "pool-units")
		})
	}
}

// gapCtx is a context never done that records the longest time between
// two looks at it (and from the start to the first, and from the last to
// the end, which the caller measures).
type gapCtx struct {
	context.Context
	last time.Time
	gap  time.Duration
}

func (c *gapCtx) Done() <-chan struct{} { return make(chan struct{}) }

func (c *gapCtx) Err() error {
	now := time.Now()
	c.gap = max(c.gap, now.Sub(c.last))
	c.last = now
	return nil
}

// BenchmarkExplainContextLooks measures how soon ExplainContext would
// see its context done, on each hostile family at the contract's largest:
// the longest wall time between two of its looks at ctx (start and end
// included), as max-gap-ns, the bound on how long it works once nobody
// waits (docs/explain.md#cancellation: well under 100 ms).
func BenchmarkExplainContextLooks(b *testing.B) {
	for _, fam := range testkit.HostileFamilies {
		req, err := Decode(testkit.HostileRequest(fam, 21, testkit.HostileShape{}).Body())
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fam, func(b *testing.B) {
			var worst time.Duration
			for b.Loop() {
				c := &gapCtx{Context: context.Background(), last: time.Now()}
				ExplainContext(c, req)
				worst = max(worst, c.gap, time.Since(c.last))
			}
			b.ReportMetric(float64(worst), "max-gap-ns")
		})
	}
}
