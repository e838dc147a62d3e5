package citecheck

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/citecheck/citecheck/internal/testkit"
)

// Tests of spec §2 and §3, one table row per rule, named for the rule. Each
// row is a request and the full result JSON it must get, compared byte for
// byte: members in the output schema's order, every null written.

// wantReferenceVersion is the contract's constant, written out here so that
// a change to the engine's copy is caught.
const wantReferenceVersion = "W3C Web Annotation Data Model (Recommendation 2017-02-23) 4.2.4 TextQuoteSelector, 4.2.5 TextPositionSelector; r68 supplied-text profile 1.0.0"

// dm holds the non-null members of an expected detail.
type dm map[string]any

var (
	positionShape = []string{"available_versions", "start", "end", "text_length", "quote_offset", "source_offset", "expected_char", "claimed_char"}
	quoteShape    = []string{"available_versions", "exact_matches", "prefix_matches", "full_matches", "match_starts", "claimed_start", "resolved_start", "observed"}
)

// detailJSON writes the detail of the given shape: field, then every member
// of the shape in schema order, null unless given in vals.
func detailJSON(field string, shape []string, vals dm) string {
	b := []byte(`{"field":`)
	b = testkit.AppendJSONString(b, field)
	for name := range vals {
		if !slices.Contains(shape, name) {
			panic("detail member " + name + " is not in this shape")
		}
	}
	for _, name := range shape {
		b = append(b, `,"`+name+`":`...)
		switch v := vals[name].(type) {
		case nil:
			b = append(b, "null"...)
		case int:
			b = strconv.AppendInt(b, int64(v), 10)
		case string:
			b = testkit.AppendJSONString(b, v)
		case []int:
			b = append(b, '[')
			for i, n := range v {
				if i > 0 {
					b = append(b, ',')
				}
				b = strconv.AppendInt(b, int64(n), 10)
			}
			b = append(b, ']')
		case []string:
			b = append(b, '[')
			for i, s := range v {
				if i > 0 {
					b = append(b, ',')
				}
				b = testkit.AppendJSONString(b, s)
			}
			b = append(b, ']')
		default:
			panic(fmt.Sprintf("detail member %s: %T", name, v))
		}
	}
	return string(append(b, '}'))
}

func posDetail(field string, vals dm) string   { return detailJSON(field, positionShape, vals) }
func quoteDetail(field string, vals dm) string { return detailJSON(field, quoteShape, vals) }

// failedJSON is the result of a batch whose citation k fails: citations_checked is k+1.
func failedJSON(reason string, k int, id string, sel SelectorType, detail string) string {
	return `{"valid":false,"reason":"` + reason + `","first_discrepancy":{"citation_index":` + strconv.Itoa(k) +
		`,"citation_id":` + string(testkit.AppendJSONString(nil, id)) + `,"selector_type":"` + sel.String() + `","detail":` + detail +
		`},"citations_checked":` + strconv.Itoa(k+1) + `,"authenticity_checked":false,"reference_version":"` + wantReferenceVersion + `"}`
}

// passedJSON is the result of a batch of n citations that all pass.
func passedJSON(n int) string {
	return `{"valid":true,"reason":null,"first_discrepancy":null,"citations_checked":` + strconv.Itoa(n) +
		`,"authenticity_checked":false,"reference_version":"` + wantReferenceVersion + `"}`
}

// cCase is one row: sources, citations and the result JSON.
type cCase struct {
	name    string
	sources []testkit.Source
	cits    []testkit.Citation
	want    string
}

func runCheckCases(t *testing.T, cases []cCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := testkit.Request{Sources: c.sources, Citations: c.cits}.Body()
			res, err := Run(body)
			if err != nil {
				t.Fatalf("refused: %s at %q: %s\n%s", AsError(err).Code, AsError(err).Path, AsError(err).Message, body)
			}
			if got := string(res.AppendJSON(nil)); got != c.want {
				t.Fatalf("body %s\n got %s\nwant %s", body, got, c.want)
			}
		})
	}
}

// text1 is one source s/v1 with the given text.
func text1(text string) []testkit.Source { return []testkit.Source{testkit.NewSource("s", "v1", text)} }

// alphabetSrc is spec §3's source.
var alphabetSrc = []testkit.Source{testkit.NewSource("alphabet", "v1", "abcdefghijklmnopqrstuvwxyz")}

// one is a batch of a single citation.
func one(c testkit.Citation) []testkit.Citation { return []testkit.Citation{c} }

// P and Q are a position and a quote citation "c" on s/v1.
func P(start, end int, quote string) testkit.Citation {
	return testkit.PositionCitation("c", "s", "v1", start, end, quote)
}
func Q(exact string) testkit.Citation { return testkit.QuoteCitation("c", "s", "v1", exact) }

const (
	sPos   = PositionSelector
	sQuote = QuoteSelector
)

