package citecheck

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/citecheck/citecheck/internal/testkit"
)

// explainOneByOne is what ExplainEachContext must answer for citation k of
// req: ExplainContext of a request holding that citation and its source
// alone (nil when it has no source).
func explainOneByOne(t *testing.T, req *Request, k int) CitationExplanation {
	t.Helper()
	cit := req.Citations[k]
	j, _ := NewChecker(req).lookup(&cit)
	if j < 0 {
		return CitationExplanation{Findings: []Finding{}}
	}
	ex, err := ExplainContext(context.Background(), &Request{Sources: []Source{req.Sources[j]}, Citations: []Citation{cit}})
	if err != nil {
		t.Fatal(err)
	}
	return ex.Citations[0]
}

// TestExplainEachVerdictDoesNotDependOnNeighbours: each of sixty
// upper-cased quotations of one large source in one request is explained
// as it is alone, normalized under case with nothing left unsearched
// (issue #34: one shared budget explained 1 of them and cut 59).
func TestExplainEachVerdictDoesNotDependOnNeighbours(t *testing.T) {
	req := upperCasedQuotations(60)
	ex, err := ExplainEachContext(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for k := range req.Citations {
		fs := ex.Citations[k].Findings
		if len(fs) != 1 || fs[0].Kind != FindingNormalized || fs[0].Folds&FoldCase == 0 {
			t.Fatalf("citation %d: findings %+v, want one normalized under case", k, fs)
		}
		if want := explainOneByOne(t, req, k); !reflect.DeepEqual(ex.Citations[k], want) {
			t.Fatalf("citation %d: in the batch %+v, alone %+v", k, ex.Citations[k], want)
		}
	}
}

// upperCasedQuotations is a request of n quotations of 40 to 80 code
// points of a 500 KB source, each upper-cased (so found nowhere exactly).
func upperCasedQuotations(n int) *Request {
	return upperCasedRequest(34, testkit.NewCorpus(34).Prose(500<<10), n)
}

// TestExplainEachSharesEachSourceReadings: ExplainEachContext builds each
// source's readings (its folding, its skeleton, its UTF-16 offsets) once
// per call, however many of its citations need them, where a request a
// citation builds them once a citation; and what it answers is what the
// requests of one citation answer, cuts included.
func TestExplainEachSharesEachSourceReadings(t *testing.T) {
	cyrillic := cyrillicProse(testkit.NewCorpus(38), 64<<10)
	// Position citations counting UTF-8 bytes (quote_mismatch), each
	// read under the other units: the UTF-16 offsets.
	byBytes := &Request{Sources: []Source{{SourceID: "s", Version: "v1", Text: cyrillic}}}
	for i := range 12 {
		start := len(cyrillic)/2 + 64*i
		for !utf8.RuneStart(cyrillic[start]) {
			start++
		}
		q := string([]rune(cyrillic[start:])[:30])
		byBytes.Citations = append(byBytes.Citations, Citation{CitationID: fmt.Sprint("b", i), SourceID: "s", Version: "v1",
			Quote: q, Selector: Selector{Type: PositionSelector, Start: start, End: start + len(q)}})
	}
	for _, tc := range []struct {
		name string
		req  *Request
		// The readings built by the shared call, a source each, and
		// alone, a citation each.
		shared, alone readingsBuilt
	}{
		{"near_miss_cyrillic", upperCasedRequest(39, cyrillic, 24), readingsBuilt{1, 1, 0}, readingsBuilt{24, 24, 0}},
		{"near_miss_ascii", upperCasedRequest(40, testkit.NewCorpus(40).Prose(64<<10), 24), readingsBuilt{1, 0, 0}, readingsBuilt{24, 0, 0}},
		{"utf8_offsets", byBytes, readingsBuilt{0, 0, 1}, readingsBuilt{0, 0, 12}},
		// 16 sources of one letter: every quotation folds its own.
		{"unmarked_short", unmarkedShortRequest(64), readingsBuilt{16, 0, 0}, readingsBuilt{64, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shared, sb, err := explainEach(context.Background(), tc.req, true)
			if err != nil {
				t.Fatal(err)
			}
			alone, ab, err := explainEach(context.Background(), tc.req, false)
			if err != nil {
				t.Fatal(err)
			}
			if *sb != tc.shared {
				t.Errorf("built %+v sharing, want %+v", *sb, tc.shared)
			}
			if *ab != tc.alone {
				t.Errorf("built %+v alone, want %+v", *ab, tc.alone)
			}
			if !reflect.DeepEqual(shared, alone) {
				for k := range shared.Citations {
					if !reflect.DeepEqual(shared.Citations[k], alone.Citations[k]) {
						t.Fatalf("citation %d: sharing %+v, alone %+v", k, shared.Citations[k], alone.Citations[k])
					}
				}
				t.Fatal("the verdicts differ")
			}
		})
	}
}

// TestExplainNeverClaimsNotFoundForTextNotSearched: the contract's
// ExplainContext, whose budget is the request's, keeps CheckAll's
// verdicts, and a citation whose text is there (upper-cased) either has
// it found or says that the search for it was cut (partial, with
// normalized among not_searched): never a finding that reads as
// "nowhere".
func TestExplainNeverClaimsNotFoundForTextNotSearched(t *testing.T) {
	req := upperCasedQuotations(60)
	ex, b, err := explainBudgeted(context.Background(), req, true, explainWorkMin, explainWorkPerKiB)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ex.All, CheckAll(req)) {
		t.Fatal("the verdicts are not CheckAll's")
	}
	found, cut := 0, 0
	for k, ce := range ex.Citations {
		switch fs := ce.Findings; {
		case len(fs) > 0 && fs[0].Kind == FindingNormalized && fs[0].NotSearched == nil:
			found++
		case len(fs) > 0 && slices.Contains(fs[len(fs)-1].NotSearched, FindingNormalized) && ce.Fix == nil:
			cut++
		default:
			t.Fatalf("citation %d: findings %+v: neither found nor said to be cut", k, fs)
		}
	}
	checkCostRules(t, req, ex, b)
	t.Logf("%d found, %d cut (pool %d, granted %d, spent %d)", found, cut, b.Pool(), b.Granted(), b.Spent())
	if found == 0 {
		t.Fatal("none found")
	}
}

