package citecheck_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/citecheck/citecheck"
)

// exampleBody is the second example of the contract: citation c2 cites version v2
// of a source supplied only as v1.
const exampleBody = `{
  "sources": [{"source_id": "alphabet", "version": "v1", "text": "abcdefghijklmnopqrstuvwxyz"}],
  "citations": [
    {"citation_id": "c1", "source_id": "alphabet", "version": "v1",
     "selector": {"type": "TextPositionSelector", "start": 4, "end": 7}, "quote": "efg"},
    {"citation_id": "c2", "source_id": "alphabet", "version": "v2",
     "selector": {"type": "TextQuoteSelector", "exact": "xyz"}}
  ]
}`

// Run decodes and checks a request body in one call: exactly one of the
// result and the error is non-nil.
func ExampleRun() {
	res, err := citecheck.Run([]byte(exampleBody))
	if err != nil {
		e := citecheck.AsError(err) // the *citecheck.Error it holds (errors.As)
		fmt.Println("refused:", e.Code, e.Path)
		return
	}
	if !res.Valid {
		d := res.FirstDiscrepancy
		fmt.Printf("citation %d (%s) failed: %s, field %s, available versions %v\n",
			d.CitationIndex, d.CitationID, res.Reason, d.Detail.Field, d.Detail.AvailableVersions)
	}
	fmt.Println("citations checked:", res.CitationsChecked)

	// A body that is not a valid input is refused with an error object.
	_, err = citecheck.Run([]byte(`{"sources": [], "citations": []}`))
	e := citecheck.AsError(err)
	fmt.Println("refused:", e.Code, e.Path)
	// Output:
	// citation 1 (c2) failed: version_mismatch, field version, available versions [v1]
	// citations checked: 2
	// refused: invalid_input /sources
}

// Decode validates a body into a Request (spec §1); Check then checks it
// (spec §2). Splitting the two lets a caller inspect or reuse the request.
func ExampleDecode() {
	req, err := citecheck.Decode([]byte(exampleBody))
	if err != nil {
		e := citecheck.AsError(err)
		fmt.Println("refused:", e.Code, e.Message)
		return
	}
	for _, c := range req.Citations {
		fmt.Println(c.CitationID, c.Selector.Type, c.SourceID, c.Version)
	}
	res := citecheck.Check(req)
	fmt.Println("valid:", res.Valid, "reason:", res.Reason)

	// A limit failure names the limit, its value and the measured figure.
	_, err = citecheck.Decode([]byte(`{"sources": [{"source_id": "s", "version": "v1", "text": "x"}],
	  "citations": [{"citation_id": "c", "source_id": "s", "version": "v1",
	    "selector": {"type": "TextQuoteSelector", "exact": "x", "prefix": "` + strings.Repeat("\\u00e9", 600) + `"}}]}`))
	e := citecheck.AsError(err)
	fmt.Println(e.Code, e.Path, e.Limit, e.Max, e.Actual)
	// Output:
	// c1 TextPositionSelector alphabet v1
	// c2 TextQuoteSelector alphabet v2
	// valid: false reason: version_mismatch
	// limit_exceeded /citations/0/selector/prefix max_context_bytes 1024 1200
}

