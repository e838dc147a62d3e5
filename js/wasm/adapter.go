// Command wasm is the citecheck engine as a WebAssembly reactor for the
// JavaScript package in js/ (docs/javascript.md): built with GOOS=wasip1
// GOARCH=wasm -buildmode=c-shared, it exports functions that take bodies
// from linear memory and leave answers there. This file holds the adapter
// itself, plain Go over the engine's public API, so that it is tested and
// fuzzed natively; exports_wasip1.go only moves bytes in and out.
package main

import (
	"bytes"
	"context"
	"io"
	"runtime/debug"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/annotation"
	"github.com/citecheck/citecheck/internal/jsonenc"
	"github.com/citecheck/citecheck/quotes"
)

// The answers the package's functions give, by the mode the JavaScript
// side passes.
const (
	modeExecute = 0 // the HTTP execute route's envelope (checkRaw)
	modeAll     = 1 // `citecheck run --all`'s line, without its newline
	modeExplain = 2 // `citecheck run --explain`'s line, without its newline
)

// answer is the envelope for body in the given mode, the bytes the CLI
// prints before its newline (and, for modeExecute, the route's body). A
// body over max_input_bytes is refused by citecheck.ReadBody, the CLI's
// and the route's own refusal. An unknown mode is an internal error (the
// package never passes one). Cost: the engine's Run, CheckAll or Explain.
func answer(mode int, body []byte) []byte {
	if len(body) > citecheck.MaxInputBytes {
		_, err := citecheck.ReadBody(bytes.NewReader(body))
		return citecheck.AppendEnvelope(nil, nil, err)
	}
	switch mode {
	case modeExecute:
		res, err := citecheck.Run(body)
		return citecheck.AppendEnvelope(make([]byte, 0, 512), res, err)
	case modeAll, modeExplain:
		req, err := citecheck.Decode(body)
		if err != nil {
			return citecheck.AppendEnvelope(nil, nil, err)
		}
		if mode == modeExplain {
			return citecheck.AppendExplainEnvelope(nil, citecheck.Explain(req), nil)
		}
		return citecheck.AppendAllEnvelope(nil, citecheck.CheckAll(req), nil)
	}
	return citecheck.AppendEnvelope(nil, nil, &citecheck.Error{Code: citecheck.CodeInternal, Message: "citecheck wasm: unknown mode"})
}

// lookup is the error envelope for a tool id and version the engine does
// not implement, or nil when it does: the bin's first check, as the CLI's.
func lookup(id, version string) []byte {
	if err := citecheck.LookupTool(id, version); err != nil {
		return citecheck.AppendEnvelope(nil, nil, err)
	}
	return nil
}

// errorEnvelope is {"error": …} for an error the bin finds before the
// engine runs (a file it cannot read), written by the engine's encoder.
func errorEnvelope(code, message string) []byte {
	return citecheck.AppendEnvelope(nil, nil, &citecheck.Error{Code: code, Message: message})
}

// annotations is annotation.Lines (the JSON lines `citecheck annotations`
// writes for an export read from r, handed to put in pieces), with the
// collector run at half its default target: a batch's diagnoses leave
// garbage that the default (100 %) lets grow to what the batch holds live
// before it runs, and the module's memory keeps its peak; collecting at
// half that holds a run of any length within a host's cap of 16 MiB (the
// test of the streaming export), at a few percent of the time.
func annotations(r io.Reader, sources []annotation.Source, put func([]byte)) (msg string, notices []byte) {
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	return annotation.Lines(context.Background(), r, sources, put)
}

// quoteLines is `citecheck quotes` over a call's inputs (quotes.NewRun:
// the input, the request when withRequest, the sources), its JSON lines
// handed to put a batch at a time as they are written, and its answer
// {"status"} with the command's exit status (0 every quotation
// verbatim, 1 not), or {"status": 2, "code", "message"} with the error
// (the command's words after "citecheck: ") when the run is refused or
// stops. The lines are the command's standard output byte for byte: the
// checks and the writing are quotes.Run's, which the command and the
// pipe run too. Cost: quotes.Run.Each's; the module holds the input,
// the request, the sources (their UTF-8 twice while NewRun reads them,
// once after), the quotations and one batch's results and lines. The
// sources' entries are cleared once read, so that the bytes that brought
// them can go.
func quoteLines(input, request []byte, withRequest bool, sources []quotes.RawSource, explain bool, put func([]byte)) []byte {
	run, e := quotes.NewRun(input, request, withRequest, sources, explain)
	if e == nil {
		clear(sources) // their bytes are the Run's strings now
		var buf []byte
		var counts []int
		counts, e = run.Each(context.Background(), func(a *quotes.Answer) {
			buf = a.AppendLines(buf[:0])
			put(buf)
		})
		if e == nil {
			status := "0"
			for o, n := range counts {
				if n > 0 && quotes.Outcome(o) != quotes.Verbatim {
					status = "1"
				}
			}
			return []byte(`{"status":` + status + "}")
		}
	}
	out := jsonenc.AppendString([]byte(`{"status":2,"code":`), e.Code)
	return append(jsonenc.AppendString(append(out, `,"message":`...), e.Message), '}')
}

func main() {}