// spec §3: every worked example, the expected result written out in full.
func TestCheckWorkedExamples(t *testing.T) {
	t.Parallel()
	A := func(c testkit.Citation) []testkit.Citation { c.SourceID = "alphabet"; return one(c) }
	bananas := []testkit.Source{testkit.NewSource("s", "v1", "bananas")}
	runCheckCases(t, []cCase{
		{"examples/position 4-7 quote efg passes", alphabetSrc, A(P(4, 7, "efg")), passedJSON(1)},
		{"examples/position 7-4 quote x is span_reversed", alphabetSrc, A(P(7, 4, "x")),
			`{"valid":false,"reason":"span_reversed","first_discrepancy":{"citation_index":0,"citation_id":"c","selector_type":"TextPositionSelector","detail":{"field":"end","available_versions":null,"start":7,"end":4,"text_length":26,"quote_offset":null,"source_offset":null,"expected_char":null,"claimed_char":null}},"citations_checked":1,"authenticity_checked":false,"reference_version":"` + wantReferenceVersion + `"}`},
		{"examples/position 20-30 quote x is span_out_of_range", alphabetSrc, A(P(20, 30, "x")),
			`{"valid":false,"reason":"span_out_of_range","first_discrepancy":{"citation_index":0,"citation_id":"c","selector_type":"TextPositionSelector","detail":{"field":"end","available_versions":null,"start":20,"end":30,"text_length":26,"quote_offset":null,"source_offset":null,"expected_char":null,"claimed_char":null}},"citations_checked":1,"authenticity_checked":false,"reference_version":"` + wantReferenceVersion + `"}`},
		{"examples/position 4-7 quote efh is quote_mismatch at offset 2", alphabetSrc, A(P(4, 7, "efh")),
			`{"valid":false,"reason":"quote_mismatch","first_discrepancy":{"citation_index":0,"citation_id":"c","selector_type":"TextPositionSelector","detail":{"field":"quote","available_versions":null,"start":4,"end":7,"text_length":26,"quote_offset":2,"source_offset":6,"expected_char":"g","claimed_char":"h"}},"citations_checked":1,"authenticity_checked":false,"reference_version":"` + wantReferenceVersion + `"}`},
		{"examples/position 4-7 quote efgh is quote_mismatch with expected_char null", alphabetSrc, A(P(4, 7, "efgh")),
			`{"valid":false,"reason":"quote_mismatch","first_discrepancy":{"citation_index":0,"citation_id":"c","selector_type":"TextPositionSelector","detail":{"field":"quote","available_versions":null,"start":4,"end":7,"text_length":26,"quote_offset":3,"source_offset":7,"expected_char":null,"claimed_char":"h"}},"citations_checked":1,"authenticity_checked":false,"reference_version":"` + wantReferenceVersion + `"}`},
		{"examples/quote xyz prefix v is prefix_mismatch observing w", alphabetSrc, A(Q("xyz").WithPrefix("v")),
			`{"valid":false,"reason":"prefix_mismatch","first_discrepancy":{"citation_index":0,"citation_id":"c","selector_type":"TextQuoteSelector","detail":{"field":"prefix","available_versions":null,"exact_matches":1,"prefix_matches":0,"full_matches":null,"match_starts":[23],"claimed_start":null,"resolved_start":null,"observed":"w"}},"citations_checked":1,"authenticity_checked":false,"reference_version":"` + wantReferenceVersion + `"}`},
		{"examples/quote xyz claimed_start 22 is position_mismatch resolved at 23", alphabetSrc, A(Q("xyz").WithClaimedStart(22)),
			`{"valid":false,"reason":"position_mismatch","first_discrepancy":{"citation_index":0,"citation_id":"c","selector_type":"TextQuoteSelector","detail":{"field":"claimed_start","available_versions":null,"exact_matches":1,"prefix_matches":null,"full_matches":1,"match_starts":[23],"claimed_start":22,"resolved_start":23,"observed":"wxy"}},"citations_checked":1,"authenticity_checked":false,"reference_version":"` + wantReferenceVersion + `"}`},
		{"examples/quote ana in bananas is ambiguous_anchor at 1 and 3", bananas, one(Q("ana")),
			`{"valid":false,"reason":"ambiguous_anchor","first_discrepancy":{"citation_index":0,"citation_id":"c","selector_type":"TextQuoteSelector","detail":{"field":"exact","available_versions":null,"exact_matches":2,"prefix_matches":null,"full_matches":2,"match_starts":[1,3],"claimed_start":null,"resolved_start":null,"observed":null}},"citations_checked":1,"authenticity_checked":false,"reference_version":"` + wantReferenceVersion + `"}`},
		{"examples/quote ana suffix s in bananas passes", bananas, one(Q("ana").WithSuffix("s")), passedJSON(1)},
		{"examples/quote ana suffix s in bananas resolves at 3", bananas, one(Q("ana").WithSuffix("s").WithClaimedStart(3)), passedJSON(1)},
	})
}

