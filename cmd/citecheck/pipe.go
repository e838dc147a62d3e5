package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/annotation"
	"github.com/citecheck/citecheck/quotes"
)

// `citecheck pipe` answers framed requests on standard input with framed
// answers on standard output, one at a time, for as long as its input
// lasts: the Python package's engine (docs/python.md#the-pipe-protocol).
// It is built for one caller that waits for each answer, so a call costs a
// write and a read on each side and no parse beyond the body's.
//
// A frame is an 8-byte header, then its payload:
//
//	u32 payload length | u8 op | u8 mode or status | u16 zero   (little-endian)
//
// An answer carries the request's op, and a status where the request had
// its mode. Payloads made of several parts are fields: each a u32 length
// and that many bytes.
const (
	pipeHello       = 0 // → "citecheck-pipe 1\n" and `citecheck version`'s first line
	pipeCheck       = 1 // mode: body → the answer `run` (modes below) prints, without its newline
	pipeBatch       = 2 // mode: fields of bodies → fields of answers, in order, on every core
	pipeQuotes      = 3 // fields options JSON, input, request, then id and text per source → status = exit status; fields stdout, error code, error message
	pipeAnnotations = 4 // fields export, then IRI, text and version per source → status 0 or 2; fields lines, error message, notices JSON
)

// The modes of pipeCheck and pipeBatch: which answer `run` gives.
const (
	pipeExecute = 0 // the contract's envelope, the HTTP execute route's body
	pipeAll     = 1 // --all
	pipeExplain = 2 // --explain
)

// pipeShared, added to a check's mode, says that the body is in the
// memory shared with the caller (--body-fd), and the payload is its
// length (u32): the body crosses without a copy through the kernel. The
// caller writes that memory only between an answer and its next request.
const pipeShared = 0x80

// pipeBroken is the status of an answer to a frame the pipe cannot read
// (an unknown op or mode, fields that overrun the payload): the payload
// says why, and the pipe stops, since what follows is out of step.
const pipeBroken = 255

const pipeProtocol = "citecheck-pipe 1\n"

// The bounds of a frame, refused when its header arrives. A quotes or
// annotations call holds its input and sources in memory, as the commands
// hold their files: at most maxPipeFrame bytes, read as they come. A
// check's body is read up to MaxInputBytes+1 bytes whatever its length,
// the rest skipped: it is refused as the execute route refuses it. A batch
// holds its bodies and their answers: at most maxBatchFrame bytes and
// maxBatchBodies bodies (the Python package sends at most 1,024 bodies and
// about 16 MiB), so that what it costs is bounded by what it brings.
const (
	maxPipeFrame   = 1 << 31
	maxBatchFrame  = 64 << 20
	maxBatchBodies = 1 << 16
)

type pipeHeader struct {
	n    uint32
	op   uint8
	mode uint8
}

func pipeCommand() (*command, *int) {
	c := newCommand("pipe", "citecheck pipe [--body-fd N]",
		"Answers framed requests on standard input with framed answers on standard output, until its input ends:\n"+
			"the engine of the Python package (docs/python.md#the-pipe-protocol). Not for people.")
	fd := c.flags.Int("body-fd", -1, "a memory file `N` of max_input_bytes+1 bytes, shared with the caller, that holds a check's body (Linux)")
	return c, fd
}

// sharedBodySize is the size of the --body-fd memory: a body over
// max_input_bytes is refused by its length, which its first
// max_input_bytes+1 bytes show.
const sharedBodySize = citecheck.MaxInputBytes + 1

