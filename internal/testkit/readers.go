package testkit

import (
	"io"
	"sync/atomic"
)

// CountingReader counts the bytes R hands out; N may be read from any
// goroutine while another reads.
type CountingReader struct {
	R io.Reader
	n atomic.Int64
}

func (c *CountingReader) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// N is the number of bytes read so far.
func (c *CountingReader) N() int64 { return c.n.Load() }

// Endless is a stream of one byte repeated for ever.
type Endless byte

func (b Endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

// FailingReader fails every read with Err: a connection that broke.
type FailingReader struct{ Err error }

func (f FailingReader) Read([]byte) (int, error) { return 0, f.Err }
