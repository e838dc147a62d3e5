package citecheck

import (
	"bytes"
	"encoding/json"
	"math/big"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/citecheck/citecheck/internal/testkit"
)

// ---- The reference: spec §2, brute force on []rune ----
//
// Written to be obviously right rather than fast: every occurrence is found
// by comparing at every index, and every detail member is set where the
// spec's tables say. It shares nothing with the engine but jsontext's string
// quoting, through testkit.AppendJSONString (so that equal results are equal
// bytes; encoding/json would write "&" as "\u0026").

// refResult is the result JSON spec §2 gives for req, members in the output
// schema's order.
func refResult(req *testkit.Request) []byte {
	for k, c := range req.Citations {
		reason, detail := refCitation(req, &c)
		if reason == "" {
			continue
		}
		b := []byte(`{"valid":false,"reason":`)
		b = testkit.AppendJSONString(b, reason)
		b = append(b, `,"first_discrepancy":{"citation_index":`...)
		b = strconv.AppendInt(b, int64(k), 10)
		b = append(b, `,"citation_id":`...)
		b = testkit.AppendJSONString(b, c.CitationID)
		b = append(b, `,"selector_type":`...)
		b = testkit.AppendJSONString(b, c.Selector.Type)
		b = append(b, `,"detail":`...)
		b = detail.appendJSON(b)
		b = append(b, `},"citations_checked":`...)
		b = strconv.AppendInt(b, int64(k+1), 10)
		return refTail(b)
	}
	b := []byte(`{"valid":true,"reason":null,"first_discrepancy":null,"citations_checked":`)
	b = strconv.AppendInt(b, int64(len(req.Citations)), 10)
	return refTail(b)
}

func refTail(b []byte) []byte {
	b = append(b, `,"authenticity_checked":false,"reference_version":`...)
	b = testkit.AppendJSONString(b, ReferenceVersion)
	return append(b, '}')
}

// refDetail holds each member's JSON text; members never set are null.
type refDetail struct {
	names []string
	vals  map[string]string
}

var (
	positionMembers = []string{"field", "available_versions", "start", "end", "text_length", "quote_offset", "source_offset", "expected_char", "claimed_char"}
	quoteMembers    = []string{"field", "available_versions", "exact_matches", "prefix_matches", "full_matches", "match_starts", "claimed_start", "resolved_start", "observed"}
)

func (d refDetail) appendJSON(b []byte) []byte {
	for i, name := range d.names {
		if i == 0 {
			b = append(b, '{')
		} else {
			b = append(b, ',')
		}
		b = testkit.AppendJSONString(b, name)
		b = append(b, ':')
		if v, ok := d.vals[name]; ok {
			b = append(b, v...)
		} else {
			b = append(b, "null"...)
		}
	}
	return append(b, '}')
}

func (d refDetail) setInt(name string, v int)    { d.vals[name] = strconv.Itoa(v) }
func (d refDetail) setStr(name string, v string) { d.vals[name] = testkit.JSONString(v) }
func (d refDetail) setRunes(name string, v []rune) {
	d.setStr(name, string(v))
}

// setFirstTwo sets match_starts: the first two (at most) of set.
func (d refDetail) setFirstTwo(set []int) {
	b, _ := json.Marshal(set[:min(2, len(set))])
	d.vals["match_starts"] = string(b)
}

// refCitation checks one citation: "" when it holds, else the reason and
// the detail.
func refCitation(req *testkit.Request, c *testkit.Citation) (string, refDetail) {
	d := refDetail{names: quoteMembers, vals: map[string]string{}}
	pos := c.Selector.Type == "TextPositionSelector"
	if pos {
		d.names = positionMembers
	}
	// §2.1: find the source.
	var versions []string
	var text []rune
	found := false
	for _, s := range req.Sources {
		if s.SourceID != c.SourceID {
			continue
		}
		if s.Version == c.Version {
			text, found = []rune(s.Text), true
		}
		versions = append(versions, s.Version)
	}
	switch {
	case versions == nil:
		d.setStr("field", "source_id")
		return "unknown_source", d
	case !found:
		d.setStr("field", "version")
		b := []byte{'['}
		for i, v := range versions {
			if i > 0 {
				b = append(b, ',')
			}
			b = testkit.AppendJSONString(b, v)
		}
		d.vals["available_versions"] = string(append(b, ']'))
		return "version_mismatch", d
	}
	if pos {
		return refPosition(d, text, *c.Selector.Start, *c.Selector.End, []rune(*c.Quote))
	}
	var prefix, suffix []rune
	if c.Selector.Prefix != nil {
		prefix = []rune(*c.Selector.Prefix)
	}
	if c.Selector.Suffix != nil {
		suffix = []rune(*c.Selector.Suffix)
	}
	return refAnchor(d, text, []rune(*c.Selector.Exact), prefix, suffix, c.ClaimedStart)
}

