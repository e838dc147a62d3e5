package citecheck

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/citecheck/citecheck/internal/fold"
	"github.com/citecheck/citecheck/internal/testkit"
	"github.com/citecheck/citecheck/internal/utext"
	"golang.org/x/text/unicode/norm"
)

// explainOne explains a one-source request (source "s", plus a source "t"
// so that lookups have company) with the given citations, checks every
// finding and fix against the properties, and returns the explanation.
func explainOne(t testing.TB, text string, citations ...string) (*Request, *Explanation) {
	t.Helper()
	src, _ := json.Marshal(text)
	req := mustDecode(t, `{"sources":[{"source_id":"s","version":"v1","text":`+string(src)+`},{"source_id":"t","version":"v1","text":"x"}],"citations":[`+strings.Join(citations, ",")+`]}`)
	ex := Explain(req)
	checkExplanation(t, req, ex)
	return req, ex
}

// withID gives a citation built by P or Q its own citation_id.
func withID(id, citation string) string {
	return strings.Replace(citation, `"citation_id":"c"`, `"citation_id":"`+id+`"`, 1)
}

// findingsJSON is a citation's findings as JSON, for comparing in tests.
func findingsJSON(ce CitationExplanation) string {
	var b []byte
	for i := range ce.Findings {
		if i > 0 {
			b = append(b, ' ')
		}
		b = ce.Findings[i].AppendJSON(b)
	}
	return string(b)
}

func fixJSON(ce CitationExplanation) string {
	if ce.Fix == nil {
		return "null"
	}
	return string(ce.Fix.AppendJSON(nil))
}

