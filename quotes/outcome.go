package quotes

// Outcome is what checking one quotation, or one citation, found (spec
// §5.13). The outcomes are a closed list, in this order.
type Outcome uint8

const (
	// NoSource: the marker names no supplied source.
	NoSource Outcome = iota
	// Verbatim: the quotation occurs exactly in the marked source (without
	// a marker, in a source); an Anthropic citation's span reads exactly
	// as its cited_text.
	Verbatim
	// Moved (Anthropic only): the span does not read as cited_text, but
	// cited_text occurs exactly elsewhere in that document.
	Moved
	// Elsewhere: not in the marked source, but exactly in another.
	Elsewhere
	// Near: found only under a fold or as an elision, by the engine's
	// diagnosis.
	Near
	// NotFound: none of the above.
	NotFound
	// NotChecked: over a limit (a quotation longer than max_quote_bytes,
	// or the call's max_scan_units spent), or a citation type that points
	// into nothing the request carries.
	NotChecked
	outcomeCount
)

var outcomeNames = [outcomeCount]string{"no_source", "verbatim", "moved", "elsewhere", "near", "not_found", "not_checked"}

// String returns the outcome's name as the output writes it.
func (o Outcome) String() string {
	if o >= outcomeCount {
		return "Outcome(" + string(rune('0'+o)) + ")"
	}
	return outcomeNames[o]
}

// Outcomes lists every outcome in order.
func Outcomes() []Outcome {
	out := make([]Outcome, outcomeCount)
	for i := range out {
		out[i] = Outcome(i)
	}
	return out
}

// ParseOutcome returns the outcome of a name String writes.
func ParseOutcome(name string) (Outcome, bool) {
	for i, n := range outcomeNames {
		if n == name {
			return Outcome(i), true
		}
	}
	return 0, false
}

// MarshalText writes the outcome's name, so that encoding/json spells it
// as the output does.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }
