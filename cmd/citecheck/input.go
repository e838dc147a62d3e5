package main

import (
	"bytes"
	"io"
	"os"
	"runtime/debug"
	"unsafe"

	"github.com/citecheck/citecheck"
)

// A whole `run` on a large body spends more on memory than on checking: on
// the machines we measure, every fresh 4 KiB page costs the process a page
// fault of 2.5–4 µs, so each MiB of memory touched once costs about 1 ms,
// as much as decoding it (docs/performance.md, "Whole process"). So the
// body of one request is brought in with as few fresh pages as possible:
//
//   - a regular file is mapped straight from the page cache where the
//     system allows it (input_linux.go: mmap with MAP_POPULATE, one system
//     call, no page of the body copied or faulted in one at a time);
//   - else, when its size is known, it is read into one buffer of that size
//     (io.ReadAll would grow its buffer from 512 bytes by doubling, touching
//     about three times the body's size in fresh pages);
//   - else (a pipe, a terminal) through citecheck.ReadBody.
//
// The limit max_input_bytes and its error are ReadBody's in every case.

// input is the body of one request read from --input.
type input struct {
	body  []byte
	unmap func() // releases a mapped body; nil when body is on the heap
	// The mapped file and what it was when mapped: a panic while the body
	// is in use is answered as an error only if the file changed since
	// (see use). file is closed by then unless it is standard input
	// (name "-"), so a named file is asked for by its name.
	name   string
	file   *os.File
	mapped os.FileInfo
}

// readInput reads the body from a file or, for "-", standard input, through
// the max_input_bytes limit.
func readInput(name string, stdin io.Reader) (*input, *citecheck.Error) {
	r, size, closeIn, e := openInput(name, stdin)
	if e != nil {
		return nil, e
	}
	defer closeIn()
	if size <= 0 || size > citecheck.MaxInputBytes {
		// Unknown size, or over the limit: ReadBody reads up to one byte
		// past the limit and says so, as it always has.
		body, e := citecheck.ReadBody(r)
		return &input{body: body}, citecheck.AsError(e)
	}
	if f, ok := r.(*os.File); ok && size >= mapMinBytes {
		if st, err := f.Stat(); err == nil {
			if body, unmap, ok := mapFile(f, int(size)); ok {
				return &input{body: body, unmap: unmap, name: name, file: f, mapped: st}, nil
			}
		}
	}
	return readSized(r, int(size))
}

// mapMinBytes is the smallest body worth mapping: below it, reading costs
// a few pages at most, less than setting up and tearing down a mapping.
const mapMinBytes = 64 << 10

// readSized reads a body of the given size in one buffer; a file that grew
// since its size was taken is read on through ReadBody.
func readSized(r io.Reader, size int) (*input, *citecheck.Error) {
	buf := make([]byte, 0, size+1) // +1: the read that finds the end needs no new buffer
	for {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF:
			return &input{body: buf}, nil
		case err != nil:
			_, e := citecheck.ReadBody(errReader{err}) // its message for a failed read
			return nil, citecheck.AsError(e)
		case len(buf) == cap(buf):
			body, e := citecheck.ReadBody(io.MultiReader(bytes.NewReader(buf), r))
			return &input{body: body}, citecheck.AsError(e)
		}
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// use calls f with the body and returns its exit status, then releases the
// body: it must not be kept past f. A mapped file that is truncated while f
// reads it makes the read fault; that fault is answered as the read error
// it stands for, not a crash. A mapped file that another process rewrites
// in place changes the body, and the decoded texts that share it, under
// the check, which then may fail on bytes the decoder never saw: a panic
// is answered as that error when the file has changed since it was mapped
// (its size or modification time), and is a panic otherwise.
func (in *input) use(stdout, stderr io.Writer, f func(body []byte) int) (code int) {
	if in.unmap == nil {
		return f(in.body)
	}
	defer in.unmap()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		msg := "cannot read --input: the file was truncated while it was read"
		if fault, ok := r.(interface{ Addr() uintptr }); !ok || !in.holds(fault.Addr()) {
			if !in.changed() {
				panic(r)
			}
			msg = "cannot read --input: the file changed while it was read"
		}
		code = report(stdout, stderr, nil, &citecheck.Error{Code: citecheck.CodeUsage, Message: msg})
	}()
	return f(in.body)
}

// changed reports whether the mapped file is not what it was when mapped.
func (in *input) changed() bool {
	stat := func() (os.FileInfo, error) { return os.Stat(in.name) }
	if in.name == "-" {
		stat = in.file.Stat
	}
	st, err := stat()
	return err != nil || st.Size() != in.mapped.Size() || !st.ModTime().Equal(in.mapped.ModTime())
}

// holds reports whether the address addr is in the body.
func (in *input) holds(addr uintptr) bool {
	start := uintptr(unsafe.Pointer(unsafe.SliceData(in.body)))
	return addr >= start && addr < start+uintptr(len(in.body))
}
