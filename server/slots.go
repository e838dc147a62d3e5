package server

import (
	"time"

	"sync"
)

// The check slots, shared so that dear work cannot starve cheap work.
//
// Every request that takes a slot states its cost first (cost.go): the
// scan units it may spend, known from its body before it runs. A request
// of at most CheapCost units is cheap; any other is dear. The rule:
//
//   - dear requests hold at most MaxInFlight − ReservedSlots slots at once,
//     where ReservedSlots = max(1, MaxInFlight/4) (0 when MaxInFlight is
//     1): the rest are for cheap requests alone;
//   - a freed slot goes to the longest-waiting dear request when the dear
//     share has room and cheap requests hold at least the reserved slots
//     (or none waits), else to the longest-waiting cheap one;
//   - a request waits at most QueueWait, then 503 overloaded.
//
// So a cheap request waits at most for one cheap request per reserved
// slot ahead of it to finish (each at most CheapCost units, a few
// milliseconds), however many dear requests are queued or running; and a
// dear request is served in its arrival order among dear requests, its
// share of the slots going to dear work while dear requests wait,
// however many cheap requests are queued: neither class can starve the
// other.

// CheapCost is the largest cost, in scan units (about a byte of text
// read each), of a cheap request: an execute body of 64 KiB, an explain
// body of 6.4 KiB, a check_quotes call of a dozen short quotations.
const CheapCost = 64 << 10

// reservedSlots is how many of n slots dear requests may not hold.
func reservedSlots(n int) int {
	if n < 2 {
		return 0
	}
	return max(1, n/4)
}

// slotQueue is the check slots and their two queues, cheap and dear.
type slotQueue struct {
	mu          sync.Mutex
	total       int // MaxInFlight
	dearMax     int // total − reservedSlots(total)
	running     int
	dearRunning int
	cheap, dear []*slotWaiter // FIFO, each
}

type slotWaiter struct {
	dear    bool
	granted bool          // under slotQueue.mu
	ready   chan struct{} // closed when granted
}

func newSlotQueue(total int) *slotQueue {
	return &slotQueue{total: total, dearMax: total - reservedSlots(total)}
}

// free reports whether a request of the class may take a slot now,
// ahead of nobody: called with mu held.
func (q *slotQueue) free(dear bool) bool {
	if q.running >= q.total {
		return false
	}
	if !dear {
		return len(q.cheap) == 0 && !q.dearsTurn()
	}
	return len(q.dear) == 0 && q.dearRunning < q.dearMax && (len(q.cheap) == 0 || q.cheapHoldReserve())
}

// cheapHoldReserve reports whether cheap requests hold at least the
// reserved slots, so that a slot past them may go to dear work: called
// with mu held.
func (q *slotQueue) cheapHoldReserve() bool {
	return q.running-q.dearRunning >= q.total-q.dearMax
}

// dearsTurn reports whether the next free slot is a waiting dear
// request's: the dear share has room and cheap requests hold their
// reserve, or no cheap one waits. Called with mu held.
func (q *slotQueue) dearsTurn() bool {
	return len(q.dear) > 0 && q.dearRunning < q.dearMax && (len(q.cheap) == 0 || q.cheapHoldReserve())
}

func (q *slotQueue) take(dear bool) {
	q.running++
	if dear {
		q.dearRunning++
	}
}

// acquire takes a slot for a request of cost, waiting up to wait for one
// (queued is called when it starts to wait), or until done is closed. It
// reports whether it got one; give it back with release(cost).
func (q *slotQueue) acquire(cost int64, wait time.Duration, done <-chan struct{}, queued func()) bool {
	dear := cost > CheapCost
	q.mu.Lock()
	if q.free(dear) {
		q.take(dear)
		q.mu.Unlock()
		return true
	}
	w := &slotWaiter{dear: dear, ready: make(chan struct{})}
	if dear {
		q.dear = append(q.dear, w)
	} else {
		q.cheap = append(q.cheap, w)
	}
	q.mu.Unlock()
	if queued != nil {
		queued()
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-w.ready:
		return true
	case <-t.C:
	case <-done:
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if w.granted { // granted as the wait ended: hand it on
		q.put(dear)
		return false
	}
	if dear {
		q.dear = remove(q.dear, w)
	} else {
		q.cheap = remove(q.cheap, w)
	}
	return false
}

// release gives back the slot of a request of cost.
func (q *slotQueue) release(cost int64) {
	q.mu.Lock()
	q.put(cost > CheapCost)
	q.mu.Unlock()
}

// put frees a slot of the class and grants what can run: called with mu
// held.
func (q *slotQueue) put(dear bool) {
	q.running--
	if dear {
		q.dearRunning--
	}
	for q.running < q.total {
		var w *slotWaiter
		switch {
		case q.dearsTurn():
			w, q.dear = q.dear[0], q.dear[1:]
		case len(q.cheap) > 0:
			w, q.cheap = q.cheap[0], q.cheap[1:]
		default:
			return
		}
		q.take(w.dear)
		w.granted = true
		close(w.ready)
	}
}

// inUse is how many slots are held.
func (q *slotQueue) inUse() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.running
}

func remove(ws []*slotWaiter, w *slotWaiter) []*slotWaiter {
	for i, x := range ws {
		if x == w {
			return append(ws[:i], ws[i+1:]...)
		}
	}
	return ws
}