// spec §2.1.
func TestCheckLookup(t *testing.T) {
	t.Parallel()
	versions := []testkit.Source{testkit.NewSource("a", "v3", "x"), testkit.NewSource("b", "v1", "x"), testkit.NewSource("a", "v1", "x"), testkit.NewSource("a", "v2", "x")}
	runCheckCases(t, []cCase{
		{"lookup/unknown_source: field source_id, every other member null (position shape)", alphabetSrc,
			one(testkit.PositionCitation("c", "nobody", "v1", 0, 1, "a")),
			failedJSON("unknown_source", 0, "c", sPos, posDetail("source_id", nil))},
		{"lookup/unknown_source: field source_id, every other member null (quote shape, claimed_start too)", alphabetSrc,
			one(testkit.QuoteCitation("c", "nobody", "v1", "abc").WithPrefix("x").WithClaimedStart(3)),
			failedJSON("unknown_source", 0, "c", sQuote, quoteDetail("source_id", nil))},
		{"lookup/source_id is compared exactly: case", alphabetSrc, one(testkit.PositionCitation("c", "Alphabet", "v1", 0, 1, "a")),
			failedJSON("unknown_source", 0, "c", sPos, posDetail("source_id", nil))},
		{"lookup/source_id is compared exactly: NFC is not NFD", []testkit.Source{testkit.NewSource("caf\u00e9", "v1", "x")},
			one(testkit.PositionCitation("c", "cafe\u0301", "v1", 0, 1, "x")),
			failedJSON("unknown_source", 0, "c", sPos, posDetail("source_id", nil))},
		{"lookup/version_mismatch: available_versions in input order (position shape)", versions,
			one(testkit.PositionCitation("c", "a", "v9", 0, 1, "x")),
			failedJSON("version_mismatch", 0, "c", sPos, posDetail("version", dm{"available_versions": []string{"v3", "v1", "v2"}}))},
		{"lookup/version_mismatch: available_versions in input order, other members null (quote shape)", versions,
			one(testkit.QuoteCitation("c", "a", "V1", "x").WithSuffix("y").WithClaimedStart(0)),
			failedJSON("version_mismatch", 0, "c", sQuote, quoteDetail("version", dm{"available_versions": []string{"v3", "v1", "v2"}}))},
		{"lookup/version_mismatch: versions of other source_ids are not listed", []testkit.Source{testkit.NewSource("a", "v1", "x"), testkit.NewSource("b", "v2", "x")},
			one(testkit.PositionCitation("c", "a", "v2", 0, 1, "x")),
			failedJSON("version_mismatch", 0, "c", sPos, posDetail("version", dm{"available_versions": []string{"v1"}}))},
		{"lookup/the cited version is checked, not another: passes on v2", []testkit.Source{testkit.NewSource("a", "v1", "hello"), testkit.NewSource("a", "v2", "world")},
			one(testkit.PositionCitation("c", "a", "v2", 0, 5, "world")), passedJSON(1)},
		{"lookup/the cited version is checked, not another: fails on v1", []testkit.Source{testkit.NewSource("a", "v1", "hello"), testkit.NewSource("a", "v2", "world")},
			one(testkit.PositionCitation("c", "a", "v1", 0, 5, "world")),
			failedJSON("quote_mismatch", 0, "c", sPos, posDetail("quote", dm{"start": 0, "end": 5, "text_length": 5, "quote_offset": 0, "source_offset": 0, "expected_char": "h", "claimed_char": "w"}))},
	})
}

