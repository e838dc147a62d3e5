package server

import (
	"math/bits"
	"sync"

	"github.com/citecheck/citecheck"
)

// bodyBuffers recycles the buffers that execute and explain bodies are read
// into. The engine copies every string it keeps out of the body
// (citecheck.Decode), so a body's buffer is free once its answer is built;
// reading the next body into it spares an allocation of the body's size,
// zeroed, and the collections that garbage of that size brings on (a
// quarter of a typical batch's handling, before).
//
// Buffers come in size classes, four to each doubling from 4 KiB up to
// max_input_bytes (4, 5, 6, 7, 8, 10, 12, 14, 16 KiB, …, 1 MiB): a body
// takes the smallest class that holds it, so its buffer is at most a
// quarter larger than the Content-Length the body memory budget reserved
// for it, and no buffer is larger than the largest body. Idle buffers are
// the pool's and go back to the collector within two collections
// (sync.Pool), so the pool never holds memory that traffic does not use.
type bodyBuffers struct {
	classes [bodyClasses]sync.Pool // of *[]byte, each of its class's capacity
}

const (
	bodyClassMin   = 4 << 10 // the smallest class, in bytes
	bodySteps      = 4       // classes per doubling
	bodyClassShift = 12      // log2(bodyClassMin)
	// bodyClasses runs up to max_input_bytes (1 MiB = 4 KiB << 8): eight
	// doublings of four steps, and the last class itself.
	bodyClasses = 8*bodySteps + 1
)

// bodyClassOf returns the class of the smallest buffer that holds n bytes,
// 0 < n <= max_input_bytes, and that class's capacity.
func bodyClassOf(n int) (class, size int) {
	if n <= bodyClassMin {
		return 0, bodyClassMin
	}
	// n is in (2^e, 2^(e+1)]; the steps of that doubling are 2^e·(1+k/4).
	e := bits.Len(uint(n-1)) - 1
	step := 1 << (e - 2) // a quarter of 2^e
	k := (n - 1 - 1<<e) / step
	class = (e-bodyClassShift)*bodySteps + k + 1
	return class, 1<<e + (k+1)*step
}

// get returns a buffer of length n, from its class when one is free.
// n > max_input_bytes is never pooled (readBody does not ask for one).
func (p *bodyBuffers) get(n int) []byte {
	if n <= 0 || n > citecheck.MaxInputBytes {
		return make([]byte, max(n, 0))
	}
	c, size := bodyClassOf(n)
	if b, ok := p.classes[c].Get().(*[]byte); ok {
		return (*b)[:n]
	}
	return make([]byte, n, size)
}

// put gives back a buffer that get returned, once nothing refers to its
// contents. A buffer not of a class's capacity is left to the collector.
func (p *bodyBuffers) put(b []byte) {
	n := cap(b)
	if n == 0 || n > citecheck.MaxInputBytes {
		return
	}
	if c, size := bodyClassOf(n); size == n {
		p.classes[c].Put(&b) // a slice header of 24 bytes, for a buffer of n
	}
}