func TestExplain(t *testing.T) {
	const emoji = "Launch day 🚀🚀 went well. The rocket reached orbit at 10:42."
	tests := []struct {
		name     string
		text     string
		citation string
		reason   Reason
		findings string // the findings' JSON, space-separated
		fix      string // the fix's JSON, or null
	}{
		{"a straight-quoted quote of curly-quoted text holds under typography",
			"She said “the results are final” and left.", P(9, 32, `"the results are final"`).JSON(),
			ReasonQuoteMismatch,
			`{"kind":"normalized","start":9,"end":32,"folds":["typography"],"source_text":"“the results are final”"}`, "null"},
		{"an apostrophe and an em dash typed in ASCII hold under typography",
			"It’s late—too late.", Q("It's late-too late.").JSON(),
			ReasonExactNotFound,
			`{"kind":"normalized","start":0,"end":19,"folds":["typography"],"source_text":"It’s late—too late."}`, "null"},
		{"JavaScript offsets over emoji text count UTF-16 code units",
			emoji, P(31, 43, "rocket reach").JSON(), // rocket starts at code point 29, UTF-16 unit 31
			ReasonQuoteMismatch,
			`{"kind":"elsewhere","start":29,"end":41,"occurrences":1} {"kind":"offset_units","start":29,"end":41,"units":"utf16"}`,
			`{"citation_id":"c","source_id":"s","version":"v1","selector":{"type":"TextPositionSelector","start":29,"end":41},"quote":"rocket reach"}`},
		{"byte offsets over emoji text count UTF-8 bytes",
			emoji, P(35, 47, "rocket reach").JSON(), // code point 29, after two emoji of 4 bytes each: byte 35
			ReasonQuoteMismatch,
			`{"kind":"elsewhere","start":29,"end":41,"occurrences":1} {"kind":"offset_units","start":29,"end":41,"units":"utf8"}`,
			`{"citation_id":"c","source_id":"s","version":"v1","selector":{"type":"TextPositionSelector","start":29,"end":41},"quote":"rocket reach"}`},
		{"a claimed_start in UTF-16 units is an offset_units reading of position_mismatch",
			emoji, Q("rocket").WithClaimedStart(31).JSON(),
			ReasonPositionMismatch,
			`{"kind":"elsewhere","start":29,"end":35,"occurrences":1} {"kind":"offset_units","start":29,"end":35,"units":"utf16"}`,
			`{"citation_id":"c","source_id":"s","version":"v1","selector":{"type":"TextQuoteSelector","exact":"rocket"},"claimed_start":29}`},
		{"PDF text with hard line breaks holds under white space",
			"the quick brown\nfox jumps over\r\nthe  lazy dog", Q("brown fox jumps over the lazy").JSON(),
			ReasonExactNotFound,
			`{"kind":"normalized","start":10,"end":41,"folds":["whitespace"],"source_text":"brown\nfox jumps over\r\nthe  lazy"}`, "null"},
		{"a quote with leading and trailing blanks holds under white space",
			"alpha\nbeta\ngamma", P(6, 10, " beta ").JSON(),
			ReasonQuoteMismatch,
			`{"kind":"normalized","start":6,"end":10,"folds":["whitespace"],"source_text":"beta"}`, "null"},
		{"a PDF ligature holds under NFKC, the first of the minimal sets",
			"the ﬁrst ﬂoor", Q("first floor").JSON(),
			ReasonExactNotFound,
			`{"kind":"normalized","start":4,"end":13,"folds":["nfkc"],"source_text":"ﬁrst ﬂoor"}`, "null"},
		{"a soft hyphen from a PDF holds under typography only",
			"an extra\u00adordinary claim", Q("extraordinary claim").JSON(),
			ReasonExactNotFound,
			`{"kind":"normalized","start":3,"end":23,"folds":["typography"],"source_text":"extra­ordinary claim"}`, "null"},
		{"an NFD quote of NFC text holds under NFC",
			"le café du coin", P(3, 7, "cafe\u0301").JSON(),
			ReasonQuoteMismatch,
			`{"kind":"normalized","start":3,"end":7,"folds":["nfc"],"source_text":"café"}`, "null"},
		{"an NFC quote of NFD text maps back over the combining mark",
			"le cafe\u0301 du coin", Q("café du").JSON(),
			ReasonExactNotFound,
			`{"kind":"normalized","start":3,"end":11,"folds":["nfc"],"source_text":"café du"}`, "null"},
		{"fullwidth text holds under NFKC",
			"型番ＡＢＣ－１２３です", Q("ABC-123").JSON(),
			ReasonExactNotFound,
			`{"kind":"normalized","start":2,"end":9,"folds":["nfkc"],"source_text":"ＡＢＣ－１２３"}`, "null"},
		{"a change of case holds under case folding",
			"The Treaty of Paris was signed.", Q("the treaty of paris").JSON(),
			ReasonExactNotFound,
			`{"kind":"normalized","start":0,"end":19,"folds":["case"],"source_text":"The Treaty of Paris"}`, "null"},
		{"a line break and a curly apostrophe need two folds",
			"the court’s\nruling stands", Q("court's ruling").JSON(),
			ReasonExactNotFound,
			`{"kind":"normalized","start":4,"end":18,"folds":["whitespace","typography"],"source_text":"court’s\nruling"}`, "null"},
		{"an elided quote's passages occur in order",
			"We hold these truths to be self-evident, that all men are created equal.",
			P(0, 20, "We hold these truths … that all men are created equal").JSON(),
			ReasonQuoteMismatch,
			`{"kind":"elided","start":0,"end":71,"parts":[{"start":0,"end":20},{"start":41,"end":71}],"source_text":"We hold these truths to be self-evident, that all men are created equal"}`, "null"},
		{"a bracketed ASCII ellipsis elides too",
			"first part, middle part, last part", Q("first part [...] last part").JSON(),
			ReasonExactNotFound,
			`{"kind":"elided","start":0,"end":34,"parts":[{"start":0,"end":10},{"start":25,"end":34}],"source_text":"first part, middle part, last part"}`, "null"},
		{"an ambiguous anchor without claimed_start gets contexts for each match and no fix",
			"xa1-ana-xa2-ana-ya3", Q("ana").JSON(),
			ReasonAmbiguousAnchor,
			`{"kind":"disambiguate","start":4,"end":7,"prefix":"1-"} {"kind":"disambiguate","start":4,"end":7,"suffix":"-x"} {"kind":"disambiguate","start":12,"end":15,"prefix":"2-"} {"kind":"disambiguate","start":12,"end":15,"suffix":"-y"}`,
			"null"},
		{"an ambiguous anchor whose claimed_start picks a match is fixed with the shorter context",
			"xa1-ana-xa2-ana-ya3", Q("ana").WithClaimedStart(12).JSON(),
			ReasonAmbiguousAnchor,
			`{"kind":"disambiguate","start":12,"end":15,"prefix":"2-"} {"kind":"disambiguate","start":12,"end":15,"suffix":"-y"}`,
			`{"citation_id":"c","source_id":"s","version":"v1","selector":{"type":"TextQuoteSelector","exact":"ana","prefix":"2-"},"claimed_start":12}`},
		{"an ambiguous anchor's claimed_start in UTF-16 units picks the match it means",
			"🙂 ana 🙂 ana", Q("ana").WithClaimedStart(10).JSON(), // the second ana: code point 8, unit 10
			ReasonAmbiguousAnchor,
			`{"kind":"offset_units","start":8,"end":11,"units":"utf16"} {"kind":"disambiguate","start":8,"end":11,"prefix":" 🙂 "}`,
			`{"citation_id":"c","source_id":"s","version":"v1","selector":{"type":"TextQuoteSelector","exact":"ana","prefix":" 🙂 "},"claimed_start":8}`},
		{"a misplaced anchor is fixed at where it resolves",
			"abcdefghijklmnopqrstuvwxyz", Q("xyz").WithClaimedStart(22).JSON(),
			ReasonPositionMismatch,
			`{"kind":"elsewhere","start":23,"end":26,"occurrences":1}`,
			`{"citation_id":"c","source_id":"s","version":"v1","selector":{"type":"TextQuoteSelector","exact":"xyz"},"claimed_start":23}`},
		{"a quote found once elsewhere is moved there",
			"abcdefghijklmnopqrstuvwxyz", P(4, 7, "xyz").JSON(),
			ReasonQuoteMismatch,
			`{"kind":"elsewhere","start":23,"end":26,"occurrences":1}`,
			`{"citation_id":"c","source_id":"s","version":"v1","selector":{"type":"TextPositionSelector","start":23,"end":26},"quote":"xyz"}`},
		{"a quote found at its start with a wrong end is fixed there though it occurs again",
			"to be or not to be", P(13, 14, "to be").JSON(),
			ReasonQuoteMismatch,
			`{"kind":"elsewhere","start":0,"end":5,"occurrences":2} {"kind":"elsewhere","start":13,"end":18,"occurrences":2}`,
			`{"citation_id":"c","source_id":"s","version":"v1","selector":{"type":"TextPositionSelector","start":13,"end":18},"quote":"to be"}`},
		{"a quote found several times with nothing to choose gets no fix",
			"to be or not to be", P(6, 9, "to be").JSON(),
			ReasonQuoteMismatch,
			`{"kind":"elsewhere","start":0,"end":5,"occurrences":2} {"kind":"elsewhere","start":13,"end":18,"occurrences":2}`,
			"null"},
		{"a reversed span's quote is found where it is",
			"abcdefghijklmnopqrstuvwxyz", P(7, 4, "efg").JSON(),
			ReasonSpanReversed,
			`{"kind":"elsewhere","start":4,"end":7,"occurrences":1}`,
			`{"citation_id":"c","source_id":"s","version":"v1","selector":{"type":"TextPositionSelector","start":4,"end":7},"quote":"efg"}`},
		{"a fabricated quote of the source's own words in another order is only a partial match",
			"The committee approved the budget after a long debate.", Q("The budget approved the committee").JSON(),
			ReasonExactNotFound,
			`{"kind":"partial","start":0,"end":4,"length":4}`, "null"},
		{"a fabricated position quote reordered gets no text finding",
			"The committee approved the budget after a long debate.", P(0, 33, "the Committee approved The budget, after debate").JSON(),
			ReasonQuoteMismatch,
			`{"kind":"partial","start":23,"end":27,"length":4}`, "null"},
		{"a fabricated quote that shares not even a first character has no finding",
			"abc", Q("Zebra").JSON(),
			ReasonExactNotFound, ``, "null"},
		{"a prefix with a curly apostrophe holds under typography over the whole anchor",
			"the court’s ruling stands", Q("ruling").WithPrefix("court's ").JSON(),
			ReasonPrefixMismatch,
			`{"kind":"normalized","start":4,"end":18,"folds":["typography"],"source_text":"court’s ruling"}`, "null"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, ex := explainOne(t, tc.text, tc.citation)
			o := ex.All.Citations[0]
			if o.Reason != tc.reason {
				t.Fatalf("reason %v, want %v", o.Reason, tc.reason)
			}
			ce := ex.Citations[0]
			if got := findingsJSON(ce); got != tc.findings {
				t.Errorf("findings\n got %s\nwant %s", got, tc.findings)
			}
			if got := fixJSON(ce); got != tc.fix {
				t.Errorf("fix\n got %s\nwant %s", got, tc.fix)
			}
		})
	}
}

