package citecheck

// Request is a decoded citation-batch-check input. A Request from [Decode]
// satisfies every rule of spec §1; [Check] relies on that.
type Request struct {
	Sources   []Source
	Citations []Citation
}

// Source is one supplied text. (SourceID, Version) is unique in a Request.
type Source struct {
	SourceID string
	Version  string
	Text     string // valid UTF-8, compared as it is
}

// SelectorType says which W3C selector a citation uses.
type SelectorType uint8

// The two selector types of the contract.
const (
	PositionSelector SelectorType = iota // TextPositionSelector: start, end and a quote
	QuoteSelector                        // TextQuoteSelector: exact, prefix, suffix
)

// String returns the selector's W3C type name.
func (t SelectorType) String() string {
	if t == QuoteSelector {
		return "TextQuoteSelector"
	}
	return "TextPositionSelector"
}

// MarshalText writes the W3C type name, as the contract's selector_type does.
func (t SelectorType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// Citation is one claim: the source it cites and where in it.
type Citation struct {
	CitationID string
	SourceID   string
	Version    string
	Selector   Selector
	// Quote is what a position citation says T[Start:End] reads. Required
	// (non-empty) for PositionSelector, empty for QuoteSelector.
	Quote string
	// ClaimedStart, when HasClaimedStart, is where a quote citation says
	// Exact starts, in code points.
	ClaimedStart    int
	HasClaimedStart bool
}

// Selector is a TextPositionSelector (Start, End) or a TextQuoteSelector
// (Exact, Prefix, Suffix), as Type says; the other type's fields are zero.
type Selector struct {
	Type SelectorType
	// Start and End are code point indexes into the source text, End exclusive.
	Start, End int
	// Exact is the quoted text; Prefix and Suffix, when non-empty, must stand
	// right before and right after it. An empty Prefix or Suffix is no
	// constraint.
	Exact, Prefix, Suffix string
}
