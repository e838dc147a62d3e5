package citecheck

import (
	"strconv"

	"github.com/citecheck/citecheck/internal/jsonenc"
)

// Result is the contract's output: whether every citation held, and if not,
// the first that did not.
type Result struct {
	Valid            bool
	Reason           Reason       // ReasonNone when Valid
	FirstDiscrepancy *Discrepancy // nil when Valid
	CitationsChecked int          // citations compared, the failing one included
}

// Discrepancy locates a failing citation and says what broke. Reason is not
// a member of the contract's first_discrepancy object (the result carries
// it beside), but it travels with the discrepancy so that nothing after the
// check has to work it out again from the detail.
type Discrepancy struct {
	CitationIndex int // index in the request's citations, from 0
	CitationID    string
	SelectorType  SelectorType
	Reason        Reason // never ReasonNone
	Detail        Detail
}

// Detail is the per-selector detail object. Its JSON is written as part of
// its Discrepancy or CitationOutcome, whose selector type decides its shape:
// a position citation reports Start … ClaimedChar, a quote citation reports
// ExactMatches … Observed; the other shape's members are not written. A nil
// pointer or slice is JSON null. All positions count code points.
type Detail struct {
	Field             string   // the input member at fault
	AvailableVersions []string // versions supplied for the source_id (version_mismatch only)

	// Position shape (spec §2.2).
	Start, End   *int
	TextLength   *int    // n, the text's length in code points
	QuoteOffset  *int    // first index where T[start:end] and quote differ
	SourceOffset *int    // start + QuoteOffset
	ExpectedChar *string // the source's code point there, nil past its end
	ClaimedChar  *string // the quote's code point there, nil past its end

	// Quote shape (spec §2.3).
	ExactMatches  *int
	PrefixMatches *int
	FullMatches   *int
	MatchStarts   []int // at most two
	ClaimedStart  *int
	ResolvedStart *int
	Observed      *string // what the source has where the failing part should be
}

// MarshalJSON writes the result as the contract's output object.
func (r *Result) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil), nil }

// AppendJSON appends the result's JSON to dst: compact, members in the output
// schema's order, so equal results are equal bytes. Linear in the output.
func (r *Result) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"valid":`...)
	dst = strconv.AppendBool(dst, r.Valid)
	dst = append(dst, `,"reason":`...)
	if r.Reason == ReasonNone {
		dst = append(dst, "null"...)
	} else {
		dst = jsonenc.AppendString(dst, r.Reason.String())
	}
	dst = append(dst, `,"first_discrepancy":`...)
	if d := r.FirstDiscrepancy; d == nil {
		dst = append(dst, "null"...)
	} else {
		dst = d.AppendJSON(dst)
	}
	dst = append(dst, `,"citations_checked":`...)
	dst = strconv.AppendInt(dst, int64(r.CitationsChecked), 10)
	dst = append(dst, `,"authenticity_checked":false,"reference_version":`...)
	dst = jsonenc.AppendString(dst, ReferenceVersion)
	return append(dst, '}')
}

// MarshalJSON writes the object AppendJSON writes, so that encoding/json
// and AppendJSON agree.
func (d *Discrepancy) MarshalJSON() ([]byte, error) { return d.AppendJSON(nil), nil }

// AppendJSON appends the discrepancy's JSON object to dst, members in the
// output schema's order: the contract's first_discrepancy, so without Reason.
func (d *Discrepancy) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"citation_index":`...)
	dst = strconv.AppendInt(dst, int64(d.CitationIndex), 10)
	dst = append(dst, `,"citation_id":`...)
	dst = jsonenc.AppendString(dst, d.CitationID)
	dst = append(dst, `,"selector_type":`...)
	dst = jsonenc.AppendString(dst, d.SelectorType.String())
	dst = append(dst, `,"detail":`...)
	dst = d.Detail.AppendJSON(dst, d.SelectorType)
	return append(dst, '}')
}

// AppendJSON appends the detail object exactly as the contract's
// first_discrepancy carries it for a citation of selector type shape, for
// tools that report a citation's detail in an output of their own (the
// annotations command does, per selector).
func (d *Detail) AppendJSON(dst []byte, shape SelectorType) []byte {
	dst = append(dst, `{"field":`...)
	dst = jsonenc.AppendString(dst, d.Field)
	dst = append(dst, `,"available_versions":`...)
	if d.AvailableVersions == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, v := range d.AvailableVersions {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsonenc.AppendString(dst, v)
		}
		dst = append(dst, ']')
	}
	if shape == PositionSelector {
		dst = appendIntMember(dst, "start", d.Start)
		dst = appendIntMember(dst, "end", d.End)
		dst = appendIntMember(dst, "text_length", d.TextLength)
		dst = appendIntMember(dst, "quote_offset", d.QuoteOffset)
		dst = appendIntMember(dst, "source_offset", d.SourceOffset)
		dst = appendStringMember(dst, "expected_char", d.ExpectedChar)
		dst = appendStringMember(dst, "claimed_char", d.ClaimedChar)
		return append(dst, '}')
	}
	dst = appendIntMember(dst, "exact_matches", d.ExactMatches)
	dst = appendIntMember(dst, "prefix_matches", d.PrefixMatches)
	dst = appendIntMember(dst, "full_matches", d.FullMatches)
	dst = append(dst, `,"match_starts":`...)
	if d.MatchStarts == nil {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, '[')
		for i, p := range d.MatchStarts {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = strconv.AppendInt(dst, int64(p), 10)
		}
		dst = append(dst, ']')
	}
	dst = appendIntMember(dst, "claimed_start", d.ClaimedStart)
	dst = appendIntMember(dst, "resolved_start", d.ResolvedStart)
	dst = appendStringMember(dst, "observed", d.Observed)
	return append(dst, '}')
}

func appendIntMember(dst []byte, name string, v *int) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	if v == nil {
		return append(dst, "null"...)
	}
	return strconv.AppendInt(dst, int64(*v), 10)
}

func appendStringMember(dst []byte, name string, v *string) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	if v == nil {
		return append(dst, "null"...)
	}
	return jsonenc.AppendString(dst, *v)
}