// FuzzExplainEach builds hostile requests of every family in sizes the
// fuzzer picks: ExplainEachContext keeps CheckAll's verdicts, its findings
// and fixes are right (checkExplanation), and each failing citation's
// explanation is what ExplainContext gives it alone with its source.
func FuzzExplainEach(f *testing.F) {
	for i := range testkit.HostileFamilies {
		f.Add(uint8(i), uint64(i), uint16(4<<10), uint16(300), uint8(12))
		f.Add(uint8(i), uint64(i)+7, uint16(1<<10), uint16(64), uint8(4))
	}
	f.Add(uint8(0), uint64(1), uint16(65535), uint16(65535), uint8(255))
	f.Add(uint8(3), uint64(1<<63), uint16(0), uint16(0), uint8(0))
	f.Fuzz(func(t *testing.T, family uint8, seed uint64, text, block uint16, citations uint8) {
		fam := testkit.HostileFamilies[int(family)%len(testkit.HostileFamilies)]
		shape := testkit.HostileShape{BodyBytes: 2*int(text) + 4<<10, TextBytes: int(text), Block: int(block), Citations: int(citations % 32)}
		hr := testkit.HostileRequest(fam, seed, shape)
		if len(hr.Citations) == 0 {
			t.Skip("a text too small for the family's citations")
		}
		req, derr := Decode(hr.Body())
		if derr != nil {
			t.Fatalf("%s: %v", fam, derr)
		}
		ex, err := ExplainEachContext(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ex.All, CheckAll(req)) {
			t.Fatal("the verdicts are not CheckAll's")
		}
		checkExplanation(t, req, ex)
		for k := range req.Citations {
			if ex.All.Citations[k].Valid() {
				continue
			}
			if want := explainOneByOne(t, req, k); !reflect.DeepEqual(ex.Citations[k], want) {
				t.Fatalf("%s citation %d: in the batch %+v, alone %+v", fam, k, ex.Citations[k], want)
			}
		}
	})
}
