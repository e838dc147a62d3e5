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
	"strconv"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/annotation"
	"github.com/citecheck/citecheck/internal/jsonenc"
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

// linesChunk is about how many bytes of lines annotations gathers before
// handing them on: large enough that the host is called rarely, small
// enough that the lines of a large export are never all in the module.
const linesChunk = 64 << 10

// annotations reads an export from r and checks it against sources,
// handing put the JSON lines `citecheck annotations` writes for it, in
// input order, in pieces of whole lines of about linesChunk bytes (put
// copies what it keeps: the buffer is reused). When the run cannot finish
// (sources with the same IRI, an export that is not JSON) msg is the
// message the CLI writes after "citecheck: " on standard error, the lines
// handed on before it being what the CLI prints before it; else "".
// notices is a JSON array of what the CLI's summary says beside the
// counts (see appendNotices), [] when it says nothing more.
//
// Memory: Stream's (one batch of StreamBatch annotations, and the
// scanner's buffer, which holds the longest token), the sources, the IRIs
// not supplied, and linesChunk bytes plus the longest line; neither the
// export nor its lines are ever held whole. Cost: annotation.Checker.Stream's.
func annotations(r io.Reader, sources []annotation.Source, put func([]byte)) (msg string, notices []byte) {
	c, err := annotation.NewChecker(sources, citecheck.DefaultLimits())
	if err != nil {
		return err.Error(), []byte("[]")
	}
	// A batch's diagnoses leave garbage that the collector, left at its
	// default (100 %), lets grow to what the batch holds live before it
	// runs, and the module's memory keeps its peak: collecting at half
	// that holds a run of any length within a host's cap of 16 MiB
	// (the test of the streaming export), at a few percent of the time.
	defer debug.SetGCPercent(debug.SetGCPercent(50))
	var lines []byte
	missing := annotation.Missing{}
	sc := annotation.NewScanner(r)
	err = c.Stream(context.Background(), sc, func(it annotation.Item, rep *annotation.Report) error {
		if rep != nil && rep.Err == nil {
			missing.Add(rep)
		}
		lines = annotation.AppendJSONLine(lines, it, rep)
		if len(lines) >= linesChunk {
			put(lines)
			lines = lines[:0]
		}
		return nil
	})
	if len(lines) > 0 {
		put(lines)
	}
	notices = appendNotices(nil, sc, missing)
	if err != nil {
		return err.Error(), notices
	}
	return "", notices
}

// appendNotices appends the JSON array of the notices the CLI's summary
// gives beside the counts, each {"kind", "message", …}, the message in
// the CLI's words:
//
//   - one_page: the export is one page of a collection (next, total and
//     here, as annotation.Part has them, when known);
//   - targets_name_no_source: targets that name no source, and the key
//     that gives their text (sources[""]);
//   - sources_not_supplied: the IRIs named and not supplied, each with
//     how many targets name it (every one, in IRI order; the message
//     names the first annotation.MaxMissingNamed).
func appendNotices(dst []byte, sc *annotation.Scanner, missing annotation.Missing) []byte {
	dst = append(dst, '[')
	notice := func(kind, message string) {
		if len(dst) > 1 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"kind":"`+kind+`","message":`...)
		dst = jsonenc.AppendString(dst, message)
	}
	if p, ok := sc.Part(); ok {
		notice("one_page", p.Words())
		if p.Next != "" {
			dst = jsonenc.AppendString(append(dst, `,"next":`...), p.Next)
		}
		if p.Total > 0 {
			dst = append(dst, `,"total":`+strconv.FormatInt(p.Total, 10)+`,"here":`+strconv.Itoa(p.Here)...)
		}
		dst = append(dst, '}')
	}
	unnamed, named := missing.Words(`sources[""]`)
	if unnamed != "" {
		notice("targets_name_no_source", unnamed)
		dst = append(dst, `,"targets":`+strconv.Itoa(missing[""])+`}`...)
	}
	if named != "" {
		notice("sources_not_supplied", named)
		dst = append(dst, `,"sources":[`...)
		for i, iri := range missing.IRIs() {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonenc.AppendString(append(dst, `{"iri":`...), iri)
			dst = append(dst, `,"targets":`+strconv.Itoa(missing[iri])+`}`...)
		}
		dst = append(dst, "]}"...)
	}
	return append(dst, ']')
}

func main() {}
