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
// every citation before it was checked, as Check does. Each worker has its
// own [Checker] (a source cited by several workers is indexed by each, a
// linear pass; the scans, at least one per quote citation, are the cost
// shared out). With workers <= 1, or fewer than two citations, it is Check.
//
// It is for one large request on an otherwise idle machine (a command-line
// run); a service answering many requests at once gains nothing from it.
func CheckParallel(req *Request, workers int) *Result {
	n := len(req.Citations)
	workers = min(workers, n)
	if workers <= 1 {
		return Check(req)
	}
	var (
		next  atomic.Int64 // the next citation to hand out
		first atomic.Int64 // the lowest failing index found so far; n: none
		found = make([]*Discrepancy, n)
		wg    sync.WaitGroup
	)
	first.Store(int64(n))
	for range workers {
		wg.Go(func() {
			c := NewChecker(req)
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
		})
	}
	wg.Wait()
	k := int(first.Load())
	if k == n {
		return &Result{Valid: true, CitationsChecked: n}
	}
	d := found[k]
	return &Result{Reason: d.Reason, FirstDiscrepancy: d, CitationsChecked: k + 1}
}
