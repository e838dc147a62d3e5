package annotation

import (
	"context"
	"errors"
	"strconv"

	"github.com/citecheck/citecheck"
)

// StreamBatch is how many annotations Stream checks together: their
// citations go to the engine in requests within the checker's limits, and
// memory holds at most this many annotations.
const StreamBatch = 256

// Stream reads sc to its end and checks its annotations in batches of
// StreamBatch, calling each for every item in input order: with its
// report, or with a nil report for an item that is not an annotation
// (it.Err says why). It is the one loop behind `citecheck annotations`
// and the JavaScript package's annotations, so both write the same lines.
//
// It returns each's first error, ctx's error (looked at after every item),
// or the scanner's. When the input stops being readable (it is not JSON
// from some byte on, as a truncated export; or its reader fails), every
// item read before that point is still checked and handed on, and the
// error returned says how many were, as "reading the annotations after N
// items: …" (with the byte and line where the input broke).
//
// Cost: Checker.Check's per batch, and the scanner's linear pass; memory,
// one batch of annotations.
func (c *Checker) Stream(ctx context.Context, sc *Scanner, each func(Item, *Report) error) error {
	batch := make([]Item, 0, StreamBatch)
	handed := 0
	flush := func() error {
		var anns []*Annotation
		for _, it := range batch {
			if it.Annotation != nil {
				anns = append(anns, it.Annotation)
			}
		}
		reports, err := c.CheckContext(ctx, anns)
		if err != nil {
			return err
		}
		k := 0
		for _, it := range batch {
			var r *Report
			if it.Err == nil {
				r = &reports[k]
				k++
			}
			handed++
			if err := each(it, r); err != nil {
				return err
			}
		}
		batch = batch[:0]
		return nil
	}
	stopped := false // by each or ctx: the batch gathered is not to be handed on
	err := sc.Scan(func(it Item) error {
		batch = append(batch, it)
		if len(batch) == StreamBatch {
			if err := flush(); err != nil {
				stopped = true
				return err
			}
		}
		if err := ctx.Err(); err != nil {
			stopped = true
			return err
		}
		return nil
	})
	if !stopped {
		// The input's own end, or where it could no longer be read: what
		// was read before it stands on its own.
		if ferr := flush(); ferr != nil {
			return ferr
		}
	}
	var ce *citecheck.Error
	if errors.As(err, &ce) {
		err = errors.New("reading the annotations after " + strconv.Itoa(handed) + " items: " + ce.Message)
	} else if rerr := (readError{}); errors.As(err, &rerr) {
		err = readAfterError{handed, rerr}
	}
	return err
}

// readAfterError is a reader's failure after handed items, kept
// unwrappable (so the command tells it from a refused input); written
// without fmt, which the WebAssembly module does not link.
type readAfterError struct {
	handed int
	err    error
}

func (e readAfterError) Error() string {
	return "reading the annotations after " + strconv.Itoa(e.handed) + " items: " + e.err.Error()
}

func (e readAfterError) Unwrap() error { return e.err }

// AppendJSONLine appends the JSON line `citecheck annotations` writes for
// an item Stream handed on with its report r (nil for an error item): the
// report's object, or the error item's, then a newline.
func AppendJSONLine(dst []byte, it Item, r *Report) []byte {
	if r == nil {
		return append(AppendError(dst, it), '\n')
	}
	return append(r.AppendJSON(dst, it.Index), '\n')
}