// A Checker checks citations one at a time and in any order, for a caller
// that wants every citation's outcome rather than only the first failure.
func ExampleChecker_Citation() {
	req, err := citecheck.Decode([]byte(`{
	  "sources": [{"source_id": "s", "version": "v1", "text": "bananas"}],
	  "citations": [
	    {"citation_id": "a", "source_id": "s", "version": "v1", "selector": {"type": "TextQuoteSelector", "exact": "ana"}},
	    {"citation_id": "b", "source_id": "s", "version": "v1", "selector": {"type": "TextQuoteSelector", "exact": "ana", "suffix": "s"}, "claimed_start": 3},
	    {"citation_id": "c", "source_id": "s", "version": "v1", "selector": {"type": "TextPositionSelector", "start": 0, "end": 3}, "quote": "bad"}
	  ]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	c := citecheck.NewChecker(req)
	for k, cit := range req.Citations {
		d := c.Citation(k)
		if d == nil {
			fmt.Printf("%s: holds\n", cit.CitationID)
			continue
		}
		fmt.Printf("%s: %s (field %s)\n", cit.CitationID, d.Reason, d.Detail.Field)
	}
	// Output:
	// a: ambiguous_anchor (field exact)
	// b: holds
	// c: quote_mismatch (field quote)
}

// AppendJSON writes the contract's output object: compact, members in the
// output schema's order, every null written, so equal inputs give equal bytes.
func ExampleResult_AppendJSON() {
	res, err := citecheck.Run([]byte(`{
	  "sources": [{"source_id": "alphabet", "version": "v1", "text": "abcdefghijklmnopqrstuvwxyz"}],
	  "citations": [{"citation_id": "c1", "source_id": "alphabet", "version": "v1",
	    "selector": {"type": "TextPositionSelector", "start": 4, "end": 7}, "quote": "efh"}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	os.Stdout.Write(append(res.AppendJSON(nil), '\n'))
	// Output:
	// {"valid":false,"reason":"quote_mismatch","first_discrepancy":{"citation_index":0,"citation_id":"c1","selector_type":"TextPositionSelector","detail":{"field":"quote","available_versions":null,"start":4,"end":7,"text_length":26,"quote_offset":2,"source_offset":6,"expected_char":"g","claimed_char":"h"}},"citations_checked":1,"authenticity_checked":false,"reference_version":"W3C Web Annotation Data Model (Recommendation 2017-02-23) 4.2.4 TextQuoteSelector, 4.2.5 TextPositionSelector; r68 supplied-text profile 1.0.0"}
}

// Echo is how an error message repeats input: whole when short, else cut
// to MaxEchoBytes, with an ellipsis and the full length.
func ExampleEcho() {
	fmt.Printf("member %q is not allowed\n", citecheck.Echo("colour"))
	msg := fmt.Sprintf("member %q is not allowed", citecheck.Echo(strings.Repeat("a", 1<<20)))
	fmt.Println(len(msg), "bytes, ending", msg[len(msg)-38:])
	// Output:
	// member "colour" is not allowed
	// 299 bytes, ending aaa…" (1048576 bytes) is not allowed
}

// Explain says why each failing citation failed and, when that determines
// one, how to fix it: here a quote typed with straight quotes where the
// source has curly ones, and offsets counted in UTF-16 units (as
// JavaScript counts) over text with an emoji.
func ExampleExplain() {
	req, err := citecheck.Decode([]byte(`{
  "sources": [{"source_id": "memo", "version": "v1",
               "text": "Launch 🚀 went well. She said “we reached orbit” at 10:42."}],
  "citations": [
    {"citation_id": "c1", "source_id": "memo", "version": "v1",
     "selector": {"type": "TextQuoteSelector", "exact": "\"we reached orbit\""}},
    {"citation_id": "c2", "source_id": "memo", "version": "v1",
     "selector": {"type": "TextPositionSelector", "start": 34, "end": 41}, "quote": "reached"}
  ]
}`))
	if err != nil {
		e := citecheck.AsError(err)
		fmt.Println("refused:", e.Code, e.Message)
		return
	}
	ex := citecheck.Explain(req)
	for k, o := range ex.All.Citations {
		fmt.Println(o.CitationID, o.Reason)
		for _, f := range ex.Citations[k].Findings {
			fmt.Printf("  %s\n", f.AppendJSON(nil))
		}
		if fix := ex.Citations[k].Fix; fix != nil {
			fmt.Printf("  fix: %s\n", fix.AppendJSON(nil))
		}
	}
	// Output:
	// c1 exact_not_found
	//   {"kind":"normalized","start":29,"end":47,"folds":["typography"],"source_text":"“we reached orbit”"}
	// c2 quote_mismatch
	//   {"kind":"elsewhere","start":33,"end":40,"occurrences":1}
	//   {"kind":"offset_units","start":33,"end":40,"units":"utf16"}
	//   fix: {"citation_id":"c2","source_id":"memo","version":"v1","selector":{"type":"TextPositionSelector","start":33,"end":40},"quote":"reached"}
}

// ApplyFixes writes a request back with the fixes Explain found, every
// other byte as it was: here a claimed_start counted in UTF-16 units.
func ExampleApplyFixes() {
	body := []byte(`{"sources": [{"source_id": "log", "version": "v1", "text": "🚀 liftoff at 10:42"}],
 "citations": [{"citation_id": "c1", "source_id": "log", "version": "v1",
                "selector": {"type": "TextQuoteSelector", "exact": "liftoff"}, "claimed_start": 3}]}`)
	ex, err := citecheck.RunExplain(body)
	if err != nil {
		e := citecheck.AsError(err)
		fmt.Println("refused:", e.Code, e.Message)
		return
	}
	fixed, _ := citecheck.ApplyFixes(body, ex)
	fmt.Println(string(fixed))
	// Output:
	// {"sources": [{"source_id": "log", "version": "v1", "text": "🚀 liftoff at 10:42"}],
	//  "citations": [{"citation_id": "c1", "source_id": "log", "version": "v1",
	//                 "selector": {"type": "TextQuoteSelector", "exact": "liftoff"}, "claimed_start": 2}]}
}

// CheckParallel checks the citations on several goroutines and answers as
// Check does: the first failure in array order, the same counts.
func ExampleCheckParallel() {
	req, err := citecheck.Decode([]byte(exampleBody))
	if err != nil {
		e := citecheck.AsError(err)
		fmt.Println("refused:", e.Code)
		return
	}
	res := citecheck.CheckParallel(req, 4)
	fmt.Println(res.Valid, res.Reason, res.FirstDiscrepancy.CitationID, res.CitationsChecked)
	// Output:
	// false version_mismatch c2 2
}
