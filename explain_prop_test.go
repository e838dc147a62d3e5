package citecheck

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/citecheck/citecheck/internal/fold"
	"github.com/citecheck/citecheck/internal/testkit"
	"github.com/citecheck/citecheck/internal/utext"
)

// explainText is testkit.FoldText.
func explainText(r *rand.Rand, tokens int) string { return testkit.FoldText(r, tokens) }

// variant is testkit.Variant with the reference folds.
func variant(r *rand.Rand, s string) string { return testkit.Variant(r, s, referenceVariants) }

// referenceVariants are the readings testkit.Variant retypes by.
var referenceVariants = [3]func(string) string{
	func(s string) string { return referenceFold(s, FoldTypography) },
	func(s string) string { return referenceFold(s, FoldWhitespace|FoldCase) },
	func(s string) string { return referenceFold(s, FoldNFKC) },
}

// offsetIn returns code point offset cp of text as code points, UTF-16
// units or UTF-8 bytes.
func offsetIn(r *rand.Rand, text string, cp int) int {
	s := string([]rune(text)[:cp])
	switch r.IntN(3) {
	case 0:
		return len(utf16.Encode([]rune(s)))
	case 1:
		return len(s)
	}
	return cp
}

// randomCitation cites a random stretch of text, as a position or a quote
// citation, in a variant and with offsets in some unit.
func randomCitation(r *rand.Rand, id, text string) Citation {
	rs := []rune(text)
	a := r.IntN(len(rs))
	b := a + 1 + r.IntN(min(len(rs)-a, 24))
	claim := variant(r, string(rs[a:b]))
	if claim == "" {
		claim = string(rs[a:b])
	}
	c := Citation{CitationID: id, SourceID: "s", Version: "v1"}
	if r.IntN(2) == 0 {
		c.Selector = Selector{Type: PositionSelector, Start: offsetIn(r, text, a), End: offsetIn(r, text, b)}
		c.Quote = claim
		return c
	}
	c.Selector = Selector{Type: QuoteSelector, Exact: claim}
	if r.IntN(3) == 0 && a > 0 {
		c.Selector.Prefix = string(rs[max(0, a-1-r.IntN(3)):a])
	}
	if r.IntN(3) == 0 && b < len(rs) {
		c.Selector.Suffix = string(rs[b:min(len(rs), b+1+r.IntN(3))])
	}
	if r.IntN(2) == 0 {
		c.ClaimedStart, c.HasClaimedStart = offsetIn(r, text, a), true
	}
	return c
}

// TestExplainProperties: over random texts made of the characters the
// folds are about and citations of them as citers get them wrong, every
// finding lies inside its text and holds under its reading, and every fix
// re-checks valid (checkExplanation).
func TestExplainProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	var seen [findingKindCount]int
	fixes := 0
	for i := range 400 {
		text := explainText(r, 5+r.IntN(60))
		req := &Request{Sources: []Source{{SourceID: "s", Version: "v1", Text: text}}}
		for k := range 8 {
			req.Citations = append(req.Citations, randomCitation(r, "c"+string(rune('a'+k)), text))
		}
		ex := Explain(req)
		checkExplanation(t, req, ex)
		if t.Failed() {
			t.Fatalf("round %d, text %q", i, text)
		}
		for _, ce := range ex.Citations {
			for _, f := range ce.Findings {
				seen[f.Kind]++
			}
			if ce.Fix != nil {
				fixes++
			}
		}
	}
	// The test is only as good as what it reaches: every kind, and fixes.
	for k, n := range seen {
		if n < 10 {
			t.Errorf("only %d %s findings", n, FindingKind(k))
		}
	}
	if fixes < 50 {
		t.Errorf("only %d fixes", fixes)
	}
	t.Logf("findings by kind %v, fixes %d", seen, fixes)
}

// TestExplainFabricatedQuotes: a quote made of the source's own words in
// another order, which holds under no fold, gets no normalized,
// offset_units or elided finding, and no fix.
func TestExplainFabricatedQuotes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the committee approved the annual budget after a long and heated debate on Tuesday evening")
	text := strings.Join(words, " ") + "."
	tried := 0
	for range 300 {
		w := append([]string(nil), words[r.IntN(4):]...)
		w = w[:2+r.IntN(len(w)-2)]
		r.Shuffle(len(w), func(i, j int) { w[i], w[j] = w[j], w[i] })
		claim := strings.Join(w, " ")
		if strings.Contains(referenceFold(text, Folds(fold.All)), referenceFold(claim, Folds(fold.All))) {
			continue // the shuffle kept an order the text has
		}
		tried++
		req := &Request{Sources: []Source{{SourceID: "s", Version: "v1", Text: text}}, Citations: []Citation{
			{CitationID: "p", SourceID: "s", Version: "v1", Selector: Selector{Type: PositionSelector, Start: 0, End: len(claim)}, Quote: claim},
			{CitationID: "q", SourceID: "s", Version: "v1", Selector: Selector{Type: QuoteSelector, Exact: claim}},
			{CitationID: "r", SourceID: "s", Version: "v1", Selector: Selector{Type: QuoteSelector, Exact: strings.ToUpper(claim[:1]) + claim[1:]}, ClaimedStart: 3, HasClaimedStart: true},
		}}
		ex := Explain(req)
		checkExplanation(t, req, ex)
		for k, ce := range ex.Citations {
			for _, f := range ce.Findings {
				if f.Kind == FindingNormalized || f.Kind == FindingOffsetUnits || f.Kind == FindingElided {
					t.Errorf("fabricated %q (citation %d) got %s", claim, k, f.AppendJSON(nil))
				}
			}
			if ce.Fix != nil {
				t.Errorf("fabricated %q (citation %d) got a fix", claim, k)
			}
		}
	}
	if tried < 100 {
		t.Fatalf("only %d fabricated quotes tried", tried)
	}
}

