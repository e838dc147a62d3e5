package testkit

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The builder writes exactly the bytes a test means: members in the
// contract's order, absent members absent, empty ones written.
func TestBodyWritesMembersInOrderAndOnlyThoseSet(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		got  string
		want string
	}{
		{"a position citation", string(Request{
			Sources:   []Source{NewSource("s", "v1", "abc")},
			Citations: []Citation{PositionCitation("p", "s", "v1", 1, 2, "b")},
		}.Body()), `{"sources":[{"source_id":"s","version":"v1","text":"abc"}],"citations":[{"citation_id":"p","source_id":"s","version":"v1","selector":{"type":"TextPositionSelector","start":1,"end":2},"quote":"b"}]}`},
		{"a bare quote citation has no prefix, suffix or claimed_start",
			QuoteCitation("q", "s", "v1", "x").JSON(),
			`{"citation_id":"q","source_id":"s","version":"v1","selector":{"type":"TextQuoteSelector","exact":"x"}}`},
		{"an empty prefix is written; context and claim in the contract's order",
			QuoteCitation("q", "s", "v1", "x").WithClaimedStart(3).WithSuffix("z").WithPrefix("").JSON(),
			`{"citation_id":"q","source_id":"s","version":"v1","selector":{"type":"TextQuoteSelector","exact":"x","prefix":"","suffix":"z"},"claimed_start":3}`},
		{"raw selector members and raw members after",
			Citation{CitationID: "p", SourceID: "s", Version: "v1", RawSelector: `"start":"4"`, RawAfter: `,"note":1`}.JSON(),
			`{"citation_id":"p","source_id":"s","version":"v1","selector":{"start":"4"},"note":1}`},
		{"strings are escaped minimally, & < > as they are",
			NewSource("a&b", "<v>", "\"\\\n\u2028").JSON(),
			`{"source_id":"a&b","version":"<v>","text":"\"\\\n` + "\u2028" + `"}`},
		{"raw bodies join raw items", RawBody(JoinN(2, func(i int) string { return `"s"` }), ""),
			`{"sources":["s","s"],"citations":[]}`},
	} {
		if c.got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, c.got, c.want)
		}
	}
}

func TestReadLiteralKeepsIntegersAsWritten(t *testing.T) {
	t.Parallel()
	r, err := ReadLiteral([]byte(`{"sources":[],"citations":[{"citation_id":"p","selector":{"type":"t","start":4.0,"end":40e-1},"claimed_start":1e400}]}`))
	if err != nil {
		t.Fatal(err)
	}
	s := r.Citations[0].Selector
	if *s.Start != "4.0" || *s.End != "40e-1" || *r.Citations[0].ClaimedStart != "1e400" || s.Exact != nil || r.Citations[0].Quote != nil {
		t.Fatalf("got %+v", r.Citations[0])
	}
}

// The corpus is the same for the same seed, and each kind of text has the
// property its callers rely on.
func TestCorpusIsDeterministicAndShaped(t *testing.T) {
	t.Parallel()
	a, b := NewCorpus(7), NewCorpus(7)
	if a.Prose(5000) != b.Prose(5000) || a.Unicode(5000) != b.Unicode(5000) {
		t.Fatal("the same seed gave different text")
	}
	for _, n := range []int{1, 100, 4097} {
		c := NewCorpus(uint64(n))
		if p := c.Prose(n); len(p) != n || !utf8.ValidString(p) {
			t.Errorf("Prose(%d) is %d bytes, valid %v", n, len(p), utf8.ValidString(p))
		}
		if u := c.Unicode(n); len(u) > n || len(u) < n-3 || !utf8.ValidString(u) {
			t.Errorf("Unicode(%d) is %d bytes", n, len(u))
		}
	}
	ascii := NewCorpus(1)
	ascii.ASCII = true
	if p := ascii.Prose(20000); utf8.RuneCountInString(p) != len(p) {
		t.Error("ASCII prose has a multi-byte character")
	}
	if p := NewCorpus(1).Prose(20000); !strings.ContainsAny(p, "\u2019\u201c") {
		t.Error("prose has no curly quotes or apostrophes")
	}
}

