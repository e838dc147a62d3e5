package citecheck

import (
	"context"
	_ "embed"
	"strconv"

	"github.com/citecheck/citecheck/internal/jsonenc"
)

// MarshalJSON writes the object AppendJSON writes.
func (e *Explanation) MarshalJSON() ([]byte, error) { return e.AppendJSON(nil), nil }

// AppendJSON appends the explanation to dst: [AllResult.AppendJSON]'s
// object, each citation gaining "findings" (an array, empty when it holds)
// and "fix" (a citation as the input spells one, or null). Compact and in
// a fixed member order, so equal explanations are equal bytes.
func (e *Explanation) AppendJSON(dst []byte) []byte {
	return e.All.appendJSON(dst, func(dst []byte, k int) []byte {
		ce := &e.Citations[k]
		dst = append(dst, `,"findings":[`...)
		for i := range ce.Findings {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = ce.Findings[i].AppendJSON(dst)
		}
		dst = append(dst, `],"fix":`...)
		if ce.Fix == nil {
			return append(dst, "null"...)
		}
		return ce.Fix.AppendJSON(dst)
	})
}

// AppendExplainEnvelope appends {"all": …} with the explanation or, when
// err is non-nil, the same {"error": …} as [AppendEnvelope].
func AppendExplainEnvelope(dst []byte, e *Explanation, err error) []byte {
	if AsError(err) != nil {
		return AppendEnvelope(dst, nil, err)
	}
	dst = append(dst, `{"all":`...)
	dst = e.AppendJSON(dst)
	return append(dst, '}')
}

// AppendJSON appends the finding object: kind, start, end, then the
// members of its kind.
func (f *Finding) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"kind":`...)
	dst = jsonenc.AppendString(dst, f.Kind.String())
	dst = appendIntMember(dst, "start", &f.Start)
	dst = appendIntMember(dst, "end", &f.End)
	switch f.Kind {
	case FindingElsewhere:
		dst = appendIntMember(dst, "occurrences", &f.Occurrences)
	case FindingOffsetUnits:
		dst = append(dst, `,"units":`...)
		dst = jsonenc.AppendString(dst, f.Units.String())
	case FindingNormalized:
		dst = appendFolds(dst, f.Folds)
		dst = appendStringMember(dst, "source_text", &f.SourceText)
	case FindingElided:
		dst = append(dst, `,"parts":[`...)
		for i, p := range f.Parts {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"start":`...)
			dst = strconv.AppendInt(dst, int64(p.Start), 10)
			dst = appendIntMember(dst, "end", &p.End)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
		if f.Folds != 0 { // passages found exactly have none
			dst = appendFolds(dst, f.Folds)
		}
		dst = appendStringMember(dst, "source_text", &f.SourceText)
	case FindingDisambiguate:
		if f.Prefix != nil {
			dst = appendStringMember(dst, "prefix", f.Prefix)
		} else {
			dst = appendStringMember(dst, "suffix", f.Suffix)
		}
	case FindingPartial:
		dst = appendIntMember(dst, "length", &f.Length)
		if f.NotSearched != nil {
			dst = append(dst, `,"not_searched":[`...)
			for i, k := range f.NotSearched {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = jsonenc.AppendString(dst, k.String())
			}
			dst = append(dst, ']')
		}
	}
	return append(dst, '}')
}

// appendFolds appends the member "folds": the names of the folds in f.
func appendFolds(dst []byte, f Folds) []byte {
	dst = append(dst, `,"folds":[`...)
	for i, name := range f.Names() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonenc.AppendString(dst, name)
	}
	return append(dst, ']')
}

// AppendJSON appends the citation as the contract's input spells one:
// members in the input schema's order, a prefix, suffix, quote or
// claimed_start only when the citation has one.
func (c *Citation) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"citation_id":`...)
	dst = jsonenc.AppendString(dst, c.CitationID)
	dst = appendStringMember(dst, "source_id", &c.SourceID)
	dst = appendStringMember(dst, "version", &c.Version)
	s := &c.Selector
	dst = append(dst, `,"selector":{"type":`...)
	dst = jsonenc.AppendString(dst, s.Type.String())
	if s.Type == PositionSelector {
		dst = appendIntMember(dst, "start", &s.Start)
		dst = appendIntMember(dst, "end", &s.End)
		dst = append(dst, '}')
		dst = appendStringMember(dst, "quote", &c.Quote)
		return append(dst, '}')
	}
	dst = appendStringMember(dst, "exact", &s.Exact)
	if s.Prefix != "" {
		dst = appendStringMember(dst, "prefix", &s.Prefix)
	}
	if s.Suffix != "" {
		dst = appendStringMember(dst, "suffix", &s.Suffix)
	}
	dst = append(dst, '}')
	if c.HasClaimedStart {
		dst = appendIntMember(dst, "claimed_start", &c.ClaimedStart)
	}
	return append(dst, '}')
}

// The JSON Schema (2020-12) of what explain answers:
// {"all": …} as [AppendExplainEnvelope] writes it, or {"error": …}. It is
// beyond the contract; MCP's explain tool declares it as its output schema.
//
//go:embed explain.schema.json
var explainSchemaJSON string

// ExplainSchemaJSON returns a fresh copy of the schema, so that no caller
// can change what another sees.
func ExplainSchemaJSON() []byte { return []byte(explainSchemaJSON) }

// RunExplain decodes body and explains it: [Run] for [Explain]. Exactly one
// of the results is non-nil.
func RunExplain(body []byte) (*Explanation, error) {
	req, err := Decode(body)
	if err != nil {
		return nil, err
	}
	return Explain(req), nil
}

// RunExplainContext is [RunExplain] that stops when ctx is done (see
// [ExplainContext]): then the error has code overloaded (the service
// could not finish in the time it had; retry later, with less or with
// more time) and a message naming ctx's error, "context canceled" or
// "context deadline exceeded". Exactly one of the results is non-nil.
func RunExplainContext(ctx context.Context, body []byte) (*Explanation, error) {
	req, err := Decode(body)
	if err != nil {
		return nil, err
	}
	ex, err := ExplainContext(ctx, req)
	if err != nil {
		return nil, StoppedError("explain", err)
	}
	return ex, nil
}
