package citecheck

import "context"

// The context variants of the check. They return what the plain ones
// return, or nil and ctx's error (context.Canceled, or
// context.DeadlineExceeded) as soon as they see ctx done. They look at ctx
// between citations, once at least checkPollBytes of text and claims have
// been read since the last look (and before the first citation, and after
// the last), so the work between two looks is under checkPollBytes plus
// one citation: its source's index, built on first use (linear in the
// source, at most max_text_bytes), and at most three scans of it
// (checkQuote). On a contract-sized body that is a few milliseconds, well
// within the 100 ms the service promises (spec §5.7). They start no
// goroutine and keep no state; a context that is never done (its Done is
// nil, as context.Background's) costs nothing: the plain loop runs.

// CheckContext is [Check] that stops when ctx is done.
func CheckContext(ctx context.Context, req *Request) (*Result, error) {
	c := NewChecker(req)
	if ctx.Done() == nil {
		return checkFrom(c), nil
	}
	var res *Result
	_, err := c.polled(ctx, func(k int) bool {
		if d := c.Citation(k); d != nil {
			res = &Result{Reason: d.Reason, FirstDiscrepancy: d, CitationsChecked: k + 1}
			return false
		}
		return true
	})
	switch {
	case err != nil:
		return nil, err
	case res == nil:
		res = &Result{Valid: true, CitationsChecked: len(req.Citations)}
	}
	return res, nil
}

// CheckAllContext is [CheckAll] that stops when ctx is done.
func CheckAllContext(ctx context.Context, req *Request) (*AllResult, error) {
	return checkAllContext(ctx, NewChecker(req))
}

// checkAllContext is CheckAllContext with the Checker given, as checkAll
// is CheckAll's.
func checkAllContext(ctx context.Context, c *Checker) (*AllResult, error) {
	if ctx.Done() == nil {
		return checkAll(c), nil
	}
	req := c.req
	all := &AllResult{Citations: make([]CitationOutcome, len(req.Citations))}
	if _, err := c.polled(ctx, func(k int) bool {
		c.outcome(all, k)
		return true
	}); err != nil {
		return nil, err
	}
	all.Valid = all.Failed == 0
	return all, nil
}

// RunContext is [Run] that stops when ctx is done (see [CheckContext]):
// it looks at ctx before decoding, after it, and as CheckContext does.
// Stopped, it returns the error [StoppedError] makes of ctx's error.
// Exactly one of the results is non-nil.
func RunContext(ctx context.Context, body []byte) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, StoppedError("check", err)
	}
	req, e := Decode(body)
	if e != nil {
		return nil, e
	}
	res, err := CheckContext(ctx, req)
	if err != nil {
		return nil, StoppedError("check", err)
	}
	return res, nil
}

// StoppedError is the error of work (what: "check", "explain") that
// stopped because its context was done: code overloaded (the service
// could not finish in the time it had; retry later, with less or with
// more time), and a message naming ctx's error, "context canceled" or
// "context deadline exceeded". Never nil.
func StoppedError(what string, err error) *Error {
	return &Error{Code: CodeOverloaded, Message: what + " stopped: " + err.Error()}
}

// checkPollBytes is how many bytes of text and claims the check reads
// between two looks at its context. A look is an atomic load or a few (a
// chain of context values), nanoseconds; 64 KiB at the matcher's speed is
// tens of microseconds, so the looks cost nothing measurable, and at any
// speed the matcher has they come far more often than 100 ms.
const checkPollBytes = 64 << 10

// polled calls each(k) for the citations in array order until it returns
// false, looking at ctx before the first, then before a citation once
// checkPollBytes have been read since the last look, and after the last
// call. It returns how many citations it ran, and ctx's error if it saw
// ctx done (then each was not called again). What a citation reads: its
// quote or exact and prefix and suffix; a quote citation, the text of its
// source (a scan); a citation whose source has no index yet, the text too
// (the index is built).
func (c *Checker) polled(ctx context.Context, each func(k int) bool) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	req := c.req
	read := 0
	for k := range req.Citations {
		cit := &req.Citations[k]
		if read >= checkPollBytes {
			if err := ctx.Err(); err != nil {
				return k, err
			}
			read = 0
		}
		sel := &cit.Selector
		read += len(cit.Quote) + len(sel.Exact) + len(sel.Prefix) + len(sel.Suffix)
		if j := c.source(cit); j >= 0 && (c.index[j] == nil || sel.Type == QuoteSelector) {
			read += len(req.Sources[j].Text)
		}
		if !each(k) {
			return k + 1, ctx.Err()
		}
	}
	return len(req.Citations), ctx.Err()
}