// PickSpan and PickAnchor give citations that hold on their source.
func TestPickedCitationsHold(t *testing.T) {
	t.Parallel()
	c := NewCorpus(3)
	src := NewSource("s", "v1", c.Unicode(3000))
	r := []rune(src.Text)
	for i := range 50 {
		sp := PickSpan(c.Rand, src, "p", [2]int{5, 40})
		if got := string(r[*sp.Selector.Start:*sp.Selector.End]); got != *sp.Quote {
			t.Fatalf("span %d: quote %q, text %q", i, *sp.Quote, got)
		}
		an := PickAnchor(c.Rand, src, "q", AnchorShape{Exact: [2]int{3, 10}, Prefix: [2]int{0, 4}, Suffix: [2]int{0, 4}, ClaimedStart: 1})
		full := deref(an.Selector.Prefix) + *an.Selector.Exact + deref(an.Selector.Suffix)
		if CountOverlapping(src.Text, full) != 1 {
			t.Fatalf("anchor %d: %q occurs %d times", i, full, CountOverlapping(src.Text, full))
		}
		if p := *an.ClaimedStart; string(r[p:p+utf8.RuneCountInString(*an.Selector.Exact)]) != *an.Selector.Exact {
			t.Fatalf("anchor %d: claimed_start %d does not hold exact", i, p)
		}
	}
	if n := CountOverlapping("aaaa", "aa"); n != 3 {
		t.Fatalf("CountOverlapping(aaaa, aa) = %d", n)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func TestConformanceIsReadFromTheModule(t *testing.T) {
	t.Parallel()
	cases := Conformance(t)
	if len(cases) < 50 {
		t.Fatalf("%d cases", len(cases))
	}
	for _, c := range cases {
		if c.Name == "" || len(c.Expect) == 0 {
			t.Fatalf("case %+v lacks a name or an expectation", c.Name)
		}
	}
}

// Every hostile family is the same for the same seed and shape, within
// the contract's limits (body, sources, citations, quotes, contexts,
// scan units), and has citations; the largest fills most of the body.
func TestHostileRequestIsDeterministicAndWithinTheLimits(t *testing.T) {
	t.Parallel()
	for _, fam := range HostileFamilies {
		for _, shape := range []HostileShape{{}, {BodyBytes: 8 << 10, TextBytes: 2 << 10, Block: 50, Citations: 9}} {
			r := HostileRequest(fam, 5, shape)
			body := r.Body()
			if string(body) != string(HostileRequest(fam, 5, shape).Body()) {
				t.Fatalf("%s: two bodies for one seed", fam)
			}
			if len(body) > hostileBodyBytes || len(r.Sources) > hostileSources || len(r.Citations) > hostileCitations || len(r.Citations) == 0 {
				t.Fatalf("%s %+v: %d bytes, %d sources, %d citations", fam, shape, len(body), len(r.Sources), len(r.Citations))
			}
			if shape.BodyBytes == 0 && len(body) < hostileBodyBytes/10 {
				t.Fatalf("%s: only %d bytes", fam, len(body))
			}
			scan := 0
			for _, c := range r.Citations {
				for _, s := range []*string{c.Quote, c.Selector.Exact} {
					if s != nil && (len(*s) > hostileQuoteBytes || !utf8.ValidString(*s) || *s == "") {
						t.Fatalf("%s: quote or exact of %d bytes", fam, len(*s))
					}
				}
				for _, s := range []*string{c.Selector.Prefix, c.Selector.Suffix} {
					if s != nil && len(*s) > hostileContextByte {
						t.Fatalf("%s: context of %d bytes", fam, len(*s))
					}
				}
				if c.Selector.Type == QuoteSelector {
					for _, s := range r.Sources {
						if s.SourceID == c.SourceID {
							scan += utf16Len(s.Text)
						}
					}
				}
			}
			if scan > hostileScanUnits {
				t.Fatalf("%s: %d scan units", fam, scan)
			}
			for _, s := range r.Sources {
				if len(s.Text) > hostileTextBytes || !utf8.ValidString(s.Text) {
					t.Fatalf("%s: a source of %d bytes", fam, len(s.Text))
				}
			}
		}
	}
}