// FuzzExplain: whatever the text and citation, the explanation's findings
// lie inside the text and hold under their readings, and every fix
// re-checks valid.
func FuzzExplain(f *testing.F) {
	f.Add("She said “the results are final” and left.", `"the results are final"`, 9, 32, uint8(0))
	f.Add("Launch day 🚀🚀 went well. The rocket reached orbit.", "rocket", 31, 37, uint8(0))
	f.Add("Launch day 🚀🚀 went well. The rocket reached orbit.", "rocket", 31, 0, uint8(5))
	f.Add("xa1-ana-xa2-ana-ya3", "ana", 12, 0, uint8(1))
	f.Add("the ﬁrst\nﬂoor", "first floor", 0, 0, uint8(1))
	f.Add("le cafe\u0301 du coin", "café … coin", 0, 0, uint8(1))
	f.Add("to be or not to be", "to be", 13, 14, uint8(0))
	f.Add("the quick brown fox jumps over the lazy dog", "the quick brown", 3, 9, uint8(16))
	f.Add("ΑΒΓ אְב アイ x́y 𝐀𝐁", "αβγ אְב", 0, 7, uint8(0))
	// Elided passages under folds: retyped; a passage that starts inside
	// what a ligature reads as; passages out of order.
	f.Add("La liberté consiste à faire tout ce qui ne nuit pas à autrui", "la liberté  consiste … NUIT pas", 0, 0, uint8(9))
	f.Add("the ﬁrst ﬁ and the ﬁnal ﬂoor", "rst … i and … nal floor", 0, 0, uint8(9))
	f.Add("ﬁﬁ ﬁ xy", "i ... xy", 4, 6, uint8(0))
	f.Add("Les hommes naissent libres", "libres … les hommes", 0, 0, uint8(9))
	f.Fuzz(func(t *testing.T, text, claim string, a, b int, mode uint8) {
		if text == "" || claim == "" || !utf8.ValidString(text) || !utf8.ValidString(claim) ||
			len(text) > 4096 || len(claim) > 256 || a < 0 || b < 0 {
			return
		}
		c := Citation{CitationID: "c", SourceID: "s", Version: "v1"}
		if mode%2 == 0 {
			c.Selector = Selector{Type: PositionSelector, Start: a, End: b}
			c.Quote = claim
		} else {
			// mode's bits choose a prefix and a suffix cut from the claim's
			// ends, and whether a is a claimed_start.
			c.Selector = Selector{Type: QuoteSelector, Exact: claim}
			rs := []rune(claim)
			if mode&2 != 0 && len(rs) > 2 {
				c.Selector.Prefix, c.Selector.Exact = string(rs[:1]), string(rs[1:])
				rs = rs[1:]
			}
			if mode&4 != 0 && len(rs) > 2 {
				c.Selector.Exact, c.Selector.Suffix = string(rs[:len(rs)-1]), string(rs[len(rs)-1:])
			}
			if mode&8 == 0 {
				c.ClaimedStart, c.HasClaimedStart = a, true
			}
		}
		req := &Request{Sources: []Source{{SourceID: "s", Version: "v1", Text: text}}, Citations: []Citation{c}}
		ex := Explain(req)
		checkExplanation(t, req, ex)
		// The skeleton (skeleton.go) changes the cost, not the findings.
		if plain, sk := explainPlain(req), explainSkeletons(req); !reflect.DeepEqual(sk.Citations, plain.Citations) {
			t.Fatalf("with the skeleton %+v, without %+v", sk.Citations, plain.Citations)
		}
		if mode&16 != 0 {
			// Many short quotes (pieces of the claim, 1 to 4 bytes), which
			// Explain counts at once: each explained as it is alone.
			for k := 0; k < len(claim) && len(req.Citations) <= shortQuotesAtOnce; k++ {
				q := claim[k:min(len(claim), k+1+k%4)]
				if utf8.ValidString(q) {
					req.Citations = append(req.Citations, Citation{CitationID: fmt.Sprint("q", k), SourceID: "s", Version: "v1", Quote: q,
						Selector: Selector{Type: PositionSelector, Start: a + k, End: a + k + utext.RuneCount(q)}})
				}
			}
			ex := Explain(req)
			checkExplanation(t, req, ex)
			for k, cit := range req.Citations {
				alone := Explain(&Request{Sources: req.Sources, Citations: []Citation{cit}})
				if got, want := findingsJSON(ex.Citations[k])+fixJSON(ex.Citations[k]), findingsJSON(alone.Citations[0])+fixJSON(alone.Citations[0]); got != want {
					t.Fatalf("%q among %d: %s\nalone: %s", cit.Quote, len(req.Citations), got, want)
				}
			}
		}
	})
}

// explainPlain and explainSkeletons are Explain without and with the
// skeletons, on a budget no test request exhausts: the skeletons change
// the cost, so under the default budget what is cut (spec §5.8).
func explainPlain(req *Request) *Explanation {
	ex, _ := explain(context.Background(), req, false, 1<<50, explainWorkPerKiB)
	return ex
}

func explainSkeletons(req *Request) *Explanation {
	ex, _ := explain(context.Background(), req, true, 1<<50, explainWorkPerKiB)
	return ex
}