// spec §2.2.
func TestCheckPosition(t *testing.T) {
	t.Parallel()
	abc := text1("abcdefghijklmnopqrstuvwxyz")
	span := func(start, end, n int, more dm) dm {
		m := dm{"start": start, "end": end, "text_length": n}
		for k, v := range more {
			m[k] = v
		}
		return m
	}
	long := strings.Repeat("é", 1000) + "XYZ" + strings.Repeat("日", 500)
	runCheckCases(t, []cCase{
		{"position/span_reversed: start > end, field end", abc, one(P(7, 4, "x")),
			failedJSON("span_reversed", 0, "c", sPos, posDetail("end", span(7, 4, 26, nil)))},
		{"position/span_reversed is checked before the range", abc, one(P(40, 30, "x")),
			failedJSON("span_reversed", 0, "c", sPos, posDetail("end", span(40, 30, 26, nil)))},
		{"position/span_out_of_range: field end when start <= n", abc, one(P(20, 30, "x")),
			failedJSON("span_out_of_range", 0, "c", sPos, posDetail("end", span(20, 30, 26, nil)))},
		{"position/span_out_of_range: field end when start == n", abc, one(P(26, 27, "x")),
			failedJSON("span_out_of_range", 0, "c", sPos, posDetail("end", span(26, 27, 26, nil)))},
		{"position/span_out_of_range: field start when start > n", abc, one(P(27, 30, "x")),
			failedJSON("span_out_of_range", 0, "c", sPos, posDetail("start", span(27, 30, 26, nil)))},
		{"position/span_out_of_range: empty text", text1(""), one(P(0, 1, "x")),
			failedJSON("span_out_of_range", 0, "c", sPos, posDetail("end", span(0, 1, 0, nil)))},
		{"position/span_out_of_range: the largest integer", abc, one(P(9007199254740991, 9007199254740991, "x")),
			failedJSON("span_out_of_range", 0, "c", sPos, posDetail("start", span(9007199254740991, 9007199254740991, 26, nil)))},
		{"position/end == n is in range", abc, one(P(23, 26, "xyz")), passedJSON(1)},
		{"position/the whole text", abc, one(P(0, 26, "abcdefghijklmnopqrstuvwxyz")), passedJSON(1)},
		{"position/quote_mismatch: the first differing code point", abc, one(P(4, 7, "xfg")),
			failedJSON("quote_mismatch", 0, "c", sPos, posDetail("quote", span(4, 7, 26, dm{"quote_offset": 0, "source_offset": 4, "expected_char": "e", "claimed_char": "x"})))},
		{"position/quote_mismatch: quote shorter than the span, claimed_char null", abc, one(P(4, 7, "ef")),
			failedJSON("quote_mismatch", 0, "c", sPos, posDetail("quote", span(4, 7, 26, dm{"quote_offset": 2, "source_offset": 6, "expected_char": "g"})))},
		{"position/quote_mismatch: quote longer than the span, expected_char null", abc, one(P(4, 7, "efgh")),
			failedJSON("quote_mismatch", 0, "c", sPos, posDetail("quote", span(4, 7, 26, dm{"quote_offset": 3, "source_offset": 7, "claimed_char": "h"})))},
		{"position/quote_mismatch: an empty span in the middle, expected_char null", abc, one(P(5, 5, "f")),
			failedJSON("quote_mismatch", 0, "c", sPos, posDetail("quote", span(5, 5, 26, dm{"quote_offset": 0, "source_offset": 5, "claimed_char": "f"})))},
		{"position/quote_mismatch: an empty span at the end", abc, one(P(26, 26, "z")),
			failedJSON("quote_mismatch", 0, "c", sPos, posDetail("quote", span(26, 26, 26, dm{"quote_offset": 0, "source_offset": 26, "claimed_char": "z"})))},
		{"position/multibyte text counts code points: passes", text1("naïve café"), one(P(6, 10, "café")), passedJSON(1)},
		{"position/multibyte text counts code points: expected_char is the whole code point", text1("naïve café"), one(P(6, 10, "cafe")),
			failedJSON("quote_mismatch", 0, "c", sPos, posDetail("quote", span(6, 10, 10, dm{"quote_offset": 3, "source_offset": 9, "expected_char": "é", "claimed_char": "e"})))},
		{"position/a difference in a continuation byte reports both whole code points", text1("café"), one(P(0, 4, "cafè")),
			failedJSON("quote_mismatch", 0, "c", sPos, posDetail("quote", span(0, 4, 4, dm{"quote_offset": 3, "source_offset": 3, "expected_char": "é", "claimed_char": "è"})))},
		{"position/code points of different widths differ at their lead byte", text1("a😀b"), one(P(0, 3, "aéb")),
			failedJSON("quote_mismatch", 0, "c", sPos, posDetail("quote", span(0, 3, 3, dm{"quote_offset": 1, "source_offset": 1, "expected_char": "😀", "claimed_char": "é"})))},
		{"position/astral text: an astral char is one position", text1("a😀b😀c"), one(P(1, 4, "😀b😀")), passedJSON(1)},
		{"position/astral text: quote_mismatch on an astral char", text1("a😀b😀c"), one(P(1, 4, "😀b😁")),
			failedJSON("quote_mismatch", 0, "c", sPos, posDetail("quote", span(1, 4, 5, dm{"quote_offset": 2, "source_offset": 3, "expected_char": "😀", "claimed_char": "😁"})))},
		{"position/astral text: span_out_of_range counts code points, not UTF-16 units", text1("😀😀"), one(P(0, 3, "😀😀")),
			failedJSON("span_out_of_range", 0, "c", sPos, posDetail("end", span(0, 3, 2, nil)))},
		{"position/a long multibyte text: positions far into it pass", text1(long), one(P(1000, 1003, "XYZ")), passedJSON(1)},
		{"position/a long multibyte text: offsets far into it count code points", text1(long), one(P(1001, 1503, "YZ"+strings.Repeat("日", 499)+"月")),
			failedJSON("quote_mismatch", 0, "c", sPos, posDetail("quote", span(1001, 1503, 1503, dm{"quote_offset": 501, "source_offset": 1502, "expected_char": "日", "claimed_char": "月"})))},
	})
}

