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

	// Order: with every slot held, a dear waiter then a cheap waiter;
	// one slot freed goes to the cheap one.
	q := newSlotQueue(2)
	q.acquire(dear, 0, closed, nil)
	q.acquire(cheap, 0, closed, nil)
	queued := make(chan struct{}, 2)
	ran := make(chan string, 2)
	never := make(chan struct{})
	go func() {
		if q.acquire(dear, 1<<40, never, func() { queued <- struct{}{} }) {
			ran <- "dear"
		}
	}()
	<-queued
	go func() {
		if q.acquire(cheap, 1<<40, never, func() { queued <- struct{}{} }) {
			ran <- "cheap"
		}
	}()
	<-queued
	q.release(dear)
	if first := <-ran; first != "cheap" {
		t.Fatalf("a freed slot went to the %s waiter first", first)
	}
	q.release(cheap)
	if second := <-ran; second != "dear" {
		t.Fatalf("then to %s", second)
	}
}