// cmdPipe is `citecheck pipe`. It ends at the end of its input (0), or at
// a frame it cannot read (2, after answering it with pipeBroken).
//
// One frame is read ahead while the one before is answered, so a caller
// that sends the next batch before reading an answer keeps every core
// busy; what the pipe holds is the frame being answered, the one read
// ahead and their answers.
func cmdPipe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c, bodyFD := pipeCommand()
	if code, done := c.noArguments(args, stdout, stderr); done {
		return code
	}
	var shared []byte
	if *bodyFD < -1 {
		return c.misuse(stderr, fmt.Sprintf("--body-fd %d: not a file descriptor", *bodyFD))
	}
	if *bodyFD >= 0 {
		b, unmap, err := mapShared(*bodyFD, sharedBodySize)
		if err != nil {
			return c.misuse(stderr, fmt.Sprintf("--body-fd %d: %v", *bodyFD, err))
		}
		// Unmapped after the reader is done with it: done is closed first
		// (defers run last in, first out), and the reader holds no body
		// past its next select.
		defer unmap()
		shared = b
		// A memory file shrunk under the map faults when read: a panic
		// in this goroutine, which answers every check, fails that call.
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	}
	widenPipes(stdin, stdout)
	out := bufio.NewWriterSize(stdout, 64<<10)
	requests := make(chan pipeRequest) // unbuffered: one frame read ahead
	done := make(chan struct{})
	defer close(done)
	// A check's body is read into one of two buffers that take turns: the
	// engine keeps nothing of a body once its answer is written.
	free := make(chan []byte, 2)
	free <- nil
	free <- nil
	go readRequests(bufio.NewReaderSize(stdin, 64<<10), shared, requests, free, done)
	// A signal (SIGTERM, SIGINT) ends the pipe once the call in hand is
	// answered: the call itself runs to its end, and the caller, finding
	// its engine gone, starts another.
	work := context.WithoutCancel(ctx)
	var answer []byte
	for {
		var r pipeRequest
		select {
		case <-ctx.Done():
			return exitValid
		case next, ok := <-requests:
			if !ok {
				return exitValid
			}
			r = next
		}
		if r.cut {
			fmt.Fprintf(stderr, "citecheck: pipe: the input ended inside a frame's header\n")
			return exitError
		}
		st, payload := uint8(pipeBroken), []byte(nil)
		if r.err == nil {
			st, payload = pipeAnswer(work, r, answer[:0])
		} else {
			payload = []byte(r.err.Error())
		}
		if r.op == pipeCheck && r.err == nil && r.mode&pipeShared == 0 {
			free <- r.body
		}
		writeFrame(out, r.op, st, payload)
		if err := out.Flush(); err != nil {
			return exitError // the caller has gone
		}
		if st == pipeBroken {
			fmt.Fprintf(stderr, "citecheck: pipe: %s\n", payload)
			return exitError
		}
		if cap(payload) <= 1<<20 { // keep a small buffer for the next answer, not a large one
			answer = payload
		}
	}
}

// pipeRequest is one frame, read whole.
type pipeRequest struct {
	pipeHeader
	body   []byte   // pipeCheck: at most MaxInputBytes+1 bytes
	bodies [][]byte // pipeBatch
	fields [][]byte // pipeQuotes, pipeAnnotations
	err    error    // a frame the pipe cannot read: the last request
	cut    bool     // the input ended inside a header: the last request
}

// readRequests reads frames from in and hands each on, until the input
// ends (the channel is closed), a frame cannot be read (handed on with
// its err, then closed) or done is closed. A check's body is read into a
// buffer taken from free.
func readRequests(in *bufio.Reader, shared []byte, requests chan<- pipeRequest, free chan []byte, done <-chan struct{}) {
	defer close(requests)
	for {
		r, ok := readRequest(in, shared, free, done)
		if !ok {
			return
		}
		select {
		case requests <- r:
		case <-done:
			return
		}
		if r.cut || r.err != nil {
			return
		}
	}
}

// readRequest reads one frame: false at the end of the input, or when
// done is closed.
func readRequest(in *bufio.Reader, shared []byte, free chan []byte, done <-chan struct{}) (r pipeRequest, ok bool) {
	var h [8]byte
	if _, err := io.ReadFull(in, h[:]); err == io.EOF {
		return r, false
	} else if err != nil {
		r.cut = true
		return r, true
	}
	r.pipeHeader = pipeHeader{n: binary.LittleEndian.Uint32(h[:4]), op: h[4], mode: h[5]}
	switch {
	case h[6] != 0 || h[7] != 0:
		r.err = errors.New("a header whose last two bytes are not zero")
		return r, true
	case r.n > maxPipeFrame:
		r.err = fmt.Errorf("a frame of %d bytes, over %d", r.n, maxPipeFrame)
		return r, true
	case r.op == pipeBatch && r.n > maxBatchFrame:
		r.err = fmt.Errorf("a batch of %d bytes, over %d", r.n, maxBatchFrame)
		return r, true
	}
	var buf []byte
	borrowed := r.op == pipeCheck && r.mode&pipeShared == 0
	if borrowed {
		select {
		case buf = <-free:
		case <-done:
			return r, false
		}
	}
	if r.err = r.read(in, buf, shared); r.err != nil && borrowed {
		free <- buf
	}
	return r, true
}

