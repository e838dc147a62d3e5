package testkit

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// The selector types of the contract, as a body writes them.
const (
	PositionSelector = "TextPositionSelector"
	QuoteSelector    = "TextQuoteSelector"
)

// Request is a request as a test writes it, independent of the engine's
// types. Body writes it by hand, not by encoding/json, so that every
// member's order, presence and literal is what the test says (an absent
// prefix and an empty one are different inputs). The json tags let
// encoding/json read a body into it too.
type Request struct {
	Sources   []Source   `json:"sources"`
	Citations []Citation `json:"citations"`
}

// Source is one source of a request.
type Source struct {
	SourceID string `json:"source_id"`
	Version  string `json:"version"`
	Text     string `json:"text"`
}

// Citation is one citation of a request. A member left nil is not written.
// PositionCitation and QuoteCitation build the two kinds; a test of a
// malformed citation sets what it needs directly (a quote on a quote
// selector, a missing end) or writes members raw with RawSelector and
// RawAfter.
type Citation struct {
	CitationID   string   `json:"citation_id"`
	SourceID     string   `json:"source_id"`
	Version      string   `json:"version"`
	Selector     Selector `json:"selector"`
	Quote        *string  `json:"quote,omitempty"`
	ClaimedStart *int     `json:"claimed_start,omitempty"`

	// RawSelector, when not empty, is written between the selector's braces
	// instead of its members: `"type":"TextPositionSelector","start":"4"`.
	RawSelector string `json:"-"`
	// RawAfter is JSON text written after the citation's last member, before
	// its closing brace: `,"note":1`.
	RawAfter string `json:"-"`
}

// Selector is a citation's selector; Type is PositionSelector or
// QuoteSelector (or, in a malformed request, anything).
type Selector struct {
	Type   string  `json:"type"`
	Start  *int    `json:"start,omitempty"`
	End    *int    `json:"end,omitempty"`
	Exact  *string `json:"exact,omitempty"`
	Prefix *string `json:"prefix,omitempty"`
	Suffix *string `json:"suffix,omitempty"`
}

// NewSource is the source (sourceID, version) with text.
func NewSource(sourceID, version, text string) Source {
	return Source{SourceID: sourceID, Version: version, Text: text}
}

// PositionCitation is a TextPositionSelector citation of [start, end) (code
// points) on source (sourceID, version), claiming that span reads quote.
func PositionCitation(id, sourceID, version string, start, end int, quote string) Citation {
	return Citation{CitationID: id, SourceID: sourceID, Version: version, Quote: &quote,
		Selector: Selector{Type: PositionSelector, Start: &start, End: &end}}
}

// QuoteCitation is a TextQuoteSelector citation of exact on source
// (sourceID, version), with no prefix, suffix or claimed_start: add them
// with WithPrefix, WithSuffix and WithClaimedStart.
func QuoteCitation(id, sourceID, version, exact string) Citation {
	return Citation{CitationID: id, SourceID: sourceID, Version: version,
		Selector: Selector{Type: QuoteSelector, Exact: &exact}}
}

// WithPrefix is c with the selector's prefix set to p ("" is written, as
// an empty prefix).
func (c Citation) WithPrefix(p string) Citation { c.Selector.Prefix = &p; return c }

// WithSuffix is c with the selector's suffix set to s.
func (c Citation) WithSuffix(s string) Citation { c.Selector.Suffix = &s; return c }

// WithClaimedStart is c with claimed_start n (a code point index).
func (c Citation) WithClaimedStart(n int) Citation { c.ClaimedStart = &n; return c }

// Body is r as compact JSON: {"sources":[…],"citations":[…]}, members in
// the order the contract lists them. Linear in the size of the body.
func (r Request) Body() []byte {
	b := []byte(`{"sources":[`)
	for i, s := range r.Sources {
		if i > 0 {
			b = append(b, ',')
		}
		b = s.AppendJSON(b)
	}
	b = append(b, `],"citations":[`...)
	for i, c := range r.Citations {
		if i > 0 {
			b = append(b, ',')
		}
		b = c.AppendJSON(b)
	}
	return append(b, "]}"...)
}