// spec §2.3.
func TestCheckQuote(t *testing.T) {
	t.Parallel()
	abc := text1("abcdefghijklmnopqrstuvwxyz")
	runCheckCases(t, []cCase{
		// Stage 1.
		{"quote/exact_not_found: field exact, exact_matches 0, the rest null", abc, one(Q("zyx")),
			failedJSON("exact_not_found", 0, "c", sQuote, quoteDetail("exact", dm{"exact_matches": 0}))},
		{"quote/exact_not_found: prefix and suffix are not looked at; claimed_start is echoed", abc, one(Q("zyx").WithPrefix("w").WithSuffix("!").WithClaimedStart(5)),
			failedJSON("exact_not_found", 0, "c", sQuote, quoteDetail("exact", dm{"exact_matches": 0, "claimed_start": 5}))},
		{"quote/exact_not_found: exact longer than the text", text1("ab"), one(Q("abc")),
			failedJSON("exact_not_found", 0, "c", sQuote, quoteDetail("exact", dm{"exact_matches": 0}))},
		{"quote/exact_not_found: an empty text", text1(""), one(Q("a")),
			failedJSON("exact_not_found", 0, "c", sQuote, quoteDetail("exact", dm{"exact_matches": 0}))},
		// Stage 2.
		{"quote/prefix_mismatch: match_starts from OE, observed before the first", text1("bananas"), one(Q("an").WithPrefix("x")),
			failedJSON("prefix_mismatch", 0, "c", sQuote, quoteDetail("prefix", dm{"exact_matches": 2, "prefix_matches": 0, "match_starts": []int{1, 3}, "observed": "b"}))},
		{"quote/prefix_mismatch: prefix at text start (p < len(P)) observes nothing", abc, one(Q("abc").WithPrefix("z")),
			failedJSON("prefix_mismatch", 0, "c", sQuote, quoteDetail("prefix", dm{"exact_matches": 1, "prefix_matches": 0, "match_starts": []int{0}, "observed": ""}))},
		{"quote/prefix_mismatch: a prefix longer than the text before observes what there is", abc, one(Q("cde").WithPrefix("xyab")),
			failedJSON("prefix_mismatch", 0, "c", sQuote, quoteDetail("prefix", dm{"exact_matches": 1, "prefix_matches": 0, "match_starts": []int{2}, "observed": "ab"}))},
		{"quote/prefix_mismatch: observed counts code points", text1("😀😁abc"), one(Q("abc").WithPrefix("x😀")),
			failedJSON("prefix_mismatch", 0, "c", sQuote, quoteDetail("prefix", dm{"exact_matches": 1, "prefix_matches": 0, "match_starts": []int{2}, "observed": "😀😁"}))},
		{"quote/prefix_mismatch: a claimed_start is echoed", abc, one(Q("xyz").WithPrefix("v").WithClaimedStart(23)),
			failedJSON("prefix_mismatch", 0, "c", sQuote, quoteDetail("prefix", dm{"exact_matches": 1, "prefix_matches": 0, "match_starts": []int{23}, "claimed_start": 23, "observed": "w"}))},
		// Stage 3.
		{"quote/suffix_mismatch: observed clamped at text end", abc, one(Q("xyz").WithSuffix("!")),
			failedJSON("suffix_mismatch", 0, "c", sQuote, quoteDetail("suffix", dm{"exact_matches": 1, "full_matches": 0, "match_starts": []int{23}, "observed": ""}))},
		{"quote/suffix_mismatch: observed partly clamped at text end", abc, one(Q("wx").WithSuffix("yz!")),
			failedJSON("suffix_mismatch", 0, "c", sQuote, quoteDetail("suffix", dm{"exact_matches": 1, "full_matches": 0, "match_starts": []int{22}, "observed": "yz"}))},
		{"quote/suffix_mismatch: with a prefix, match_starts and observed come from OP", text1("xab1 yab2 yab3"), one(Q("ab").WithPrefix("y").WithSuffix("9")),
			failedJSON("suffix_mismatch", 0, "c", sQuote, quoteDetail("suffix", dm{"exact_matches": 3, "prefix_matches": 2, "full_matches": 0, "match_starts": []int{6, 11}, "observed": "2"}))},
		// Stage 4.
		{"quote/ambiguous_anchor: overlapping occurrences (ana in bananas)", text1("bananas"), one(Q("ana")),
			failedJSON("ambiguous_anchor", 0, "c", sQuote, quoteDetail("exact", dm{"exact_matches": 2, "full_matches": 2, "match_starts": []int{1, 3}}))},
		{"quote/ambiguous_anchor: aa occurs 3 times in aaaa; match_starts holds two", text1("aaaa"), one(Q("aa")),
			failedJSON("ambiguous_anchor", 0, "c", sQuote, quoteDetail("exact", dm{"exact_matches": 3, "full_matches": 3, "match_starts": []int{0, 1}}))},
		{"quote/ambiguous_anchor: with a prefix, prefix_matches counts OP", text1("aaaa"), one(Q("aa").WithPrefix("a")),
			failedJSON("ambiguous_anchor", 0, "c", sQuote, quoteDetail("exact", dm{"exact_matches": 3, "prefix_matches": 2, "full_matches": 2, "match_starts": []int{1, 2}}))},
		{"quote/ambiguous_anchor: with a suffix, match_starts from OF", text1("xaby xabz xaby"), one(Q("ab").WithSuffix("y")),
			failedJSON("ambiguous_anchor", 0, "c", sQuote, quoteDetail("exact", dm{"exact_matches": 3, "full_matches": 2, "match_starts": []int{1, 11}}))},
		{"quote/ambiguous_anchor: claimed_start is not compared, only echoed", text1("bananas"), one(Q("ana").WithClaimedStart(1)),
			failedJSON("ambiguous_anchor", 0, "c", sQuote, quoteDetail("exact", dm{"exact_matches": 2, "full_matches": 2, "match_starts": []int{1, 3}, "claimed_start": 1}))},
		{"quote/ambiguous_anchor: match_starts count code points, not bytes", text1("日本語の日本語"), one(Q("本語")),
			failedJSON("ambiguous_anchor", 0, "c", sQuote, quoteDetail("exact", dm{"exact_matches": 2, "full_matches": 2, "match_starts": []int{1, 5}}))},
		{"quote/ambiguous_anchor: an astral char is one position", text1("😀a😀a"), one(Q("a")),
			failedJSON("ambiguous_anchor", 0, "c", sQuote, quoteDetail("exact", dm{"exact_matches": 2, "full_matches": 2, "match_starts": []int{1, 3}}))},
		// Stage 5.
		{"quote/position_mismatch: claimed_start past the end gives observed empty", abc, one(Q("xyz").WithClaimedStart(100)),
			failedJSON("position_mismatch", 0, "c", sQuote, quoteDetail("claimed_start", dm{"exact_matches": 1, "full_matches": 1, "match_starts": []int{23}, "claimed_start": 100, "resolved_start": 23, "observed": ""}))},
		{"quote/position_mismatch: claimed_start at the largest integer", abc, one(Q("xyz").WithClaimedStart(9007199254740991)),
			failedJSON("position_mismatch", 0, "c", sQuote, quoteDetail("claimed_start", dm{"exact_matches": 1, "full_matches": 1, "match_starts": []int{23}, "claimed_start": 9007199254740991, "resolved_start": 23, "observed": ""}))},
		{"quote/position_mismatch: observed clamped at text end", abc, one(Q("abc").WithClaimedStart(25)),
			failedJSON("position_mismatch", 0, "c", sQuote, quoteDetail("claimed_start", dm{"exact_matches": 1, "full_matches": 1, "match_starts": []int{0}, "claimed_start": 25, "resolved_start": 0, "observed": "z"}))},
		{"quote/position_mismatch: with a prefix, prefix_matches is set", abc, one(Q("xyz").WithPrefix("w").WithClaimedStart(0)),
			failedJSON("position_mismatch", 0, "c", sQuote, quoteDetail("claimed_start", dm{"exact_matches": 1, "prefix_matches": 1, "full_matches": 1, "match_starts": []int{23}, "claimed_start": 0, "resolved_start": 23, "observed": "abc"}))},
		{"quote/position_mismatch: unique only with context, resolved at the full match", text1("bananas"), one(Q("ana").WithSuffix("s").WithClaimedStart(1)),
			failedJSON("position_mismatch", 0, "c", sQuote, quoteDetail("claimed_start", dm{"exact_matches": 2, "full_matches": 1, "match_starts": []int{3}, "claimed_start": 1, "resolved_start": 3, "observed": "ana"}))},
		{"quote/position_mismatch: observed counts code points", text1("αβγδ"), one(Q("γ").WithClaimedStart(0)),
			failedJSON("position_mismatch", 0, "c", sQuote, quoteDetail("claimed_start", dm{"exact_matches": 1, "full_matches": 1, "match_starts": []int{2}, "claimed_start": 0, "resolved_start": 2, "observed": "α"}))},
		// Passing, and empty context.
		{"quote/claimed_start equal to the match passes", abc, one(Q("xyz").WithPrefix("w").WithClaimedStart(23)), passedJSON(1)},
		{"quote/prefix and suffix at the text's edges pass", abc, []testkit.Citation{
			Q("a").WithSuffix("b"), testkit.QuoteCitation("d", "s", "v1", "z").WithPrefix("y"), testkit.QuoteCitation("e", "s", "v1", "b").WithPrefix("a").WithSuffix("c")}, passedJSON(3)},
		{"quote/empty prefix and suffix count as not given: prefix_matches stays null", text1("bananas"), one(Q("ana").WithPrefix("").WithSuffix("")),
			failedJSON("ambiguous_anchor", 0, "c", sQuote, quoteDetail("exact", dm{"exact_matches": 2, "full_matches": 2, "match_starts": []int{1, 3}}))},
		{"quote/empty prefix and suffix count as not given: no prefix_mismatch at text start", abc, one(Q("abc").WithPrefix("").WithSuffix("").WithClaimedStart(0)), passedJSON(1)},
		{"quote/empty suffix counts as not given: position_mismatch", abc, one(Q("xyz").WithSuffix("").WithClaimedStart(22)),
			failedJSON("position_mismatch", 0, "c", sQuote, quoteDetail("claimed_start", dm{"exact_matches": 1, "full_matches": 1, "match_starts": []int{23}, "claimed_start": 22, "resolved_start": 23, "observed": "wxy"}))},
	})
}

