package citecheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/citecheck/citecheck/internal/testkit"
)

// mustDecode decodes a request body written for a test.
func mustDecode(t testing.TB, body string) *Request {
	t.Helper()
	req, err := Decode([]byte(body))
	if err != nil {
		t.Fatalf("test body refused: %s: %s", AsError(err).Code, AsError(err).Message)
	}
	return req
}

const alphabetSource = `{"source_id":"alphabet","version":"v1","text":"abcdefghijklmnopqrstuvwxyz"}`

func TestCheckAll(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		citations string
		want      []Reason // per citation
	}{
		{"all citations holding give a valid result",
			`{"citation_id":"c1","source_id":"alphabet","version":"v1","selector":{"type":"TextPositionSelector","start":4,"end":7},"quote":"efg"},
			 {"citation_id":"c2","source_id":"alphabet","version":"v1","selector":{"type":"TextQuoteSelector","exact":"xyz"}}`,
			[]Reason{ReasonNone, ReasonNone}},
		{"a failure does not stop the citations after it",
			`{"citation_id":"c1","source_id":"alphabet","version":"v1","selector":{"type":"TextPositionSelector","start":4,"end":7},"quote":"efh"},
			 {"citation_id":"c2","source_id":"alphabet","version":"v1","selector":{"type":"TextQuoteSelector","exact":"xyz"}},
			 {"citation_id":"c3","source_id":"nope","version":"v1","selector":{"type":"TextQuoteSelector","exact":"xyz"}}`,
			[]Reason{ReasonQuoteMismatch, ReasonNone, ReasonUnknownSource}},
		{"every reason is reported with its own citation",
			`{"citation_id":"a","source_id":"alphabet","version":"v2","selector":{"type":"TextPositionSelector","start":0,"end":1},"quote":"a"},
			 {"citation_id":"b","source_id":"alphabet","version":"v1","selector":{"type":"TextPositionSelector","start":7,"end":4},"quote":"x"},
			 {"citation_id":"c","source_id":"alphabet","version":"v1","selector":{"type":"TextPositionSelector","start":20,"end":30},"quote":"x"},
			 {"citation_id":"d","source_id":"alphabet","version":"v1","selector":{"type":"TextQuoteSelector","exact":"zz"}},
			 {"citation_id":"e","source_id":"alphabet","version":"v1","selector":{"type":"TextQuoteSelector","exact":"xyz","prefix":"v"}},
			 {"citation_id":"f","source_id":"alphabet","version":"v1","selector":{"type":"TextQuoteSelector","exact":"xy","suffix":"q"}},
			 {"citation_id":"g","source_id":"alphabet","version":"v1","selector":{"type":"TextQuoteSelector","exact":"xyz"},"claimed_start":22}`,
			[]Reason{ReasonVersionMismatch, ReasonSpanReversed, ReasonSpanOutOfRange, ReasonExactNotFound,
				ReasonPrefixMismatch, ReasonSuffixMismatch, ReasonPositionMismatch}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := mustDecode(t, `{"sources":[`+alphabetSource+`],"citations":[`+tt.citations+`]}`)
			all := CheckAll(req)
			failed := 0
			for k, o := range all.Citations {
				if o.Reason != tt.want[k] {
					t.Errorf("citation %d: %v, want %v", k, o.Reason, tt.want[k])
				}
				if o.CitationIndex != k || o.CitationID != req.Citations[k].CitationID {
					t.Errorf("citation %d: labelled %d %q", k, o.CitationIndex, o.CitationID)
				}
				if (o.Detail == nil) != o.Valid() || (o.Discrepancy() == nil) != o.Valid() {
					t.Errorf("citation %d: detail present %v but valid %v", k, o.Detail != nil, o.Valid())
				}
				if !o.Valid() {
					failed++
				}
			}
			if all.Failed != failed || all.Valid != (failed == 0) {
				t.Errorf("Failed %d Valid %v, want %d failures", all.Failed, all.Valid, failed)
			}
		})
	}
}