// refPosition is spec §2.2.
func refPosition(d refDetail, T []rune, start, end int, Q []rune) (string, refDetail) {
	n := len(T)
	d.setInt("start", start)
	d.setInt("end", end)
	d.setInt("text_length", n)
	if start > end {
		d.setStr("field", "end")
		return "span_reversed", d
	}
	if end > n {
		if start > n {
			d.setStr("field", "start")
		} else {
			d.setStr("field", "end")
		}
		return "span_out_of_range", d
	}
	S := T[start:end]
	if slices.Equal(S, Q) {
		return "", d
	}
	i := 0
	for i < len(S) && i < len(Q) && S[i] == Q[i] {
		i++
	}
	d.setStr("field", "quote")
	d.setInt("quote_offset", i)
	d.setInt("source_offset", start+i)
	if i < len(S) {
		d.setRunes("expected_char", S[i:i+1])
	}
	if i < len(Q) {
		d.setRunes("claimed_char", Q[i:i+1])
	}
	return "quote_mismatch", d
}

// at reports whether pat occurs in T at index p.
func at(T []rune, p int, pat []rune) bool {
	return p >= 0 && p+len(pat) <= len(T) && slices.Equal(T[p:p+len(pat)], pat)
}

// refSets returns OE, OP and OF of spec §2.3 (an empty P or X is no
// constraint).
func refSets(T, E, P, X []rune) (oe, op, of []int) {
	for p := 0; p+len(E) <= len(T); p++ {
		if at(T, p, E) {
			oe = append(oe, p)
		}
	}
	for _, p := range oe {
		if len(P) == 0 || at(T, p-len(P), P) {
			op = append(op, p)
		}
	}
	for _, p := range op {
		if len(X) == 0 || at(T, p+len(E), X) {
			of = append(of, p)
		}
	}
	return oe, op, of
}

// refAnchor is spec §2.3, stage by stage.
func refAnchor(d refDetail, T, E, P, X []rune, claimed *int) (string, refDetail) {
	n := len(T)
	oe, op, of := refSets(T, E, P, X)
	if claimed != nil {
		d.setInt("claimed_start", *claimed)
	}
	d.setInt("exact_matches", len(oe))
	if len(oe) == 0 {
		d.setStr("field", "exact")
		return "exact_not_found", d
	}
	if len(P) > 0 {
		d.setInt("prefix_matches", len(op))
		if len(op) == 0 {
			d.setStr("field", "prefix")
			d.setFirstTwo(oe)
			p := oe[0]
			d.setRunes("observed", T[max(0, p-len(P)):p])
			return "prefix_mismatch", d
		}
	}
	d.setInt("full_matches", len(of))
	if len(X) > 0 && len(of) == 0 {
		d.setStr("field", "suffix")
		d.setFirstTwo(op)
		q := op[0] + len(E)
		d.setRunes("observed", T[q:min(n, q+len(X))])
		return "suffix_mismatch", d
	}
	if len(of) >= 2 {
		d.setStr("field", "exact")
		d.setFirstTwo(of)
		return "ambiguous_anchor", d
	}
	if claimed != nil && *claimed != of[0] {
		d.setStr("field", "claimed_start")
		d.setFirstTwo(of)
		d.setInt("resolved_start", of[0])
		c := min(*claimed, n)
		d.setRunes("observed", T[c:min(n, c+len(E))])
		return "position_mismatch", d
	}
	return "", d
}

// ---- Fuzz targets ----