// spec §2.4: the first failure ends the check.
func TestCheckStopsAtTheFirstFailure(t *testing.T) {
	t.Parallel()
	ok := testkit.PositionCitation("ok", "s", "v1", 0, 3, "abc")
	runCheckCases(t, []cCase{
		{"result/all pass: citations_checked is the number of citations", text1("abcdef"),
			[]testkit.Citation{ok, testkit.QuoteCitation("q", "s", "v1", "def").WithClaimedStart(3), testkit.PositionCitation("p", "s", "v1", 1, 2, "b")}, passedJSON(3)},
		{"result/a failure at k: citations_checked is k+1, later citations are not looked at", text1("abcdef"),
			[]testkit.Citation{ok, testkit.QuoteCitation("bad", "s", "v1", "zzz"), testkit.PositionCitation("later", "nobody", "v1", 0, 1, "a")},
			failedJSON("exact_not_found", 1, "bad", sQuote, quoteDetail("exact", dm{"exact_matches": 0}))},
		{"result/a failure at 0 stops a batch of 256", text1("abcdef"),
			append([]testkit.Citation{testkit.PositionCitation("first", "s", "v1", 0, 1, "x")}, manyPassing(255)...),
			failedJSON("quote_mismatch", 0, "first", sPos, posDetail("quote", dm{"start": 0, "end": 1, "text_length": 6, "quote_offset": 0, "source_offset": 0, "expected_char": "a", "claimed_char": "x"}))},
		{"result/a failure at 255 after 255 passing citations", text1("abcdef"),
			append(manyPassing(255), testkit.PositionCitation("last", "s", "v1", 9, 1, "x")),
			failedJSON("span_reversed", 255, "last", sPos, posDetail("end", dm{"start": 9, "end": 1, "text_length": 6}))},
	})
}