// read reads the frame's payload, which its header heads. An error is a
// frame the pipe cannot read.
func (r *pipeRequest) read(in *bufio.Reader, buf, shared []byte) (err error) {
	if r.mode != 0 && r.op != pipeCheck && r.op != pipeBatch {
		return fmt.Errorf("unknown mode %d", r.mode)
	}
	switch r.op {
	case pipeHello:
		return skip(in, int64(r.n))
	case pipeCheck:
		if r.mode&^pipeShared > pipeExplain {
			return fmt.Errorf("unknown mode %d", r.mode)
		}
		if r.mode&pipeShared != 0 {
			var l [4]byte
			if r.n != 4 {
				return fmt.Errorf("a shared body's frame holds its length alone, not %d bytes", r.n)
			}
			if _, err := io.ReadFull(in, l[:]); err != nil {
				return errors.New("the input ended inside a frame")
			}
			n := binary.LittleEndian.Uint32(l[:])
			if uint64(n) > uint64(len(shared)) {
				return fmt.Errorf("a shared body of %d bytes, over the %d shared", n, len(shared))
			}
			r.body = shared[:n]
			return nil
		}
		r.body, err = readBody(in, int64(r.n), buf)
		return err
	case pipeBatch:
		if r.mode > pipeExplain {
			return fmt.Errorf("unknown mode %d", r.mode)
		}
		r.bodies, err = readBodies(in, int64(r.n))
		return err
	case pipeQuotes, pipeAnnotations:
		// Read as it comes, not allocated by the header's word: a frame
		// costs the bytes it brings.
		p, err := io.ReadAll(io.LimitReader(in, int64(r.n)))
		if err != nil || len(p) != int(r.n) {
			return fmt.Errorf("the input ended inside a frame")
		}
		r.fields, err = splitFields(p)
		return err
	}
	return fmt.Errorf("unknown op %d", r.op)
}

func writeFrame(w *bufio.Writer, op, status uint8, payload []byte) {
	var h [8]byte
	binary.LittleEndian.PutUint32(h[:4], uint32(len(payload)))
	h[4], h[5] = op, status
	w.Write(h[:])
	w.Write(payload)
}

// pipeAnswer answers a frame read whole, appending to dst. A panic in
// the engine fails that request alone: the answer is the internal error
// the service gives.
func pipeAnswer(ctx context.Context, r pipeRequest, dst []byte) (status uint8, payload []byte) {
	switch r.op {
	case pipeHello:
		var v bytes.Buffer
		cmdVersion(nil, &v, io.Discard)
		line, _, _ := bytes.Cut(v.Bytes(), []byte("\n"))
		return 0, append(append(dst, pipeProtocol...), line...)
	case pipeCheck:
		return 0, pipeEvaluate(dst, r.body, r.mode&^pipeShared)
	case pipeBatch:
		return 0, answerBatch(dst, r.bodies, r.mode)
	}
	defer func() {
		if p := recover(); p != nil { // fails this call alone: its frame was read whole
			status, payload = exitError, appendField(appendField(appendField(dst, nil), []byte(citecheck.CodeInternal)), []byte("internal error: the engine failed on this call"))
		}
	}()
	if r.op == pipeQuotes {
		return pipeQuotesRun(ctx, dst, r.fields)
	}
	return pipeAnnotationsRun(ctx, dst, r.fields)
}

// pipeEvaluate appends the answer `run` prints for body in mode, without
// its newline; a panic is the internal error, for this body alone.
func pipeEvaluate(dst, body []byte, mode uint8) (out []byte) {
	defer func() {
		if r := recover(); r != nil {
			out = citecheck.AppendEnvelope(dst, nil, &citecheck.Error{Code: citecheck.CodeInternal, Message: "internal error: the engine failed on this body"})
		}
	}()
	return evaluate(body, mode == pipeAll, mode == pipeExplain).appendJSON(dst)
}

// readBody reads a body of n bytes into buf (grown when short), keeping
// at most MaxInputBytes+1 of them: more is refused by the length alone
// (citecheck.ReadBody).
func readBody(in *bufio.Reader, n int64, buf []byte) ([]byte, error) {
	keep := int(min(n, citecheck.MaxInputBytes+1))
	if cap(buf) < keep {
		buf = make([]byte, keep)
	}
	b := buf[:keep]
	if _, err := io.ReadFull(in, b); err != nil {
		return nil, errors.New("the input ended inside a frame")
	}
	return b, skip(in, n-int64(keep))
}

func skip(in *bufio.Reader, n int64) error {
	if m, _ := io.CopyN(io.Discard, in, n); m != n {
		return errors.New("the input ended inside a frame")
	}
	return nil
}

// readBodies reads a batch's payload of n bytes: fields, each a body
// read as readBody reads one.
func readBodies(in *bufio.Reader, n int64) ([][]byte, error) {
	var bodies [][]byte
	for n > 0 {
		if n < 4 {
			return nil, errors.New("a field's length overruns its frame")
		}
		var l [4]byte
		if _, err := io.ReadFull(in, l[:]); err != nil {
			return nil, errors.New("the input ended inside a frame")
		}
		size := int64(binary.LittleEndian.Uint32(l[:]))
		if n -= 4; size > n {
			return nil, errors.New("a field's length overruns its frame")
		}
		if len(bodies) == maxBatchBodies {
			return nil, fmt.Errorf("a batch of more than %d bodies", maxBatchBodies)
		}
		b, err := readBody(in, size, nil)
		if err != nil {
			return nil, err
		}
		bodies = append(bodies, b)
		n -= size
	}
	return bodies, nil
}