// FuzzDecode: whatever the bytes, Run answers with exactly one result or one
// well-formed error, never a panic; what it accepts is valid JSON, valid
// under the input schema, and checked as the reference checks it.
func FuzzDecode(f *testing.F) {
	for _, c := range testkit.Conformance(f) {
		f.Add(c.Body)
	}
	for _, ex := range contractExamples(f) {
		f.Add([]byte(ex.Input))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		res, cerr := Run(body)
		if (res == nil) == (cerr == nil) {
			t.Fatalf("want exactly one of result and error, got %v and %v", res, cerr)
		}
		if cerr != nil {
			checkError(t, body, AsError(cerr))
			return
		}
		if !json.Valid(body) || !utf8.Valid(body) {
			t.Fatalf("accepted a body that is not valid UTF-8 JSON: %q", body)
		}
		if err := schemaErr(inputSchema(t), body); err != nil {
			t.Fatalf("accepted a body the input schema refuses: %v\n%q", err, body)
		}
		out := res.AppendJSON(nil)
		checkOutput(t, out)
		again, _ := Run(body)
		if !bytes.Equal(out, again.AppendJSON(nil)) {
			t.Fatalf("two runs differ\n%s\n%s", out, again.AppendJSON(nil))
		}
		if want := refResult(requestFromJSON(t, body)); !bytes.Equal(out, want) {
			t.Fatalf("result differs from the reference\nbody %q\n got %s\nwant %s", body, out, want)
		}
	})
}

// checkError holds an engine error to spec §1's error object.
func checkError(t *testing.T, body []byte, e *Error) {
	t.Helper()
	// One line: no control character (CR, LF, NEL…) and no U+2028/U+2029.
	breaks := func(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }
	if e.Message == "" || strings.ContainsFunc(e.Message, breaks) || !utf8.ValidString(e.Message) {
		t.Errorf("message must be one line of text: %q", e.Message)
	}
	if !validPointer(e.Path) {
		t.Errorf("path %q is not an RFC 6901 JSON Pointer", e.Path)
	}
	switch e.Code {
	case CodeInvalidInput:
		if e.Limit != "" || e.Max != 0 || e.Actual != 0 {
			t.Errorf("invalid_input carries limit members: %+v", e)
		}
	case CodeLimitExceeded:
		if !strings.HasPrefix(e.Limit, "max_") || e.Actual <= e.Max {
			t.Errorf("limit_exceeded needs limit, max and an actual over max: %+v", e)
		}
		// Every invalid_input outranks every limit (except the size, which
		// is decided before anything is read).
		if e.Limit != LimitInputBytes {
			if err := schemaErr(inputSchema(t), body); err != nil {
				t.Errorf("limit_exceeded for a body the input schema refuses: %v", err)
			}
		}
	default:
		t.Fatalf("code %q: the engine reports only invalid_input and limit_exceeded", e.Code)
	}
	// The path names a value of the body, when the body can be read as JSON
	// and each name means one member (with duplicates encoding/json keeps
	// the last, and the path may rightly name an earlier one).
	if utf8.Valid(body) && json.Valid(body) && !hasDuplicateNames(t, body) {
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		var doc any
		if err := dec.Decode(&doc); err == nil && !resolvePointer(doc, e.Path) {
			t.Errorf("path %q names no value of the body (%s)\n%q", e.Path, e.Message, body)
		}
	}
	if t.Failed() {
		t.Logf("body %q", body)
	}
}

// validPointer reports whether p is an RFC 6901 JSON Pointer: empty, or
// "/"-separated tokens in which "~" is always followed by "0" or "1".
func validPointer(p string) bool {
	if p == "" {
		return true
	}
	if p[0] != '/' || !utf8.ValidString(p) {
		return false
	}
	for i := 0; i < len(p); i++ {
		if p[i] == '~' && (i+1 == len(p) || (p[i+1] != '0' && p[i+1] != '1')) {
			return false
		}
	}
	return true
}