// TestCheckAllAgreesWithCheck: for every conformance request that gives a
// result, CheckAll's first failing citation is Check's first discrepancy,
// byte for byte, and CheckAll's verdict is Check's.
func TestCheckAllAgreesWithCheck(t *testing.T) {
	t.Parallel()
	results := 0
	for _, c := range testkit.Conformance(t) {
		req, err := Decode(c.Body)
		if err != nil {
			continue
		}
		results++
		t.Run(c.Name, func(t *testing.T) {
			res, all := Check(req), CheckAll(req)
			if res.Valid != all.Valid || len(all.Citations) != len(req.Citations) {
				t.Fatalf("Check valid %v, CheckAll valid %v with %d outcomes", res.Valid, all.Valid, len(all.Citations))
			}
			first := all.FirstFailure()
			if res.Valid {
				if first != nil {
					t.Fatalf("Check is valid, CheckAll fails citation %d", first.CitationIndex)
				}
				return
			}
			if first.Reason != res.Reason {
				t.Fatalf("reason %v, Check says %v", first.Reason, res.Reason)
			}
			if !reflect.DeepEqual(first.Discrepancy(), res.FirstDiscrepancy) {
				t.Fatalf("discrepancy differs\n CheckAll %s\n    Check %s", first.Discrepancy().AppendJSON(nil), res.FirstDiscrepancy.AppendJSON(nil))
			}
			if res.FirstDiscrepancy.Reason != res.Reason {
				t.Fatalf("the discrepancy carries %v, the result %v", res.FirstDiscrepancy.Reason, res.Reason)
			}
		})
	}
	if results < 50 {
		t.Fatalf("only %d conformance cases give a result", results)
	}
}

// TestAllJSON pins the extension's shape: its own key, a fixed member order,
// and a failing citation's detail exactly as the contract writes it.
func TestAllJSON(t *testing.T) {
	t.Parallel()
	req := mustDecode(t, `{"sources":[`+alphabetSource+`],"citations":[
		{"citation_id":"c1","source_id":"alphabet","version":"v1","selector":{"type":"TextPositionSelector","start":4,"end":7},"quote":"efg"},
		{"citation_id":"c2","source_id":"alphabet","version":"v1","selector":{"type":"TextQuoteSelector","exact":"xyz","prefix":"v"}}]}`)
	got := AppendAllEnvelope(nil, CheckAll(req), nil)
	want := `{"all":{"valid":false,"citations_checked":2,"citations_failed":1,"citations":[` +
		`{"citation_index":0,"citation_id":"c1","selector_type":"TextPositionSelector","valid":true,"reason":null,"detail":null},` +
		`{"citation_index":1,"citation_id":"c2","selector_type":"TextQuoteSelector","valid":false,"reason":"prefix_mismatch","detail":` +
		`{"field":"prefix","available_versions":null,"exact_matches":1,"prefix_matches":0,"full_matches":null,"match_starts":[23],"claimed_start":null,"resolved_start":null,"observed":"w"}}],` +
		`"authenticity_checked":false,"reference_version":"` + ReferenceVersion + `"}}`
	if string(got) != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	res := Check(req)
	if !bytes.Contains(got, res.FirstDiscrepancy.AppendJSON(nil)[bytes.Index(res.FirstDiscrepancy.AppendJSON(nil), []byte(`"detail":`)):]) {
		t.Fatal("the detail differs from the contract's")
	}
	if !json.Valid(got) {
		t.Fatal("not JSON")
	}
	e := &Error{Code: CodeInvalidInput, Message: "m", Path: ""}
	if string(AppendAllEnvelope(nil, nil, e)) != string(AppendEnvelope(nil, nil, e)) {
		t.Fatal("an error under --all must be the contract's error envelope")
	}
}

// CheckAll reports every citation's outcome; the first failing one is the
// contract's first_discrepancy.
func ExampleCheckAll() {
	req, _ := Decode([]byte(`{"sources":[{"source_id":"s","version":"v1","text":"abcdefghijklmnopqrstuvwxyz"}],
		"citations":[
		{"citation_id":"c1","source_id":"s","version":"v1","selector":{"type":"TextPositionSelector","start":4,"end":7},"quote":"efh"},
		{"citation_id":"c2","source_id":"s","version":"v1","selector":{"type":"TextQuoteSelector","exact":"xyz"}},
		{"citation_id":"c3","source_id":"s","version":"v2","selector":{"type":"TextQuoteSelector","exact":"xyz"}}]}`))
	all := CheckAll(req)
	for _, c := range all.Citations {
		if c.Valid() {
			fmt.Println(c.CitationID, "holds")
		} else {
			fmt.Println(c.CitationID, "fails:", c.Reason)
		}
	}
	fmt.Println(all.Failed, "failed;", string(AppendAllEnvelope(nil, all, nil))[:40])
	// Output:
	// c1 fails: quote_mismatch
	// c2 holds
	// c3 fails: version_mismatch
	// 2 failed; {"all":{"valid":false,"citations_checked
}