// manyPassing is n passing citations on "abcdef", alternating the two kinds.
func manyPassing(n int) []testkit.Citation {
	var cs []testkit.Citation
	for i := range n {
		id := "ok" + strconv.Itoa(i)
		if i%2 == 0 {
			cs = append(cs, testkit.PositionCitation(id, "s", "v1", 2, 4, "cd"))
		} else {
			cs = append(cs, testkit.QuoteCitation(id, "s", "v1", "cd").WithClaimedStart(2))
		}
	}
	return cs
}

// spec §2.5: text is compared as it is.
func TestCheckComparesTextAsItIs(t *testing.T) {
	t.Parallel()
	nfc, nfd := "caf\u00e9", "cafe\u0301"
	runCheckCases(t, []cCase{
		{"normalization/NFC text, NFD quote: quote_mismatch at the é", text1(nfc), one(P(0, 4, nfd)),
			failedJSON("quote_mismatch", 0, "c", sPos, posDetail("quote", dm{"start": 0, "end": 4, "text_length": 4, "quote_offset": 3, "source_offset": 3, "expected_char": "é", "claimed_char": "e"}))},
		{"normalization/NFC text, NFD exact: exact_not_found", text1(nfc), one(Q(nfd)),
			failedJSON("exact_not_found", 0, "c", sQuote, quoteDetail("exact", dm{"exact_matches": 0}))},
		{"normalization/NFD text: e + U+0301 is two code points", text1(nfd), one(P(3, 5, "e\u0301")), passedJSON(1)},
		{"normalization/NFD text, NFC quote: quote_mismatch at the e", text1(nfd), one(P(0, 5, nfc)),
			failedJSON("quote_mismatch", 0, "c", sPos, posDetail("quote", dm{"start": 0, "end": 5, "text_length": 5, "quote_offset": 3, "source_offset": 3, "expected_char": "e", "claimed_char": "é"}))},
		{"normalization/a combining mark can be cited alone", text1(nfd), one(Q("\u0301").WithClaimedStart(4)), passedJSON(1)},
		{"normalization/case counts", text1("abc"), one(Q("ABC")),
			failedJSON("exact_not_found", 0, "c", sQuote, quoteDetail("exact", dm{"exact_matches": 0}))},
		{"normalization/white space counts: NO-BREAK SPACE is not a space", text1("a\u00a0b"), one(Q("a b")),
			failedJSON("exact_not_found", 0, "c", sQuote, quoteDetail("exact", dm{"exact_matches": 0}))},
		{"normalization/white space counts: two spaces are not one", text1("a  b"), one(P(0, 3, "a b")),
			failedJSON("quote_mismatch", 0, "c", sPos, posDetail("quote", dm{"start": 0, "end": 3, "text_length": 4, "quote_offset": 2, "source_offset": 2, "expected_char": " ", "claimed_char": "b"}))},
		{"normalization/CRLF is 2 code points: positions after it", text1("a\r\nb"), one(P(3, 4, "b")), passedJSON(1)},
		{"normalization/CRLF is 2 code points: a span of one holds only CR", text1("a\r\nb"), one(P(1, 2, "\r\n")),
			failedJSON("quote_mismatch", 0, "c", sPos, posDetail("quote", dm{"start": 1, "end": 2, "text_length": 4, "quote_offset": 1, "source_offset": 2, "claimed_char": "\n"}))},
		{"normalization/LF is not CRLF", text1("a\r\nb"), one(Q("a\nb")),
			failedJSON("exact_not_found", 0, "c", sQuote, quoteDetail("exact", dm{"exact_matches": 0}))},
		{"normalization/emoji+skin tone is 2: the pair spans two positions", text1("x👍🏽y"), one(P(1, 3, "👍🏽")), passedJSON(1)},
		{"normalization/emoji+skin tone is 2: a span of one holds the emoji alone", text1("x👍🏽y"), one(P(1, 2, "👍🏽")),
			failedJSON("quote_mismatch", 0, "c", sPos, posDetail("quote", dm{"start": 1, "end": 2, "text_length": 4, "quote_offset": 1, "source_offset": 2, "claimed_char": "🏽"}))},
		{"normalization/emoji+skin tone is 2: the bare emoji matches inside the pair", text1("x👍🏽y"), one(Q("👍").WithClaimedStart(1)), passedJSON(1)},
		{"normalization/a ZWJ sequence is 3 code points", text1("👩\u200d💻!"), one(P(3, 4, "!")), passedJSON(1)},
		{"normalization/a ligature is not its letters", text1("\ufb01ne"), one(Q("fine")),
			failedJSON("exact_not_found", 0, "c", sQuote, quoteDetail("exact", dm{"exact_matches": 0}))},
	})
}