func TestExplainHoldingAndLookupCitationsHaveNoFindings(t *testing.T) {
	_, ex := explainOne(t, "abcdef",
		withID("ok", P(0, 3, "abc").JSON()),
		`{"citation_id":"unknown","source_id":"S","version":"v1","selector":{"type":"TextQuoteSelector","exact":"a"}}`,
		`{"citation_id":"version","source_id":"s","version":"v2","selector":{"type":"TextQuoteSelector","exact":"a"}}`)
	for k, ce := range ex.Citations {
		if ce.Findings == nil && !ex.All.Citations[k].Valid() || len(ce.Findings) != 0 || ce.Fix != nil {
			t.Errorf("citation %d: %+v", k, ce)
		}
	}
	got := string(ex.AppendJSON(nil))
	if !strings.Contains(got, `"reason":null,"detail":null,"findings":[],"fix":null}`) {
		t.Errorf("a holding citation's JSON: %s", got)
	}
}

// TestExplainKeepsVerdicts: the verdicts and details are CheckAll's, byte
// for byte, with only findings and fix added.
func TestExplainKeepsVerdicts(t *testing.T) {
	req, ex := explainOne(t, "abcdefghijklmnopqrstuvwxyz",
		withID("a", P(4, 7, "efh").JSON()), withID("b", Q("xyz").WithPrefix("v").JSON()), withID("c", P(0, 1, "a").JSON()))
	all := string(CheckAll(req).AppendJSON(nil))
	got := string(ex.AppendJSON(nil))
	stripped := got
	for _, ce := range ex.Citations {
		var one []byte
		one = append(one, `,"findings":[`...)
		for i := range ce.Findings {
			if i > 0 {
				one = append(one, ',')
			}
			one = ce.Findings[i].AppendJSON(one)
		}
		one = append(one, `],"fix":`+fixJSON(ce)...)
		stripped = strings.Replace(stripped, string(one), "", 1)
	}
	if stripped != all {
		t.Errorf("explain without findings\n%s\ncheck --all\n%s", stripped, all)
	}
}

