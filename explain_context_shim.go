package citecheck

import "context"

// Temporary: replaced by the explain branch at merge.

// ExplainContext is [Explain] after a look at ctx.
func ExplainContext(ctx context.Context, req *Request) (*Explanation, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return Explain(req), nil
}

// RunExplainContext is [RunExplain] after a look at ctx.
func RunExplainContext(ctx context.Context, body []byte) (*Explanation, *Error) {
	if err := ctx.Err(); err != nil {
		return nil, StoppedError("explain", err)
	}
	return RunExplain(body)
}
