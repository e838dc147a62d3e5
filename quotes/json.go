package quotes

import (
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// AppendJSON appends result i as one compact JSON object, members in a
// fixed order so that equal answers are equal bytes:
//
//	{"index":0,"line":3,"column":12,"quote":"…","marker":"1","source":"1",
//	 "outcome":"near","findings":[{"kind":"normalized",…}]}
//
// line and column are a report's, block and type an Anthropic citation's;
// span, findings, limit, why and fix are there only when set; message
// (Message), last, for a failing result of an Answer checked with
// Explain.
func (a *Answer) AppendJSON(dst []byte, i int) []byte {
	r := &a.Results[i]
	dst = append(dst, `{"index":`...)
	dst = strconv.AppendInt(dst, int64(r.Index), 10)
	switch {
	case a.Shape == Report:
		dst = appendInt(dst, "line", r.Line)
		dst = appendInt(dst, "column", r.Column)
	case r.Location != nil:
		dst = appendInt(dst, "block", r.Location.Block)
		dst = append(dst, `,"type":`...)
		dst = appendString(dst, r.Location.Type)
	}
	dst = append(dst, `,"quote":`...)
	dst = appendString(dst, r.Text)
	dst = append(dst, `,"marker":`...)
	if r.Marked {
		dst = appendString(dst, r.Marker)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"source":`...)
	if r.Source >= 0 {
		dst = appendString(dst, a.Sources[r.Source].ID)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, `,"outcome":`...)
	dst = appendString(dst, r.Outcome.String())
	if r.Span != nil {
		dst = append(dst, `,"span":{"start":`...)
		dst = strconv.AppendInt(dst, int64(r.Span.Start), 10)
		dst = appendInt(dst, "end", r.Span.End)
		dst = append(dst, '}')
	}
	if len(r.Findings) > 0 {
		dst = append(dst, `,"findings":[`...)
		for k := range r.Findings {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = r.Findings[k].AppendJSON(dst)
		}
		dst = append(dst, ']')
	}
	if l := r.Limit; l != nil {
		dst = append(dst, `,"limit":{"name":`...)
		dst = appendString(dst, l.Name)
		dst = appendInt(dst, "max", l.Max)
		dst = appendInt(dst, "actual", l.Actual)
		dst = append(dst, '}')
	}
	if r.Why != "" {
		dst = append(dst, `,"why":`...)
		dst = appendString(dst, r.Why)
	}
	if f := r.Fix; f != nil {
		dst = append(dst, `,"fix":{`...)
		sep := ""
		if f.Marker != nil {
			dst = append(dst, `"marker":`...)
			dst = appendString(dst, *f.Marker)
			sep = ","
		}
		if f.Start != nil {
			names := [2]string{"start_char_index", "end_char_index"}
			if r.Location.Type == ContentBlockLocation {
				names = [2]string{"start_block_index", "end_block_index"}
			}
			dst = append(dst, sep...)
			dst = append(dst, '"')
			dst = append(dst, names[0]...)
			dst = append(dst, '"', ':')
			dst = strconv.AppendInt(dst, int64(*f.Start), 10)
			dst = appendInt(dst, names[1], *f.End)
			sep = ","
		}
		if f.Quote != nil {
			dst = append(dst, sep...)
			dst = append(dst, `"quote":`...)
			dst = appendString(dst, *f.Quote)
		}
		dst = append(dst, '}')
	}
	if a.Explain && r.Outcome != Verbatim {
		dst = append(dst, `,"message":`...)
		dst = appendString(dst, a.Message(i))
	}
	return append(dst, '}')
}

func appendInt(dst []byte, name string, v int) []byte {
	dst = append(dst, ',', '"')
	dst = append(dst, name...)
	dst = append(dst, '"', ':')
	return strconv.AppendInt(dst, int64(v), 10)
}

// appendString appends s as a JSON string; s is valid UTF-8 (it was
// decoded from JSON or read as validated UTF-8).
func appendString(dst []byte, s string) []byte {
	out, err := jsontext.AppendQuote(dst, s)
	if err != nil {
		out, _ = jsontext.AppendQuote(dst, strings.ToValidUTF8(s, "\uFFFD"))
	}
	return out
}

// AppendAnswerJSON appends the whole answer as one JSON object, what the
// MCP tool check_quotes answers:
//
//	{"shape":"report","verbatim":false,"counts":{"no_source":0,…},
//	 "results":[…each as AppendJSON writes it…]}
func (a *Answer) AppendAnswerJSON(dst []byte) []byte {
	dst = append(dst, `{"shape":`...)
	dst = appendString(dst, a.Shape.String())
	dst = append(dst, `,"verbatim":`...)
	dst = strconv.AppendBool(dst, a.Verbatim())
	dst = append(dst, `,"counts":{`...)
	for i, o := range Outcomes() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendString(dst, o.String())
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, int64(a.Count(o)), 10)
	}
	dst = append(dst, `},"results":[`...)
	for i := range a.Results {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = a.AppendJSON(dst, i)
	}
	return append(dst, "]}"...)
}