func resolvePointer(doc any, p string) bool {
	if p == "" {
		return true
	}
	for _, tok := range strings.Split(p[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch v := doc.(type) {
		case map[string]any:
			w, ok := v[tok]
			if !ok {
				return false
			}
			doc = w
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(v) || strconv.Itoa(i) != tok {
				return false
			}
			doc = v[i]
		default:
			return false
		}
	}
	return true
}

// requestFromJSON reads a body that Decode accepted, independently of Decode:
// encoding/json for the structure, big.Rat for the integers (which may be
// written 4.0 or 40e-1).
func requestFromJSON(t *testing.T, body []byte) *testkit.Request {
	raw, err := testkit.ReadLiteral(body)
	if err != nil {
		t.Fatalf("accepted body does not decode: %v", err)
	}
	integer := func(n *json.Number) *int {
		if n == nil {
			return nil
		}
		r, ok := new(big.Rat).SetString(string(*n))
		if !ok || !r.IsInt() || !r.Num().IsInt64() {
			t.Fatalf("accepted %s as an integer", *n)
		}
		v := int(r.Num().Int64())
		return &v
	}
	req := &testkit.Request{Sources: raw.Sources}
	for _, c := range raw.Citations {
		s := c.Selector
		req.Citations = append(req.Citations, testkit.Citation{
			CitationID: c.CitationID, SourceID: c.SourceID, Version: c.Version, Quote: c.Quote,
			ClaimedStart: integer(c.ClaimedStart),
			Selector: testkit.Selector{Type: s.Type, Start: integer(s.Start), End: integer(s.End),
				Exact: s.Exact, Prefix: s.Prefix, Suffix: s.Suffix},
		})
	}
	return req
}

// runChecked runs req, which must be within every limit, and compares the
// result with the reference, byte for byte.
func runChecked(t *testing.T, req *testkit.Request) []byte {
	t.Helper()
	body, err := json.Marshal(req) // encoding/json escapes <, >, & and U+2028: more escapes for Decode to read
	if err != nil {
		t.Fatal(err)
	}
	res, cerr := Run(body)
	if cerr != nil {
		t.Fatalf("valid request refused: %s (path %q)\n%s", AsError(cerr).Message, AsError(cerr).Path, body)
	}
	out := res.AppendJSON(nil)
	if want := refResult(req); !bytes.Equal(out, want) {
		t.Fatalf("result differs from the reference\nbody %s\n got %s\nwant %s", body, out, want)
	}
	decoded, _ := Decode(body)
	if sparse := checkSparse(decoded).AppendJSON(nil); !bytes.Equal(sparse, out) { // what long sources get
		t.Fatalf("result with sparse indexes differs\nbody %s\n got %s\nwant %s", body, sparse, out)
	}
	return out
}

// withinLimits reports whether the strings fit max_text_bytes (text),
// max_quote_bytes (exact) and max_context_bytes (prefix, suffix).
func withinLimits(text, exact string, context ...string) bool {
	for _, c := range context {
		if len(c) > MaxContextBytes {
			return false
		}
	}
	return len(text) <= MaxTextBytes && len(exact) <= MaxQuoteBytes
}

// FuzzCheckPositionFromRealSpan: a quote that is really T[a:b] passes the
// passage check, and the same slice as an anchor is judged exactly as the
// reference of spec §2.3 judges it, whatever context and claim come with it.
func FuzzCheckPositionFromRealSpan(f *testing.F) {
	f.Add("abcdefghijklmnopqrstuvwxyz", uint(4), uint(7))
	f.Add("bananas", uint(1), uint(4))
	f.Add("bananas", uint(3), uint(6))
	f.Add("aaaaaa", uint(2), uint(4))
	f.Add("é😀\r\n中😀é", uint(1), uint(3))
	f.Add("e\u0301e\u0301e", uint(0), uint(2))
	f.Add("😀😀😀\U0001F3FD", uint(2), uint(4))
	f.Add("", uint(0), uint(1))
	f.Fuzz(func(t *testing.T, text string, a, b uint) {
		T := []rune(text)
		n := len(T)
		// The brute-force reference is quadratic in the text: keep it small
		// (1000 code points still span many 64-byte index blocks).
		if !utf8.ValidString(text) || n > 1000 {
			t.Skip()
		}
		lo, hi := int(a%uint(n+1)), int(b%uint(n+1))
		if lo > hi {
			lo, hi = hi, lo
		}
		if lo == hi {
			t.Skip()
		}
		E := T[lo:hi]
		exact := string(E)
		if len(exact) > MaxQuoteBytes {
			t.Skip()
		}
		pos := testkit.Citation{CitationID: "pos", SourceID: "s", Version: "v",
			Selector: testkit.Selector{Type: "TextPositionSelector", Start: &lo, End: &hi}, Quote: &exact}
		// The shortest context around [lo, hi) that makes it the only full
		// match. The whole text on both sides (k = n) always does, and more
		// context never adds a match, so a binary search finds it.
		context := func(k int) (P, X []rune) { return T[max(0, lo-k):lo], T[hi:min(n, hi+k)] }
		k := sort.Search(n, func(k int) bool {
			P, X := context(k)
			_, _, of := refSets(T, E, P, X)
			return len(of) == 1
		})
		P, X := context(k)
		if _, _, of := refSets(T, E, P, X); len(of) != 1 || of[0] != lo {
			t.Fatalf("reference: context %d around [%d,%d) gives %v", k, lo, hi, of)
		}
		oe, _, _ := refSets(T, E, nil, nil)
		first := oe[0]
		quote := func(id string, prefix, suffix []rune, claimed *int) testkit.Citation {
			return testkit.Citation{CitationID: id, SourceID: "s", Version: "v", ClaimedStart: claimed,
				Selector: testkit.Selector{Type: "TextQuoteSelector", Exact: &exact, Prefix: ptr(string(prefix)), Suffix: ptr(string(suffix))}}
		}
		variants := []testkit.Citation{
			// The unique context and the true start: must pass.
			quote("true-start", P, X, &lo),
			// The unique context and the first occurrence as the claim:
			// passes exactly when [lo, hi) is the first occurrence.
			quote("first-occurrence", P, X, &first),
			// No context: passes unless the slice occurs twice.
			quote("bare", nil, nil, nil),
			// Context taken from the wrong side: prefix and suffix
			// mismatches, mostly.
			quote("swapped-context", X, P, nil),
			// One code point more than the text has there.
			{CitationID: "longer", SourceID: "s", Version: "v",
				Selector: testkit.Selector{Type: "TextQuoteSelector", Exact: ptr(exact + string(T[0])), Prefix: ptr(string(P))}},
		}
		for _, q := range variants {
			if !withinLimits(text, *q.Selector.Exact, *q.Selector.Prefix, ptrOr(q.Selector.Suffix)) {
				continue
			}
			req := &testkit.Request{Sources: []testkit.Source{testkit.NewSource("s", "v", text)}, Citations: []testkit.Citation{pos, q}}
			out := runChecked(t, req)
			valid := bytes.HasPrefix(out, []byte(`{"valid":true`))
			switch q.CitationID {
			case "true-start":
				if !valid {
					t.Fatalf("T[%d:%d] with its unique context and true start failed: %s", lo, hi, out)
				}
			case "first-occurrence":
				if valid != (first == lo) {
					t.Fatalf("first occurrence %d, span at %d: %s", first, lo, out)
				}
			}
		}
	})
}

func ptrOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// FuzzCheckQuoteAgainstReference: for any text and any anchor, the result
// is byte for byte what the reference of spec §2.3 gives.
func FuzzCheckQuoteAgainstReference(f *testing.F) {
	f.Add("bananas", "ana", "", "", -1)
	f.Add("bananas", "ana", "", "s", -1)
	f.Add("bananas", "ana", "b", "", 3)
	f.Add("abcdefghijklmnopqrstuvwxyz", "xyz", "v", "", -1)
	f.Add("abcdefghijklmnopqrstuvwxyz", "xyz", "", "", 22)
	f.Add("abcdefghijklmnopqrstuvwxyz", "xyz", "w", "", 23)
	f.Add("aaaa", "aa", "a", "a", 1)
	f.Add("aaaa", "aa", "aa", "aa", 0)
	f.Add("😀a😀a", "😀", "a", "", 0)
	f.Add("😀a😀a", "a", "😀", "😀", 100)
	f.Add("é", "e\u0301", "", "", -1)
	f.Add("ab", "b", "", "c", 5)
	f.Add("ab", "b", "za", "", 9007199254740991)
	f.Add("\r\n\r\n", "\n", "\r", "\r", 3)
	f.Fuzz(func(t *testing.T, text, exact, prefix, suffix string, claimed int) {
		for _, s := range []string{text, exact, prefix, suffix} {
			if !utf8.ValidString(s) {
				t.Skip()
			}
		}
		if exact == "" || !withinLimits(text, exact, prefix, suffix) {
			t.Skip()
		}
		c := testkit.Citation{CitationID: "q", SourceID: "s", Version: "v",
			Selector: testkit.Selector{Type: "TextQuoteSelector", Exact: &exact, Prefix: &prefix, Suffix: &suffix}}
		if claimed >= 0 {
			c.ClaimedStart = ptr(min(claimed, MaxSafeInteger))
		}
		runChecked(t, &testkit.Request{Sources: []testkit.Source{testkit.NewSource("s", "v", text)}, Citations: []testkit.Citation{c}})
		// Absent context is the same as empty context: check that side too.
		if prefix == "" || suffix == "" {
			if prefix == "" {
				c.Selector.Prefix = nil
			}
			if suffix == "" {
				c.Selector.Suffix = nil
			}
			runChecked(t, &testkit.Request{Sources: []testkit.Source{testkit.NewSource("s", "v", text)}, Citations: []testkit.Citation{c}})
		}
	})
}
