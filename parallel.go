package citecheck

import (
	"sync"
	"sync/atomic"
)

// CheckParallel is [Check] with the citations shared among up to workers
// goroutines: the same *Result, field for field, whatever the number of
// workers and however they are scheduled. Citations are handed out in
// array order; a citation after the first failure found so far is not
// started, and the failure reported is the one with the lowest index, so
// every citation before it was checked, as Check does.
//
// Workers are started only when the quote citations scan at least
// parallelMinScanBytes of text between them; below that, Check alone is
// faster than starting them. Each source is indexed once, before the
// workers start, and they share the indexes (read-only from then on).
//
// It is for one large request on otherwise idle cores (a command-line
// run); a service answering many requests at once gains nothing from it.
func CheckParallel(req *Request, workers int) *Result {
	return checkParallel(req, workers, parallelMinScanBytes)
}

// checkParallel is CheckParallel with workers started from minScan bytes
// of quote scans on (the tests start them for every request).
func checkParallel(req *Request, workers, minScan int) *Result {
	n := len(req.Citations)
	workers = min(workers, n)
	if workers <= 1 {
		return Check(req)
	}
	shared := NewChecker(req)
	if !shared.indexForScans(minScan) {
		return checkFrom(shared)
	}
	var (
		next  atomic.Int64 // the next citation to hand out
		first atomic.Int64 // the lowest failing index found so far; n: none
		found = make([]*Discrepancy, n)
		wg    sync.WaitGroup
	)
	first.Store(int64(n))
	work := func(c *Checker) {
		for {
			k := next.Add(1) - 1
			if k >= int64(n) || k > first.Load() {
				return
			}
			if d := c.Citation(int(k)); d != nil {
				found[k] = d // k is handed out once: no other goroutine writes found[k]
				for f := first.Load(); k < f && !first.CompareAndSwap(f, k); f = first.Load() {
				}
			}
		}
	}
	for range workers - 1 {
		wg.Go(func() { work(&Checker{req: req, index: shared.index}) }) // its own anchor buffer
	}
	work(shared) // the caller is a worker too: one goroutine fewer to start and wake
	wg.Wait()
	k := int(first.Load())
	if k == n {
		return &Result{Valid: true, CitationsChecked: n}
	}
	d := found[k]
	return &Result{Reason: d.Reason, FirstDiscrepancy: d, CitationsChecked: k + 1}
}

// parallelMinScanBytes is the least text, summed over the quote citations,
// for which CheckParallel starts workers. Scans run at a few GB/s, so this
// is a few hundred µs of work, well above what waking a second thread
// costs (tens of µs); the kit's small bodies (rag_typical, many_small)
// scan less and gain nothing from workers.
const parallelMinScanBytes = 4 << 20

// indexForScans reports whether the request's quote citations scan at
// least minScan bytes between them and, if so, builds every index
// a citation will read (with the byte ranks of each source a quote
// citation scans), so that the Checker's indexes are only read from then
// on and may be shared.
func (c *Checker) indexForScans(minScan int) bool {
	scan := 0
	for k := range c.req.Citations {
		cit := &c.req.Citations[k]
		if j, _ := c.lookup(cit); j >= 0 && cit.Selector.Type == QuoteSelector {
			scan += len(c.req.Sources[j].Text)
		}
	}
	if scan < minScan {
		return false
	}
	for k := range c.req.Citations {
		cit := &c.req.Citations[k]
		if j, _ := c.lookup(cit); j >= 0 {
			c.text(j).Share(cit.Selector.Type == QuoteSelector)
		}
	}
	return true
}
