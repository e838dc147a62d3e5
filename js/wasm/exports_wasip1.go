//go:build wasip1

package main

import (
	"unsafe"

	"github.com/citecheck/citecheck/annotation"
)

// The JavaScript side writes inputs into buffers that Go allocates
// (citecheck_buffer), calls a function naming how many bytes it wrote,
// and reads the answer at citecheck_output. Go's collector does not move
// objects, so a buffer stays where it is while these variables hold it;
// the memory's ArrayBuffer can still be replaced when it grows, so the
// JavaScript side takes a new view after every call. These are the
// adapter's only state: the engine keeps none.
var (
	inputs  [4][]byte // 0: the body or the export; 1–3: a source's IRI, text and version
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

// citecheck_source adds a source, its IRI, text and version in buffers 1,
// 2 and 3, to those the next citecheck_annotations checks against.
//
//go:wasmexport citecheck_source
func addSource(iriLen, textLen, versionLen int32) {
	sources = append(sources, annotation.Source{
		IRI: string(input(1, iriLen)), Text: string(input(2, textLen)), Version: string(input(3, versionLen)),
	})
}

// citecheck_annotations checks the export (buffer 0, n bytes) against the
// sources added since the last call, and returns the answer's length: the
// JSON lines, then the error message, if any, from byte
// citecheck_lines_length on.
//
//go:wasmexport citecheck_annotations
func checkAnnotations(n int32) int32 {
	lines, msg := annotations(input(0, n), sources)
	sources = nil
	linesLength = int32(len(lines))
	output = append(lines, msg...)
	return int32(len(output))
}

var linesLength int32

// citecheck_lines_length is how many bytes of the last annotations answer
// are JSON lines; the rest is its error message.
//
//go:wasmexport citecheck_lines_length
func linesLen() int32 { return linesLength }
