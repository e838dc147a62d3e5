//go:build wasip1

package main

import (
	"io"
	"unsafe"

	"github.com/citecheck/citecheck/annotation"
	"github.com/citecheck/citecheck/internal/jsonenc"
	"github.com/citecheck/citecheck/quotes"
)

// The JavaScript side writes inputs into buffers that Go allocates
// (citecheck_buffer), calls a function naming how many bytes it wrote,
// and reads the answer at citecheck_output. Go's collector does not move
// objects, so a buffer stays where it is while these variables hold it;
// the memory's ArrayBuffer can still be replaced when it grows, so the
// JavaScript side takes a new view after every call. These are the
// adapter's only state: the engine keeps none.
var (
	inputs  [4][]byte // 0: the body; 1 and 3: a source's IRI and version; 2: the bin's strings
	output  []byte
	sources []annotation.Source // gathered by citecheck_source for citecheck_annotations
)

// citecheck_buffer returns the address of input buffer slot, with room
// for n bytes (reused when it has room already, so steady-state calls
// allocate no body buffer).
//
//go:wasmexport citecheck_buffer
func buffer(slot, n int32) unsafe.Pointer {
	if slot < 0 || int(slot) >= len(inputs) || n < 0 {
		return nil
	}
	if cap(inputs[slot]) < int(n) || cap(inputs[slot]) == 0 {
		inputs[slot] = make([]byte, max(n, 1))
	}
	inputs[slot] = inputs[slot][:cap(inputs[slot])]
	return unsafe.Pointer(&inputs[slot][0])
}

// input is slot's first n bytes, or nil when n is out of its bounds.
func input(slot, n int32) []byte {
	if n < 0 || int(n) > len(inputs[slot]) {
		return nil
	}
	return inputs[slot][:n]
}

// citecheck_check answers the n bytes in buffer 0 in the given mode and
// returns the answer's length (its bytes are at citecheck_output).
//
//go:wasmexport citecheck_check
func check(mode, n int32) int32 {
	output = answer(int(mode), input(0, n))
	return int32(len(output))
}

// citecheck_output is the address of the last answer's bytes.
//
//go:wasmexport citecheck_output
func outputAt() unsafe.Pointer {
	if len(output) == 0 {
		return nil
	}
	return unsafe.Pointer(&output[0])
}

// citecheck_lookup answers the tool id (buffer 1, idLen bytes) and
// version (buffer 2): the length of an error envelope, or 0 when the
// engine implements them.
//
//go:wasmexport citecheck_lookup
func lookupTool(idLen, versionLen int32) int32 {
	output = lookup(string(input(1, idLen)), string(input(2, versionLen)))
	return int32(len(output))
}

// citecheck_error is the length of the error envelope for the code
// (buffer 1) and message (buffer 2).
//
//go:wasmexport citecheck_error
func errorAnswer(codeLen, messageLen int32) int32 {
	output = errorEnvelope(string(input(1, codeLen)), string(input(2, messageLen)))
	return int32(len(output))
}

// citecheck_text returns the address of a new buffer of exactly n bytes
// for the text of the next citecheck_source, which keeps it as the
// source's text without a copy: a source costs the module its UTF-8
// length, once.
//
//go:wasmexport citecheck_text
func textBuffer(n int32) unsafe.Pointer {
	if n < 0 {
		return nil
	}
	text = make([]byte, max(n, 1))[:n]
	return unsafe.Pointer(unsafe.SliceData(text[:1]))
}

var text []byte // the next source's text (citecheck_text)

// citecheck_source adds a source, its IRI and version in buffers 1 and 3
// and its text in the citecheck_text buffer, to those the next
// citecheck_annotations checks against.
//
//go:wasmexport citecheck_source
func addSource(iriLen, versionLen int32) {
	sources = append(sources, annotation.Source{
		IRI: string(input(1, iriLen)), Text: unsafe.String(unsafe.SliceData(text), len(text)), Version: string(input(3, versionLen)),
	})
	text = nil
}

// The host's side of an annotations run: hostRead writes at most n bytes
// of the export at p and returns how many (0 at its end); hostWrite takes
// n bytes of lines at p, copying them before it returns.
//
//go:wasmimport citecheck read_export
func hostRead(p unsafe.Pointer, n int32) int32

//go:wasmimport citecheck write_lines
func hostWrite(p unsafe.Pointer, n int32)

// hostExport is the export as the host hands it over, piece by piece, so
// that the module never holds more of it than the scanner asks for.
type hostExport struct{}

func (hostExport) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n := hostRead(unsafe.Pointer(&p[0]), int32(min(len(p), 1<<30)))
	if n <= 0 {
		return 0, io.EOF
	}
	return int(n), nil
}

// citecheck_annotations checks the export the host hands over through
// read_export against the sources added since the last call, writing its
// lines through write_lines as they come, and returns the length of the
// answer at citecheck_output: {"message", "notices"}, the message (absent
// when the run finished) and the notices as annotations returns them. The
// sources are let go whatever happens, as are the buffers that brought
// them.
//
//go:wasmexport citecheck_annotations
func checkAnnotations() int32 {
	src := sources
	sources, text = nil, nil
	inputs[1], inputs[2], inputs[3] = nil, nil, nil
	msg, notices := annotations(hostExport{}, src, func(b []byte) { hostWrite(unsafe.Pointer(&b[0]), int32(len(b))) })
	output = append(output[:0], '{')
	if msg != "" {
		output = append(jsonenc.AppendString(append(output, `"message":`...), msg), ',')
	}
	output = append(append(append(output, `"notices":`...), notices...), '}')
	return int32(len(output))
}

// The flags of citecheck_quotes.
const (
	quotesRequest = 1 // buffer 2 holds the request an Anthropic response answered
	quotesExplain = 2 // give failing quotations their fix
)

// citecheck_quotes checks the input in buffer 0 (inputLen bytes) against
// the sources added since the last call (each source's id as its IRI),
// after the documents of the request in buffer 2 (requestLen bytes) when
// flags say so, writing its JSON lines through write_lines a batch at a
// time, and returns the length of the answer at citecheck_output
// (quoteLines'). The sources and the buffers that brought them are let
// go whatever happens.
//
//go:wasmexport citecheck_quotes
func checkQuotes(inputLen, requestLen, flags int32) int32 {
	raw := make([]quotes.RawSource, len(sources))
	for i, s := range sources {
		raw[i] = quotes.RawSource{ID: s.IRI, Text: unsafe.Slice(unsafe.StringData(s.Text), len(s.Text))}
	}
	in, req := input(0, inputLen), input(2, requestLen)
	sources, text = nil, nil
	inputs[1], inputs[2], inputs[3] = nil, nil, nil
	output = quoteLines(in, req, flags&quotesRequest != 0, raw, flags&quotesExplain != 0,
		func(b []byte) { hostWrite(unsafe.Pointer(&b[0]), int32(len(b))) })
	return int32(len(output))
}