// referenceFold is fold.Reference under the folds f.
func referenceFold(s string, f Folds) string { return fold.Reference(s, fold.Set(f)) }

// checkExplanation checks every finding and fix of ex against the
// properties (spec §5): each span lies inside the text, the claim really
// holds there under the reading its kind names, and every fix re-checks
// valid and changes only what a fix may change.
func checkExplanation(t testing.TB, req *Request, ex *Explanation) {
	t.Helper()
	if len(ex.Citations) != len(req.Citations) {
		t.Fatalf("%d explanations for %d citations", len(ex.Citations), len(req.Citations))
	}
	c := NewChecker(req)
	for k := range req.Citations {
		cit := &req.Citations[k]
		o, ce := ex.All.Citations[k], ex.Citations[k]
		if o.Valid() {
			if len(ce.Findings) != 0 || ce.Fix != nil {
				t.Errorf("citation %d holds but has findings %v fix %v", k, ce.Findings, ce.Fix)
			}
			continue
		}
		j, _ := c.lookup(cit)
		if j < 0 {
			if len(ce.Findings) != 0 || ce.Fix != nil {
				t.Errorf("citation %d has no source but findings %v", k, ce.Findings)
			}
			continue
		}
		text := req.Sources[j].Text
		runes := []rune(text)
		claim := claimOf(cit)
		for i, f := range ce.Findings {
			if i > 0 && ce.Findings[i-1].Kind > f.Kind {
				t.Errorf("citation %d: findings out of kind order", k)
			}
			if f.Start < 0 || f.Start > f.End || f.End > len(runes) {
				t.Errorf("citation %d: %s span [%d,%d) outside the text of %d", k, f.Kind, f.Start, f.End, len(runes))
				continue
			}
			at := string(runes[f.Start:f.End])
			switch f.Kind {
			case FindingElsewhere:
				if at != claim || f.Occurrences != bruteCount(text, claim) {
					t.Errorf("citation %d: elsewhere %q at [%d,%d), %d occurrences of %d", k, at, f.Start, f.End, f.Occurrences, bruteCount(text, claim))
				}
			case FindingOffsetUnits:
				if at != claim {
					t.Errorf("citation %d: offset_units reads %q", k, at)
				}
				count := func(cp int) int {
					s := string(runes[:cp])
					if f.Units == UnitsUTF8 {
						return len(s)
					}
					return len(utf16.Encode([]rune(s)))
				}
				if cit.Selector.Type == PositionSelector {
					if count(f.Start) != cit.Selector.Start || count(f.End) != cit.Selector.End {
						t.Errorf("citation %d: %s reading of [%d,%d) is not [%d,%d)", k, f.Units, cit.Selector.Start, cit.Selector.End, f.Start, f.End)
					}
				} else if count(f.Start+utf8.RuneCountInString(cit.Selector.Prefix)) != cit.ClaimedStart {
					t.Errorf("citation %d: %s reading of claimed_start %d is not %d", k, f.Units, cit.ClaimedStart, f.Start)
				}
			case FindingNormalized:
				if at == claim || f.SourceText != at || f.Folds == 0 || referenceFold(at, f.Folds) != referenceFold(claim, f.Folds) {
					t.Errorf("citation %d: normalized %v: %q vs %q", k, f.Folds.Names(), at, claim)
				}
				for i := range fold.Count {
					if g := Folds(1 << i); f.Folds&g != 0 && referenceFold(at, f.Folds&^g) == referenceFold(claim, f.Folds&^g) {
						t.Errorf("citation %d: folds %v are not minimal: %s can go", k, f.Folds.Names(), g.Names()[0])
					}
				}
			case FindingElided:
				parts := elisionParts(claim)
				if len(parts) != len(f.Parts) || f.SourceText != at {
					t.Errorf("citation %d: elided parts %v of %q", k, f.Parts, claim)
					break
				}
				// Each part reads, under the finding's folds, as the
				// claim's passage, the parts in order; the folds are
				// minimal: none can go for every part.
				prev := f.Start
				texts := make([]string, len(f.Parts))
				for i, p := range f.Parts {
					if p.Start < prev || p.End > f.End || p.Start > p.End {
						t.Errorf("citation %d: elided part %d %v out of order", k, i, p)
						break
					}
					texts[i] = string(runes[p.Start:p.End])
					if f.Folds == 0 && texts[i] != parts[i] || f.Folds != 0 && referenceFold(texts[i], f.Folds) != referenceFold(parts[i], f.Folds) {
						t.Errorf("citation %d: elided part %d %v reads %q, not %q under %v", k, i, p, texts[i], parts[i], f.Folds.Names())
					}
					prev = p.End
				}
				for i := range fold.Count {
					g := Folds(1 << i)
					if f.Folds&g == 0 {
						continue
					}
					needed := false
					for n := range parts {
						needed = needed || referenceFold(texts[n], f.Folds&^g) != referenceFold(parts[n], f.Folds&^g)
					}
					if !needed {
						t.Errorf("citation %d: elided folds %v are not minimal: %s can go", k, f.Folds.Names(), g.Names()[0])
					}
				}
				if f.Folds != 0 && slices.Equal(texts, parts) {
					t.Errorf("citation %d: elided folds %v for parts found exactly", k, f.Folds.Names())
				}
				if f.Parts[0].Start != f.Start || f.Parts[len(f.Parts)-1].End != f.End {
					t.Errorf("citation %d: elided span [%d,%d) is not its parts'", k, f.Start, f.End)
				}
			case FindingDisambiguate:
				sel := cit.Selector
				if (f.Prefix == nil) == (f.Suffix == nil) || at != claim {
					t.Errorf("citation %d: disambiguate %+v", k, f)
					break
				}
				if f.Prefix != nil {
					sel.Prefix = *f.Prefix
				} else {
					sel.Suffix = *f.Suffix
				}
				e := f.Start + utf8.RuneCountInString(cit.Selector.Prefix)
				anchor := sel.Prefix + sel.Exact + sel.Suffix
				if !strings.HasSuffix(sel.Prefix, cit.Selector.Prefix) || !strings.HasPrefix(sel.Suffix, cit.Selector.Suffix) ||
					bruteCount(text, anchor) != 1 || !strings.HasPrefix(string(runes[e:]), sel.Exact+sel.Suffix) ||
					!strings.HasSuffix(string(runes[:e]), sel.Prefix) {
					t.Errorf("citation %d: disambiguate %+v does not leave the match at %d alone", k, f, e)
				}
			case FindingPartial:
				if f.NotSearched != nil {
					// The budget ran out: the last finding, no fix, the
					// kinds in order once each; an empty span unless the
					// leading part was searched (spec §5.8).
					if i != len(ce.Findings)-1 || ce.Fix != nil || !slices.IsSorted(f.NotSearched) ||
						len(slices.Compact(slices.Clone(f.NotSearched))) != len(f.NotSearched) {
						t.Errorf("citation %d: not searched %+v, fix %v", k, f, ce.Fix)
					}
					if slices.Contains(f.NotSearched, FindingPartial) || f.Length == 0 {
						if f.Length != 0 || f.Start != 0 || f.End != 0 {
							t.Errorf("citation %d: not searched, yet a leading part %+v", k, f)
						}
						break
					}
				}
				cr := []rune(claim)
				if f.Length <= 0 || f.Length >= len(cr) || f.End-f.Start != f.Length || at != string(cr[:f.Length]) ||
					bruteCount(text, string(cr[:f.Length+1])) != 0 {
					t.Errorf("citation %d: partial %+v of %q", k, f, claim)
				}
			default:
				t.Errorf("citation %d: kind %d", k, f.Kind)
			}
		}
		if ce.Fix != nil {
			checkFix(t, req, k, ce.Fix)
		}
	}
}