// AppendJSON appends s as a JSON object.
func (s Source) AppendJSON(b []byte) []byte {
	b = append(b, `{"source_id":`...)
	b = AppendJSONString(b, s.SourceID)
	b = append(b, `,"version":`...)
	b = AppendJSONString(b, s.Version)
	b = append(b, `,"text":`...)
	b = AppendJSONString(b, s.Text)
	return append(b, '}')
}

// JSON is s as a JSON object.
func (s Source) JSON() string { return string(s.AppendJSON(nil)) }

// AppendJSON appends c as a JSON object.
func (c Citation) AppendJSON(b []byte) []byte {
	b = append(b, `{"citation_id":`...)
	b = AppendJSONString(b, c.CitationID)
	b = append(b, `,"source_id":`...)
	b = AppendJSONString(b, c.SourceID)
	b = append(b, `,"version":`...)
	b = AppendJSONString(b, c.Version)
	b = append(b, `,"selector":{`...)
	if c.RawSelector != "" {
		b = append(b, c.RawSelector...)
	} else {
		s := c.Selector
		b = append(b, `"type":`...)
		b = AppendJSONString(b, s.Type)
		b = appendInt(b, "start", s.Start)
		b = appendInt(b, "end", s.End)
		b = appendString(b, "exact", s.Exact)
		b = appendString(b, "prefix", s.Prefix)
		b = appendString(b, "suffix", s.Suffix)
	}
	b = append(b, '}')
	b = appendString(b, "quote", c.Quote)
	b = appendInt(b, "claimed_start", c.ClaimedStart)
	b = append(b, c.RawAfter...)
	return append(b, '}')
}

// JSON is c as a JSON object.
func (c Citation) JSON() string { return string(c.AppendJSON(nil)) }

// appendString appends ,"name":"v" when v is set.
func appendString(b []byte, name string, v *string) []byte {
	if v == nil {
		return b
	}
	b = append(b, `,"`+name+`":`...)
	return AppendJSONString(b, *v)
}

// appendInt appends ,"name":n when n is set.
func appendInt(b []byte, name string, n *int) []byte {
	if n == nil {
		return b
	}
	b = append(b, `,"`+name+`":`...)
	return strconv.AppendInt(b, int64(*n), 10)
}

// RawBody is {"sources":[sources],"citations":[citations]}, the arrays'
// items given as JSON text: for tests whose input is malformed byte for
// byte. Build the items with Source.JSON, Citation.JSON and JoinN.
func RawBody(sources, citations string) string {
	return `{"sources":[` + sources + `],"citations":[` + citations + `]}`
}

// JoinN is item(0), …, item(n-1) separated by commas: n items of a raw
// JSON array.
func JoinN(n int, item func(i int) string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(item(i))
	}
	return b.String()
}

// LiteralRequest is a body as encoding/json reads it with every integer
// kept as written (json.Number: 4, 4.0, 40e-1, 1e400), for tests that
// judge the literals themselves rather than trust a decoder.
type LiteralRequest struct {
	Sources   []Source          `json:"sources"`
	Citations []LiteralCitation `json:"citations"`
}

// LiteralCitation is a citation of a LiteralRequest; a member absent from
// the body is nil.
type LiteralCitation struct {
	CitationID string `json:"citation_id"`
	SourceID   string `json:"source_id"`
	Version    string `json:"version"`
	Selector   struct {
		Type   string       `json:"type"`
		Start  *json.Number `json:"start"`
		End    *json.Number `json:"end"`
		Exact  *string      `json:"exact"`
		Prefix *string      `json:"prefix"`
		Suffix *string      `json:"suffix"`
	} `json:"selector"`
	Quote        *string      `json:"quote"`
	ClaimedStart *json.Number `json:"claimed_start"`
}

// ReadLiteral reads body, which must be JSON of the request's shape
// (unknown members are ignored, and with duplicate names the last wins), as
// a LiteralRequest.
func ReadLiteral(body []byte) (*LiteralRequest, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var r LiteralRequest
	if err := dec.Decode(&r); err != nil {
		return nil, err
	}
	return &r, nil
}
