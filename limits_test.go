package citecheck

import "testing"

// Decode is DecodeWith under the contract's limits, and DecodeWith judges
// every limit by the value it is given, not by the constants.
func TestDecodeWithTakesItsLimitsAsAValue(t *testing.T) {
	bigText := dBody(`{"source_id":"s","version":"v1","text":"`+rep("a", MaxTextBytes+1)+`efg"}`, dCites(1))
	lifted := DefaultLimits()
	lifted.TextBytes, lifted.InputBytes = NoLimit, NoLimit
	tight := Limits{InputBytes: 400, Sources: 1, Citations: 1, TextBytes: 26, QuoteBytes: 3, ContextBytes: 1, LabelBytes: 2, ScanUnits: 26}
	for _, c := range []struct {
		name string
		body string
		lim  Limits
		want *Error
	}{
		{"limits/value: the default refuses a text over max_text_bytes", bigText, DefaultLimits(),
			overLimit("/sources/0/text", LimitTextBytes, MaxTextBytes, MaxTextBytes+4)},
		{"limits/value: lifted sizes accept it", bigText, lifted, nil},
		{"limits/value: a bound is not the constant: 2 citations over max_citations 1", dOK, tight,
			overLimit("/citations", LimitCitations, 1, 2)},
		{"limits/value: input bytes", dOK, Limits{InputBytes: 10}, overLimit("", LimitInputBytes, 10, int64(len(dOK)))},
		{"limits/value: max_sources", dBody(dSrc+","+dSources(1), dCites(1)), tight, overLimit("/sources", LimitSources, 1, 2)},
		{"limits/value: max_text_bytes", dBody(`{"source_id":"s","version":"v1","text":"`+dAlphabet+`a"}`, dCites(1)), tight,
			overLimit("/sources/0/text", LimitTextBytes, 26, 27)},
		{"limits/value: max_quote_bytes", dBody(dSrc, dCite("p", dPosSel, `,"quote":"efgh"`)), tight,
			overLimit("/citations/0/quote", LimitQuoteBytes, 3, 4)},
		{"limits/value: max_context_bytes", dBody(dSrc, dCite("q", `"type":"TextQuoteSelector","exact":"x","prefix":"vw"`, "")), tight,
			overLimit("/citations/0/selector/prefix", LimitContextBytes, 1, 2)},
		{"limits/value: max_label_bytes", dBody(dSrc, dCite("pqr", dPosSel, `,"quote":"efg"`)), tight,
			overLimit("/citations/0/citation_id", LimitLabelBytes, 2, 3)},
		{"limits/value: max_scan_units", dBody(dSrc, dQuotes(2, "q", "v1")), Limits{InputBytes: 1000, Sources: 1, Citations: 2,
			TextBytes: 26, QuoteBytes: 1, ContextBytes: 0, LabelBytes: 2, ScanUnits: 51}, overLimit("/citations", LimitScanUnits, 51, 52)},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := DecodeWith([]byte(c.body), c.lim)
			assertDecoded(t, req, AsError(err), c.want)
		})
	}
	// Decode is DecodeWith under DefaultLimits: the same error, to the byte.
	_, e1 := Decode([]byte(bigText))
	_, e2 := DecodeWith([]byte(bigText), DefaultLimits())
	if e1 == nil || *AsError(e1) != *AsError(e2) {
		t.Fatalf("Decode %v, DecodeWith(DefaultLimits()) %v", e1, e2)
	}
}