// checkFix checks that fix keeps what the citation claims and re-checks
// valid in place of citation k.
func checkFix(t testing.TB, req *Request, k int, fix *Citation) {
	t.Helper()
	cit := &req.Citations[k]
	if fix.CitationID != cit.CitationID || fix.SourceID != cit.SourceID || fix.Version != cit.Version ||
		fix.Quote != cit.Quote || fix.Selector.Exact != cit.Selector.Exact || fix.Selector.Type != cit.Selector.Type ||
		!strings.HasSuffix(fix.Selector.Prefix, cit.Selector.Prefix) || !strings.HasPrefix(fix.Selector.Suffix, cit.Selector.Suffix) {
		t.Errorf("citation %d: fix %+v rewrites the claim of %+v", k, fix, cit)
	}
	fixed := *req
	fixed.Citations = slices.Clone(req.Citations)
	fixed.Citations[k] = *fix
	if d := NewChecker(&fixed).Citation(k); d != nil {
		t.Errorf("citation %d: the fix %s fails: %v", k, fix.AppendJSON(nil), d.Reason)
	}
}

// bruteCount counts the occurrences of pat in text, overlapping ones
// included, one code point at a time.
func bruteCount(text, pat string) int {
	n := 0
	for i := 0; i <= len(text); i++ {
		if (i == len(text) || utf8.RuneStart(text[i])) && strings.HasPrefix(text[i:], pat) {
			n++
		}
	}
	return n
}

