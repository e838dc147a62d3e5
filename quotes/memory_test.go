package quotes

import (
	"context"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
)

// heapAfterGC is the live heap, in bytes, once collected.
func heapAfterGC() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func totalAlloc() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// tinySources are 16 sources of one character each: against them every
// quotation looks free by the length of its sources alone.
func tinySources() []Source {
	srcs := make([]Source, 16)
	for i := range srcs {
		srcs[i] = Source{ID: strconv.Itoa(i), Text: string(rune('a' + i))}
	}
	return srcs
}

// unmarked is n unmarked quotations that are in no source: each is
// looked for, and diagnosed, in every source.
func unmarked(n int) []Quotation {
	qs := make([]Quotation, n)
	for i := range qs {
		qs[i] = Quotation{Text: "the of and to in a is that " + strconv.Itoa(i)}
	}
	return qs
}

// peakContext samples the live heap (collected) at every 64th time the
// engine looks at the context, so a test sees what checking holds while
// it runs, not only after; the engine looks at least once per request.
type peakContext struct {
	context.Context
	calls int
	peak  uint64
}

func (c *peakContext) sample() {
	if c.calls++; c.calls%64 == 1 {
		c.peak = max(c.peak, heapAfterGC())
	}
}

func (c *peakContext) Err() error { c.sample(); return c.Context.Err() }

func (c *peakContext) Done() <-chan struct{} { c.sample(); return c.Context.Done() }

// Memory is linear in the input with the stated constants (spec §5.13,
// docs/quotes.md#cost), for the mix: quotations that look free
// by their sources' length (16 one-character sources), each looked for
// and diagnosed in every source. The results hold at most ResultBytes a
// quotation beyond its text and findings, and the batch being checked at
// most BatchBytes a quotation of it more: held as the difference between
// two input sizes, so that what does not grow with the input cancels
// out, and as the peak over the smaller one.
func TestMemoryIsLinearInTheInput(t *testing.T) {
	// Not parallel: it reads the process's heap.
	lim := citecheck.DefaultLimits()
	lim.ScanUnits, lim.Citations = citecheck.NoLimit, citecheck.NoLimit
	measure := func(n int) (held, peak uint64) {
		qs := unmarked(n)
		before := heapAfterGC()
		ctx := &peakContext{Context: context.Background()}
		res, err := CheckQuotations(ctx, qs, tinySources(), Options{Limits: lim, Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		held = heapAfterGC() - before
		for i := range res {
			if res[i].Outcome != NotFound {
				t.Fatalf("quotation %d: %s", i, res[i].Outcome)
			}
		}
		runtime.KeepAlive(res)
		if ctx.calls < n/BatchQuotations {
			t.Fatalf("the context was looked at %d times", ctx.calls)
		}
		return held, max(ctx.peak, before) - before
	}
	small, big := 512, 2048
	if testing.Short() {
		small, big = 300, 900
	}
	h1, p1 := measure(small)
	h2, p2 := measure(big)
	perHeld := float64(int64(h2)-int64(h1)) / float64(big-small)
	perPeak := float64(int64(p2)-int64(p1)) / float64(big-small)
	t.Logf("per quotation: %.0f bytes held by the results, %.0f at the peak; peak %d bytes for %d quotations, %d for %d", perHeld, perPeak, p1, small, p2, big)
	if perHeld > ResultBytes || perPeak > ResultBytes {
		t.Errorf("the results hold %.0f bytes a quotation (%.0f at the peak), over ResultBytes (%d)", perHeld, perPeak, ResultBytes)
	}
	if bound := uint64(big*ResultBytes + BatchQuotations*BatchBytes); p2 > bound {
		t.Errorf("the peak is %d bytes for %d quotations, over %d results and a batch (%d)", p2, big, big, bound)
	}
}

// Reading a report holds no table of its lines: on reports of nothing
// but line ends, short lines or blockquote lines, the bytes allocated by
// Extract, Read and Check beyond the quotations' texts are a small
// fraction of the input's, at 64 KiB as at 1 MiB (a table of lines held
// 24 bytes and more a line, 12 and more an input byte; a blockquote's
// lines, 16 bytes each more).
func TestReadingAReportHoldsNothingPerLine(t *testing.T) {
	srcs := []Source{{ID: "1", Text: "Call me Ishmael."}}
	for name, unit := range map[string]string{
		"line feeds": "\n", "carriage returns": "\r", "CRLFs": "\r\n",
		"short lines": "a\n", "empty blockquote lines": ">\n", "blockquote lines of one letter": "> a\n",
		"alternating blank and text lines": "a\n\n",
	} {
		t.Run(name, func(t *testing.T) {
			for _, size := range []int{64 << 10, 1 << 20} {
				b := []byte(strings.Repeat(unit, size/len(unit)))
				texts := 0 // what the quotations hold, which a reading must
				for _, q := range Extract(b) {
					texts += len(q.Text)
				}
				for what, read := range map[string]func(){
					"Extract": func() { Extract(b) },
					"Read":    func() { Read(b, Report) },
					"Check":   func() { Check(context.Background(), b, srcs, Options{}) },
				} {
					before := totalAlloc()
					read()
					got := totalAlloc() - before
					if limit := uint64(len(b)/16+texts) + 64<<10; got > limit {
						t.Errorf("%s of %d bytes: %d bytes allocated, over %d", what, len(b), got, limit)
					}
				}
			}
		})
	}
}