// Checker.Citation checks one citation alone, in any order.
func TestCheckerCitationChecksOneCitationInAnyOrder(t *testing.T) {
	t.Parallel()
	req, err := Decode(testkit.Request{Sources: text1("bananas"), Citations: []testkit.Citation{
		testkit.PositionCitation("p", "s", "v1", 1, 4, "ana"), testkit.QuoteCitation("q", "s", "v1", "ana"), testkit.PositionCitation("r", "s", "v1", 6, 7, "x"),
	}}.Body())
	if err != nil {
		t.Fatal(err)
	}
	c := NewChecker(req)
	for _, k := range []int{2, 0, 1, 2, 0} {
		d := c.Citation(k)
		want := []Reason{ReasonNone, ReasonAmbiguousAnchor, ReasonQuoteMismatch}[k]
		reason := ReasonNone
		if d != nil {
			reason = d.Reason
		}
		if reason != want {
			t.Fatalf("citation %d: %v, want %v", k, reason, want)
		}
		if d != nil && (d.CitationIndex != k || d.CitationID != req.Citations[k].CitationID || d.Reason == ReasonNone) {
			t.Fatalf("citation %d: discrepancy %+v", k, d)
		}
	}
}

// The engine keeps no state between calls: many goroutines checking
// different requests get the answers one goroutine gets.
func TestRunIsSafeForConcurrentUse(t *testing.T) {
	t.Parallel()
	bodies := [][]byte{
		testkit.Request{Sources: text1("bananas"), Citations: one(Q("ana"))}.Body(),
		testkit.Request{Sources: text1("a😀b😀c"), Citations: one(P(1, 4, "😀b😁"))}.Body(),
		testkit.Request{Sources: alphabetSrc, Citations: one(testkit.QuoteCitation("c", "alphabet", "v1", "xyz").WithClaimedStart(22))}.Body(),
		testkit.Request{Sources: text1("abc"), Citations: one(P(0, 3, "abc"))}.Body(),
	}
	want := make([]string, len(bodies))
	for i, b := range bodies {
		res, err := Run(b)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = string(res.AppendJSON(nil))
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				k := (g + i) % len(bodies)
				res, _ := Run(bodies[k])
				if got := string(res.AppendJSON(nil)); got != want[k] {
					t.Errorf("goroutine %d: got %s, want %s", g, got, want[k])
					return
				}
			}
		})
	}
	wg.Wait()
}