// TestExplainLongClaimsFoldedPieceByPiece: a claim longer than a piece is
// looked for by its first piece, folded, and then compared whole where
// that piece occurs (or looked for afresh when it occurs more than
// normalizedProbed times): it is found under folds wherever it holds, and
// a claim whose first piece occurs but whose rest does not is not.
func TestExplainLongClaimsFoldedPieceByPiece(t *testing.T) {
	sentence := func(k int) string {
		return fmt.Sprintf("The “%d-th” committee’s report—long awaited—found that the budget’s figures were sound. ", k)
	}
	var passage strings.Builder
	for k := range 8 {
		passage.WriteString(sentence(k))
	}
	body := passage.String() // about 700 bytes: three pieces
	retyped := strings.NewReplacer("“", `"`, "”", `"`, "’", "'", "—", "-").Replace(body)
	head := body[:len(body)/2]                            // holds the claim's whole first piece
	filler := strings.Repeat("Nothing to see here. ", 40) // no curly marks, no claim
	tests := []struct {
		name   string
		before string // the text before the passage
		claim  string
		found  bool
	}{
		{"a long retyped claim holds under typography", filler, retyped, true},
		{"its first piece occurring a few times before it", strings.Repeat(head+"Then nothing. ", 3), retyped, true},
		{"its first piece occurring more often than kept", strings.Repeat(head+"Then nothing. ", normalizedProbed+2), retyped, true},
		{"a claim whose first piece occurs but not the rest", filler, retyped[:len(retyped)/2] + strings.Repeat("but its ending was invented. ", 10), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text := tc.before + body + filler
			_, ex := explainOne(t, text, Q(strings.TrimSpace(tc.claim)).JSON())
			var got []Finding
			for _, f := range ex.Citations[0].Findings {
				if f.Kind == FindingNormalized {
					got = append(got, f)
				}
			}
			if !tc.found {
				if len(got) > 0 {
					t.Fatalf("normalized findings for a claim that holds nowhere: %+v", got)
				}
				return
			}
			start := utf8.RuneCountInString(tc.before)
			end := start + utf8.RuneCountInString(strings.TrimSpace(body))
			if len(got) != 1 || got[0].Start != start || got[0].End != end || got[0].Folds != FoldTypography {
				t.Fatalf("normalized findings %+v, want one at [%d, %d) under typography", got, start, end)
			}
		})
	}
}