// answerBatch appends each body's answer as a field, in order, answering
// them on GOMAXPROCS goroutines. Memory: the bodies and their answers.
func answerBatch(dst []byte, bodies [][]byte, mode uint8) []byte {
	answers := make([][]byte, len(bodies))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(bodies)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(bodies); i = int(next.Add(1) - 1) {
				answers[i] = pipeEvaluate(nil, bodies[i], mode)
				bodies[i] = nil
			}
		}()
	}
	wg.Wait()
	for _, a := range answers {
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(a)))
		dst = append(dst, a...)
	}
	return dst
}

// splitFields splits a payload into its fields.
func splitFields(p []byte) ([][]byte, error) {
	var fields [][]byte
	for len(p) > 0 {
		if len(p) < 4 {
			return nil, errors.New("a field's length overruns its frame")
		}
		n := binary.LittleEndian.Uint32(p)
		if uint64(n) > uint64(len(p)-4) {
			return nil, errors.New("a field's length overruns its frame")
		}
		fields = append(fields, p[4:4+n])
		p = p[4+n:]
	}
	return fields, nil
}

func appendField(dst, f []byte) []byte {
	return append(binary.LittleEndian.AppendUint32(dst, uint32(len(f))), f...)
}

// pipeQuotesRun is `citecheck quotes` over text held in memory: fields
// options ({"format": "json"|"text", "explain": bool, "request": bool}),
// the input, the Anthropic request the input answered (when options say
// so; else empty), then each source's id and text. The answer's status is
// the command's exit status; its fields are what it prints on standard
// output, and for status 2 the error's code and message (the command's
// words after "citecheck: ").
func pipeQuotesRun(ctx context.Context, dst []byte, f [][]byte) (uint8, []byte) {
	if len(f) < 3 || (len(f)-3)%2 != 0 {
		return pipeBroken, append(dst, "quotes takes options, input, request and pairs of id and text"...)
	}
	var o struct {
		Format  string `json:"format"`
		Explain bool   `json:"explain"`
		Request bool   `json:"request"`
	}
	if err := json.Unmarshal(f[0], &o); err != nil || (o.Format != "json" && o.Format != "text") {
		return pipeBroken, fmt.Appendf(dst, "quotes options %q", f[0])
	}
	refuse := func(code, msg string) (uint8, []byte) {
		return exitError, appendField(appendField(appendField(dst, nil), []byte(code)), []byte(msg))
	}
	raw := make([]quotes.RawSource, 0, (len(f)-3)/2)
	for i := 3; i < len(f); i += 2 {
		raw = append(raw, quotes.RawSource{ID: string(f[i]), Text: f[i+1]})
	}
	run, e := quotes.NewRun(f[1], f[2], o.Request, raw, o.Explain)
	if e != nil {
		return refuse(e.Code, e.Message)
	}
	q := quotesRun{Run: *run, text: o.Format == "text"}
	var out bytes.Buffer
	counts, stopped := q.write(ctx, &out)
	if stopped != nil {
		return exitError, appendField(appendField(appendField(dst, out.Bytes()), []byte(stopped.Code)), []byte(stopped.Message))
	}
	status := uint8(exitValid)
	if counts[quotes.Verbatim] != sum(counts) {
		status = exitFailed
	}
	return status, appendField(appendField(appendField(dst, out.Bytes()), nil), nil)
}

// pipeAnnotationsRun is annotation.Lines over an export held in memory:
// fields the export, then each source's IRI, text and version. The
// answer's status is 0, or 2 when the run could not finish; its fields
// are the lines, the message (empty when it finished) and the notices.
func pipeAnnotationsRun(ctx context.Context, dst []byte, f [][]byte) (uint8, []byte) {
	if len(f) < 1 || (len(f)-1)%3 != 0 {
		return pipeBroken, append(dst, "annotations takes an export and triples of IRI, text and version"...)
	}
	var sources []annotation.Source
	for i := 1; i < len(f); i += 3 {
		// A text that is not UTF-8 fails the targets on it, as an
		// unreadable source file does.
		text, e := quotes.SourceText(f[i+1])
		sources = append(sources, annotation.Source{IRI: string(f[i]), Text: text, Version: string(f[i+2]), Err: e})
	}
	var lines []byte
	msg, notices := annotation.Lines(ctx, bytes.NewReader(f[0]), sources, func(b []byte) { lines = append(lines, b...) })
	status := uint8(exitValid)
	if msg != "" {
		status = exitError
	}
	return status, appendField(appendField(appendField(dst, lines), []byte(msg)), notices)
}
