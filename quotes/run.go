package quotes

import (
	"bytes"
	"context"
	"strconv"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/utext"
)

// Run is one run of `citecheck quotes` over inputs held in memory: the
// command's, from its files; the pipe's (the Python package) and the
// WebAssembly module's (the JavaScript package), from a call (NewRun).
// All three check and write through Each, so that they answer alike.
type Run struct {
	Shape     Shape
	Input     []byte
	Name      string     // the input's name in messages
	Documents []Document // an Anthropic request's documents, or nil
	Sources   []Source   // the request's documents' sources first
	Explain   bool
}

// MaxSourceBytes is the most bytes NewRun reads of the input, of the
// request and of each source: `citecheck quotes`'s --max-source-size
// default, far above a real document's text (a long book is a few MiB),
// far below what would exhaust memory. A call holds what it brings, so a
// caller of the packages meets the bound the command's user does.
const MaxSourceBytes = 64 << 20

// RawSource is a source as a call hands it over: its id and its text's
// bytes, read as the command reads a source file (SourceText).
type RawSource struct {
	ID   string
	Text []byte
}

// NewRun is the run a call asks for: input (a report, a structured
// answer or an Anthropic response, its name in messages "text"), the
// request the response answered when withRequest, and the sources, read
// in that order. The error, invalid_input, is the first that is wrong,
// in the command's words after "citecheck: ", naming "text", "request"
// or the source. Cost: Detect's, ReadRequest's, and one pass over each
// source's text.
func NewRun(input, request []byte, withRequest bool, sources []RawSource, explain bool) (*Run, *citecheck.Error) {
	if len(input) > MaxSourceBytes {
		return nil, overBound("text")
	}
	shape, err := Detect(input)
	if err != nil {
		return nil, prefixed(err, "text: ")
	}
	r := &Run{Shape: shape, Input: input, Name: "text", Explain: explain}
	if withRequest {
		if shape != Anthropic {
			return nil, invalid("request is the request an Anthropic response answered; the text is a " + shape.String())
		}
		if len(request) > MaxSourceBytes {
			return nil, overBound("request")
		}
		if r.Documents, err = ReadRequest(request); err != nil {
			return nil, prefixed(err, "request: ")
		}
		r.Sources = Sources(r.Documents)
	}
	for _, s := range sources {
		if len(s.Text) > MaxSourceBytes {
			return nil, overBound("source " + show(s.ID))
		}
		text, e := SourceText(s.Text)
		if e != nil {
			return nil, &citecheck.Error{Code: e.Code, Message: "source " + show(s.ID) + ": " + e.Message}
		}
		r.Sources = append(r.Sources, Source{ID: s.ID, Text: text})
	}
	return r, nil
}

// overBound is the refusal of what holds more than MaxSourceBytes, in
// the words the command uses for a file over its --max-source-size.
func overBound(what string) *citecheck.Error {
	return &citecheck.Error{Code: citecheck.CodeLimitExceeded, Message: what + ": larger than " + strconv.Itoa(MaxSourceBytes>>20) + "MiB, the most citecheck quotes reads by default (--max-source-size)"}
}

// SourceText is a source's text as the commands read a source file:
// UTF-8 exactly (else invalid_input, naming the first byte that is not),
// and one byte order mark at its start is not text. Linear in b.
func SourceText(b []byte) (string, *citecheck.Error) {
	if !utf8.Valid(b) {
		return "", invalid(notUTF8(b, utext.InvalidAt(b), 0))
	}
	return string(bytes.TrimPrefix(b, bom)), nil
}

// prefixed is err as a *citecheck.Error whose message starts with prefix.
func prefixed(err error, prefix string) *citecheck.Error {
	e := *citecheck.AsError(err)
	e.Message = prefix + e.Message
	return &e
}

// Each checks every quotation of the run's input, BatchQuotations at a
// time, and hands each batch's Answer to emit before it checks the next
// (emit must not keep it: its results go with the batch). It returns the
// counts per outcome (indexed by Outcome). The error is why the run
// stopped, its message the command's words after "citecheck: " (the
// input's name first when it is not one of the shapes); the batches
// before it were emitted. Without a limit on the scan or the count of
// quotations (the command's own files, or a caller's memory): lim is the
// contract's, with those two lifted. Cost: the Checker's, batch by batch;
// the run holds its input, its quotations and one batch's results
// (docs/quotes.md#cost).
func (r *Run) Each(ctx context.Context, emit func(*Answer)) ([]int, *citecheck.Error) {
	qs, err := Read(r.Input, r.Shape)
	if err != nil {
		return nil, prefixed(err, r.Name+": ")
	}
	lim := citecheck.DefaultLimits()
	lim.ScanUnits, lim.Citations = citecheck.NoLimit, citecheck.NoLimit
	checker, err := NewChecker(r.Sources, Options{Limits: lim, Explain: r.Explain, Documents: r.Documents})
	if err != nil {
		return nil, prefixed(err, "")
	}
	counts := make([]int, len(Outcomes()))
	done, total := 0, len(qs)
	for len(qs) > 0 {
		n := min(len(qs), BatchQuotations)
		res, err := checker.Check(ctx, qs[:n])
		if err != nil {
			if ctx.Err() != nil { // a signal (SIGINT, SIGTERM), or the caller, ended the run
				return counts, &citecheck.Error{Code: citecheck.CodeUnavailable, Message: "stopped by an interrupt after " +
					strconv.Itoa(done) + " of " + strconv.Itoa(total) + " quotations (their results are written)"}
			}
			return counts, prefixed(err, "")
		}
		for i := range res {
			counts[res[i].Outcome]++
		}
		emit(&Answer{Shape: r.Shape, Sources: r.Sources, Results: res, Explain: r.Explain})
		done += n
		clear(qs[:n]) // their texts go with the batch
		qs = qs[n:]
	}
	return counts, nil
}

// AppendLines appends the JSON lines of a batch's results, each with its
// newline: what `citecheck quotes` prints for them.
func (a *Answer) AppendLines(dst []byte) []byte {
	for i := range a.Results {
		dst = append(a.AppendJSON(dst, i), '\n')
	}
	return dst
}
