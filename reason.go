package citecheck

// Reason says why a citation failed. The values are closed and ordered as
// the contract's output schema lists them; ReasonNone is a passing batch.
type Reason uint8

// The reasons, in the contract's order. Lookup reasons come first, then the
// position checks in the order they run, then the quote stages in the order
// they run.
const (
	ReasonNone Reason = iota
	ReasonUnknownSource
	ReasonVersionMismatch
	ReasonSpanReversed
	ReasonSpanOutOfRange
	ReasonQuoteMismatch
	ReasonExactNotFound
	ReasonPrefixMismatch
	ReasonSuffixMismatch
	ReasonAmbiguousAnchor
	ReasonPositionMismatch
	reasonCount
)

var reasonNames = [reasonCount]string{
	ReasonNone:             "",
	ReasonUnknownSource:    "unknown_source",
	ReasonVersionMismatch:  "version_mismatch",
	ReasonSpanReversed:     "span_reversed",
	ReasonSpanOutOfRange:   "span_out_of_range",
	ReasonQuoteMismatch:    "quote_mismatch",
	ReasonExactNotFound:    "exact_not_found",
	ReasonPrefixMismatch:   "prefix_mismatch",
	ReasonSuffixMismatch:   "suffix_mismatch",
	ReasonAmbiguousAnchor:  "ambiguous_anchor",
	ReasonPositionMismatch: "position_mismatch",
}

// Reasons lists every failure reason in contract order (ReasonNone excluded).
func Reasons() []Reason {
	rs := make([]Reason, 0, reasonCount-1)
	for r := ReasonUnknownSource; r < reasonCount; r++ {
		rs = append(rs, r)
	}
	return rs
}

// String returns the contract's name of the reason ("" for ReasonNone).
func (r Reason) String() string {
	if r < reasonCount {
		return reasonNames[r]
	}
	return "reason(invalid)"
}

// ParseReason returns the Reason the contract spells name, and false when
// there is none.
func ParseReason(name string) (Reason, bool) {
	for r := ReasonUnknownSource; r < reasonCount; r++ {
		if reasonNames[r] == name {
			return r, true
		}
	}
	return ReasonNone, false
}

// MarshalText writes the contract's name, so that a Reason in any JSON value
// reads as it does in the contract's output ("" for ReasonNone).
func (r Reason) MarshalText() ([]byte, error) { return []byte(r.String()), nil }