// TestExplainCountsManyShortQuotesAtOnceAsOneByOne: a request with
// shortQuotesAtOnce short quotes or more of one source has them counted
// in one pass before they are explained; every citation's findings and
// fix are those it gets explained alone. The quotes: common and rare
// letters, words, one absent, multi-byte ones, one at the text's very end.
func TestExplainCountsManyShortQuotesAtOnceAsOneByOne(t *testing.T) {
	text := testkit.NewCorpus(21).Prose(6<<10) + " naïve é."
	quotes := []string{"e", "q", "th", "the", "the ", " of", "zzzz", "é", "ï", "é.", ".", "\n", "a"}
	var cits []string
	for k, q := range quotes {
		cits = append(cits, withID(fmt.Sprint("q", k), P(k+1, k+1+utext.RuneCount(q), q).JSON()))
	}
	req, ex := explainOne(t, text, cits...)
	e := newExplainer(req)
	e.countShortQuotes(checkAll(e.c))
	s := e.c.text(0).Searcher()
	for k, q := range quotes {
		if ok := s.Counted(q); ok == ex.All.Citations[k].Valid() {
			t.Fatalf("%q counted at once: %v; its citation holds: %v", q, ok, !ok)
		}
	}
	for k, c := range cits {
		_, alone := explainOne(t, text, c)
		if got, want := findingsJSON(ex.Citations[k])+fixJSON(ex.Citations[k]), findingsJSON(alone.Citations[0])+fixJSON(alone.Citations[0]); got != want {
			t.Errorf("%q among many: %s\nalone: %s", quotes[k], got, want)
		}
	}
}

// A source costly to fold is read as a skeleton first, which changes
// what explaining costs and nothing else: every finding is the one
// explaining without skeletons gives. Passages of a text of many scripts,
// retyped as each fold forgives, each cited after a fabricated claim that
// has the skeleton made; most of them hold under the folds.
func TestSkeletonChangesNoFinding(t *testing.T) {
	t.Parallel()
	c := testkit.NewCorpus(45)
	text := c.Unicode(64 << 10)
	cps := []rune(text)
	fabricated := "\u05D0\u05D1 \u30A2\u30A4 x\u0301y\u0302 \U0001D400\U0001D401"
	retypes := []func(string) string{
		norm.NFD.String, norm.NFKC.String, strings.ToUpper,
		func(s string) string { return strings.ReplaceAll(s, " ", "\u00A0\n") },
		func(s string) string { return s[:len(s)/2] + "\u0301" + s[len(s)/2:] }, // a mark added: holds nowhere
	}
	tried, normalized := 0, 0
	for p := 0; p+40 < len(cps) && tried < 100; p += len(cps) / 41 {
		passage := string(cps[p : p+30])
		for _, retype := range retypes {
			claim := retype(passage)
			if claim == passage || !utf8.ValidString(claim) {
				continue
			}
			tried++
			req := mustDecode(t, string(testkit.Request{Sources: []testkit.Source{testkit.NewSource("s", "v1", text)},
				Citations: []testkit.Citation{
					testkit.PositionCitation("fabricated", "s", "v1", 0, utext.RuneCount(fabricated), fabricated),
					testkit.PositionCitation("retyped", "s", "v1", p, p+utext.RuneCount(claim), claim),
				}}.Body()))
			got, want := explainSkeletons(req), explainPlain(req)
			if !reflect.DeepEqual(got.Citations, want.Citations) {
				t.Fatalf("%q at %d: with the skeleton %+v, without %+v", claim, p, got.Citations, want.Citations)
			}
			for _, f := range got.Citations[1].Findings {
				if f.Kind == FindingNormalized {
					normalized++
					break
				}
			}
		}
	}
	if tried < 100 || normalized < tried/2 {
		t.Fatalf("%d retyped passages, %d with a normalized finding", tried, normalized)
	}
}
