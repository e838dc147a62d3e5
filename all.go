package citecheck

import (
	"strconv"

	"github.com/citecheck/citecheck/internal/jsonenc"
)

// AllResult is the outcome of every citation of a request, failing or not:
// what [CheckAll] returns. It is an extension beyond the 1.0.0 contract,
// which reports only the first failure ([Result]); its JSON has its own
// shape (see AppendJSON) and is never mixed into the contract's output.
type AllResult struct {
	Valid     bool              // every citation holds
	Failed    int               // how many citations failed
	Citations []CitationOutcome // one per citation, in the request's order
}

// CitationOutcome is what checking one citation alone found. A failing
// citation carries the same reason and detail that [Check] reports when it
// is the first to fail.
type CitationOutcome struct {
	CitationIndex int // index in the request's citations, from 0
	CitationID    string
	SelectorType  SelectorType
	Reason        Reason  // ReasonNone when the citation holds
	Detail        *Detail // nil when the citation holds
}

// Valid reports whether the citation holds.
func (o *CitationOutcome) Valid() bool { return o.Reason == ReasonNone }

// Discrepancy returns the outcome as the contract's discrepancy (what
// [Hint] takes), or nil when the citation holds.
func (o *CitationOutcome) Discrepancy() *Discrepancy {
	if o.Detail == nil {
		return nil
	}
	return &Discrepancy{CitationIndex: o.CitationIndex, CitationID: o.CitationID,
		SelectorType: o.SelectorType, Reason: o.Reason, Detail: *o.Detail}
}

// CheckAll checks every citation instead of stopping at the first failure
// (spec §2 stops there; people fixing a dataset want every failure at
// once). req must come from [Decode] or satisfy the same rules. Each
// source is indexed once for all its citations, so the cost is that of
// [Check] run to the end.
func CheckAll(req *Request) *AllResult { return checkAll(NewChecker(req)) }

// checkAll is CheckAll with the Checker given, so that [Explain] reads
// the same indexes afterwards.
func checkAll(c *Checker) *AllResult {
	req := c.req
	all := &AllResult{Citations: make([]CitationOutcome, len(req.Citations))}
	for k := range req.Citations {
		c.outcome(all, k)
	}
	all.Valid = all.Failed == 0
	return all
}

// outcome checks citation k into all's k-th outcome, counting a failure.
func (c *Checker) outcome(all *AllResult, k int) {
	cit := &c.req.Citations[k]
	o := &all.Citations[k]
	o.CitationIndex, o.CitationID, o.SelectorType = k, cit.CitationID, cit.Selector.Type
	if d := c.Citation(k); d != nil {
		o.Reason, o.Detail = d.Reason, &d.Detail
		all.Failed++
	}
}

// FirstFailure returns the first failing citation, or nil when all hold:
// the one the contract's [Result] would report.
func (r *AllResult) FirstFailure() *CitationOutcome {
	for k := range r.Citations {
		if !r.Citations[k].Valid() {
			return &r.Citations[k]
		}
	}
	return nil
}

// MarshalJSON writes the object AppendJSON writes.
func (r *AllResult) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil), nil }

// AppendJSON appends the result's JSON object to dst, compact and in a fixed
// member order so that equal results are equal bytes:
//
//	{"valid":false,"citations_checked":2,"citations_failed":1,
//	 "citations":[{"citation_index":0,"citation_id":"c1",
//	   "selector_type":"TextPositionSelector","valid":true,"reason":null,"detail":null}, …],
//	 "authenticity_checked":false,"reference_version":"…"}
//
// A failing citation's "reason" and "detail" are exactly those of the
// contract's first_discrepancy. Interfaces wrap the object as {"all": …}
// ([AppendAllEnvelope]), never as {"result": …}.
func (r *AllResult) AppendJSON(dst []byte) []byte { return r.appendJSON(dst, nil) }

// appendJSON writes the object of AppendJSON; more, when not nil, appends
// members of its own to citation k's object ([Explanation] adds its
// findings and fix there).
func (r *AllResult) appendJSON(dst []byte, more func(dst []byte, k int) []byte) []byte {
	dst = append(dst, `{"valid":`...)
	dst = strconv.AppendBool(dst, r.Valid)
	dst = append(dst, `,"citations_checked":`...)
	dst = strconv.AppendInt(dst, int64(len(r.Citations)), 10)
	dst = append(dst, `,"citations_failed":`...)
	dst = strconv.AppendInt(dst, int64(r.Failed), 10)
	dst = append(dst, `,"citations":[`...)
	for k := range r.Citations {
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = r.Citations[k].appendMembers(dst)
		if more != nil {
			dst = more(dst, k)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, `],"authenticity_checked":false,"reference_version":`...)
	dst = jsonenc.AppendString(dst, ReferenceVersion)
	return append(dst, '}')
}

// MarshalJSON writes the object AppendJSON writes, so that encoding/json
// and AppendJSON agree.
func (o *CitationOutcome) MarshalJSON() ([]byte, error) { return o.AppendJSON(nil), nil }

// AppendJSON appends one citation's outcome object to dst.
func (o *CitationOutcome) AppendJSON(dst []byte) []byte {
	return append(o.appendMembers(dst), '}')
}

// appendMembers appends the outcome object without its closing brace.
func (o *CitationOutcome) appendMembers(dst []byte) []byte {
	dst = append(dst, `{"citation_index":`...)
	dst = strconv.AppendInt(dst, int64(o.CitationIndex), 10)
	dst = append(dst, `,"citation_id":`...)
	dst = jsonenc.AppendString(dst, o.CitationID)
	dst = append(dst, `,"selector_type":`...)
	dst = jsonenc.AppendString(dst, o.SelectorType.String())
	dst = append(dst, `,"valid":`...)
	dst = strconv.AppendBool(dst, o.Valid())
	dst = append(dst, `,"reason":`...)
	if o.Valid() {
		return append(dst, `null,"detail":null`...)
	}
	dst = jsonenc.AppendString(dst, o.Reason.String())
	dst = append(dst, `,"detail":`...)
	return o.Detail.AppendJSON(dst, o.SelectorType)
}

// AppendAllEnvelope appends {"all": …} or, when err is non-nil, the same
// {"error": …} as [AppendEnvelope], with no trailing newline. The key "all"
// keeps the extension apart from the contract's {"result": …}.
func AppendAllEnvelope(dst []byte, all *AllResult, err error) []byte {
	if AsError(err) != nil {
		return AppendEnvelope(dst, nil, err)
	}
	dst = append(dst, `{"all":`...)
	dst = all.AppendJSON(dst)
	return append(dst, '}')
}
