package server

import "testing"

// TestDearRequestsLeaveReservedSlots: dear requests (over CheapCost) hold
// at most MaxInFlight − max(1, MaxInFlight/4) slots (all of one slot);
// cheap ones take any free slot; a freed slot goes to a waiting cheap
// request before a waiting dear one. Counted, not timed: a request that
// cannot run at once is asked with its wait already over.
func TestDearRequestsLeaveReservedSlots(t *testing.T) {
	t.Parallel()
	closed := make(chan struct{})
	close(closed)
	const dear, cheap = CheapCost + 1, CheapCost
	for _, tc := range []struct {
		slots, dearFit, cheapAfter int
	}{
		{1, 1, 0}, {2, 1, 1}, {4, 3, 1}, {8, 6, 2}, {16, 12, 4},
	} {
		q := newSlotQueue(tc.slots)
		got := 0
		for q.acquire(dear, 0, closed, nil) {
			got++
		}
		if got != tc.dearFit {
			t.Errorf("%d slots: %d dear requests ran, want %d", tc.slots, got, tc.dearFit)
		}
		n := 0
		for q.acquire(cheap, 0, closed, nil) {
			n++
		}
		if n != tc.cheapAfter {
			t.Errorf("%d slots: %d cheap requests ran beside them, want %d", tc.slots, n, tc.cheapAfter)
		}
	}

	// Order: with every slot held, a dear waiter then a cheap waiter.
	// A dear slot freed, while a cheap request holds the reserved one,
	// goes to the dear waiter; the cheap slot freed, to the cheap one.
	q := newSlotQueue(2)
	q.acquire(dear, 0, closed, nil)
	q.acquire(cheap, 0, closed, nil)
	ran, wait := waiters(q)
	wait(dear, "dear")
	wait(cheap, "cheap")
	q.release(dear)
	if first := <-ran; first != "dear" {
		t.Fatalf("a freed dear slot went to the %s waiter first", first)
	}
	q.release(cheap)
	if second := <-ran; second != "cheap" {
		t.Fatalf("then to %s", second)
	}
}

// TestNeitherClassStarvesTheOther: a flood of cheap requests holding
// every slot leaves a dear one its share (a freed slot goes to it once
// cheap ones hold the reserve), and dear ones holding their share leave
// every freed reserved slot to the cheap ones waiting.
func TestNeitherClassStarvesTheOther(t *testing.T) {
	const dear, cheap = CheapCost + 1, CheapCost
	closed := make(chan struct{})
	close(closed)

	q := newSlotQueue(4)
	for range 4 {
		if !q.acquire(cheap, 0, closed, nil) {
			t.Fatal("four cheap requests do not fit four slots")
		}
	}
	ran, wait := waiters(q)
	wait(dear, "dear")
	for range 3 {
		wait(cheap, "cheap")
	}
	q.release(cheap)
	if first := <-ran; first != "dear" {
		t.Fatalf("under a flood of cheap requests a freed slot went to %s, not the waiting dear one", first)
	}

	q = newSlotQueue(4)
	for range 3 {
		q.acquire(dear, 0, closed, nil)
	}
	q.acquire(cheap, 0, closed, nil)
	ran, wait = waiters(q)
	wait(dear, "dear")
	wait(cheap, "cheap")
	q.release(cheap)
	if first := <-ran; first != "cheap" {
		t.Fatalf("with the dear share full, the reserved slot went to %s", first)
	}
}

// waiters returns a channel of the names of waiters granted a slot of q,
// and wait, which starts a waiter of cost named name and returns once it
// is queued.
func waiters(q *slotQueue) (<-chan string, func(cost int64, name string)) {
	ran := make(chan string, 8)
	never := make(chan struct{})
	return ran, func(cost int64, name string) {
		queued := make(chan struct{})
		go func() {
			if q.acquire(cost, 1<<40, never, func() { close(queued) }) {
				ran <- name
			}
		}()
		<-queued
	}
}
