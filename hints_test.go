package citecheck

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/citecheck/citecheck/internal/search"
	"github.com/citecheck/citecheck/internal/testkit"
)

// hintFor checks a request of c on source s/v1 holding text (and a second
// source t/v1) and returns the hint for its failing citation.
func hintFor(t *testing.T, text string, c testkit.Citation) *Suggestion {
	t.Helper()
	body := testkit.Request{Sources: []testkit.Source{testkit.NewSource("s", "v1", text), testkit.NewSource("t", "v1", "x")},
		Citations: []testkit.Citation{c}}.Body()
	req := mustDecode(t, string(body))
	res := Check(req)
	if res.Valid {
		t.Fatal("the citation holds; the test wants a failure")
	}
	s := Hint(req, res.FirstDiscrepancy)
	if s.Reason != res.Reason {
		t.Fatalf("hint for %v, result says %v", s.Reason, res.Reason)
	}
	return s
}

func str(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

func TestHint(t *testing.T) {
	t.Parallel()
	const abc = "abcdefghijklmnopqrstuvwxyz"
	tests := []struct {
		name     string
		text     string
		citation testkit.Citation
		check    func(t *testing.T, s *Suggestion)
	}{
		{"unknown source lists the source ids supplied", abc,
			testkit.QuoteCitation("c", "S", "v1", "a"),
			func(t *testing.T, s *Suggestion) {
				if strings.Join(s.SourceIDs, ",") != "s,t" {
					t.Errorf("SourceIDs %q", s.SourceIDs)
				}
			}},
		{"a mismatched quote is found where it occurs exactly", abc, P(4, 7, "xyz"),
			func(t *testing.T, s *Suggestion) {
				if s.Occurrences != 1 || len(s.Starts) != 1 || s.Starts[0] != 23 || s.Length != 3 || s.Partial != nil {
					t.Errorf("got %+v", s)
				}
			}},
		{"a reversed span's quote is found where it occurs", abc, P(7, 4, "efg"),
			func(t *testing.T, s *Suggestion) {
				if s.Occurrences != 1 || s.Starts[0] != 4 {
					t.Errorf("got %+v", s)
				}
			}},
		{"an out-of-range span's quote is found where it occurs", abc, P(20, 30, "uvw"),
			func(t *testing.T, s *Suggestion) {
				if s.Occurrences != 1 || s.Starts[0] != 20 {
					t.Errorf("got %+v", s)
				}
			}},
		{"a quote found nowhere gets its longest leading part instead", abc, P(4, 7, "efh"),
			func(t *testing.T, s *Suggestion) {
				p := s.Partial
				if s.Occurrences != 0 || p == nil || p.Length != 2 || p.Start != 4 || p.At != 6 || p.Claimed != "h" || str(p.Source) != "g" {
					t.Errorf("got %+v partial %+v", s, p)
				}
			}},
		{"the first differing character is read at the first occurrence of the leading part", strings.Repeat("a", 20), P(0, 2, "ab"),
			func(t *testing.T, s *Suggestion) {
				if s.Occurrences != 0 || s.Partial.Length != 1 || s.Partial.Claimed != "b" || str(s.Partial.Source) != "a" {
					t.Errorf("got %+v partial %+v", s, s.Partial)
				}
			}},
		{"exact not found gives the longest leading part, where, and the first differing character", abc, Q("mnoPQ"),
			func(t *testing.T, s *Suggestion) {
				p := s.Partial
				if p.Length != 3 || p.Start != 12 || p.At != 15 || p.Claimed != "P" || str(p.Source) != "p" || s.Length != 5 {
					t.Errorf("got %+v", p)
				}
			}},
		{"exact not found whose first character is nowhere has an empty leading part", abc, Q("Zebra"),
			func(t *testing.T, s *Suggestion) {
				p := s.Partial
				if p.Length != 0 || p.Start != -1 || p.At != -1 || p.Claimed != "Z" || p.Source != nil {
					t.Errorf("got %+v", p)
				}
			}},
		{"exact running past the end of the text differs at the end", "abc", Q("bcd"),
			func(t *testing.T, s *Suggestion) {
				p := s.Partial
				if p.Length != 2 || p.Start != 1 || p.At != 3 || p.Claimed != "d" || p.Source != nil {
					t.Errorf("got %+v", p)
				}
			}},
		{"the leading part counts code points, not bytes", "日本語のテキスト😀です", Q("テキスト😀だ"),
			func(t *testing.T, s *Suggestion) {
				p := s.Partial
				if p.Length != 5 || p.Start != 4 || p.At != 9 || p.Claimed != "だ" || str(p.Source) != "で" || s.Length != 6 {
					t.Errorf("got %+v", p)
				}
			}},
		{"an ambiguous anchor lists its matches and the shortest unique prefix and suffix", "xa1-ana-xa2-ana-ya3", Q("ana"),
			func(t *testing.T, s *Suggestion) {
				// "-ana-" at 3 and 11: "1-" and "-x" tell the first apart.
				if s.Occurrences != 2 || len(s.Starts) != 2 || s.Starts[0] != 4 || s.Starts[1] != 12 {
					t.Errorf("starts %+v", s)
				}
				if str(s.UniquePrefix) != "1-" || str(s.UniqueSuffix) != "-x" {
					t.Errorf("prefix %q suffix %q", str(s.UniquePrefix), str(s.UniqueSuffix))
				}
			}},
		{"overlapping ambiguous matches are all listed", "bananas", Q("ana"),
			func(t *testing.T, s *Suggestion) {
				if s.Occurrences != 2 || s.Starts[0] != 1 || s.Starts[1] != 3 || str(s.UniquePrefix) != "b" || str(s.UniqueSuffix) != "n" {
					t.Errorf("got %+v prefix %q suffix %q", s, str(s.UniquePrefix), str(s.UniqueSuffix))
				}
			}},
		{"a unique prefix extends the citation's own prefix", "q.ab.z.ab.y.ab", Q("ab").WithPrefix("."),
			func(t *testing.T, s *Suggestion) {
				// ".ab" at 1, 6 and 11: exact at 2, 7 and 12.
				if s.Occurrences != 3 || s.Starts[0] != 2 || s.Starts[1] != 7 || str(s.UniquePrefix) != "q." || str(s.UniqueSuffix) != ".z" {
					t.Errorf("got %+v prefix %q suffix %q", s, str(s.UniquePrefix), str(s.UniqueSuffix))
				}
			}},
		{"no unique prefix exists when the first match's whole past repeats", "aaaa", Q("a"),
			func(t *testing.T, s *Suggestion) {
				if s.Occurrences != 4 || s.UniquePrefix != nil || str(s.UniqueSuffix) != "aaa" {
					t.Errorf("got %+v prefix %q suffix %q", s, str(s.UniquePrefix), str(s.UniqueSuffix))
				}
			}},
		{"starts are capped at MaxHintStarts but all are counted", strings.Repeat("ab", 50), Q("ab"),
			func(t *testing.T, s *Suggestion) {
				if s.Occurrences != 50 || len(s.Starts) != MaxHintStarts {
					t.Fatalf("got %d starts of %d", len(s.Starts), s.Occurrences)
				}
				for i, p := range s.Starts {
					if p != 2*i {
						t.Errorf("start %d is %d", i, p)
					}
				}
			}},
		{"overlapping starts past the first two are not skipped", strings.Repeat("a", 12), Q("aa"),
			func(t *testing.T, s *Suggestion) {
				if s.Occurrences != 11 || len(s.Starts) != MaxHintStarts || s.Starts[7] != 7 {
					t.Errorf("got %+v", s)
				}
			}},
		{"a unique context longer than max_context_bytes is not suggested", strings.Repeat("x", 2000) + "ab" + strings.Repeat("x", 2000) + "ab" + strings.Repeat("x", 2000), Q("ab"),
			func(t *testing.T, s *Suggestion) {
				if s.UniquePrefix != nil || s.UniqueSuffix != nil {
					t.Errorf("prefix %q, suffix %q", str(s.UniquePrefix), str(s.UniqueSuffix))
				}
			}},
		{"a prefix mismatch says what the source has before exact", abc, Q("xyz").WithPrefix("v"),
			func(t *testing.T, s *Suggestion) {
				if str(s.Observed) != "w" || s.ObservedStart != 22 {
					t.Errorf("got %q at %d", str(s.Observed), s.ObservedStart)
				}
			}},
		{"a prefix mismatch at the start of the text observes what there is", abc, Q("bc").WithPrefix("XY"),
			func(t *testing.T, s *Suggestion) {
				if str(s.Observed) != "a" || s.ObservedStart != 0 {
					t.Errorf("got %q at %d", str(s.Observed), s.ObservedStart)
				}
			}},
		{"a suffix mismatch says what the source has after exact", abc, Q("mn").WithSuffix("pq"),
			func(t *testing.T, s *Suggestion) {
				if str(s.Observed) != "op" || s.ObservedStart != 14 {
					t.Errorf("got %q at %d", str(s.Observed), s.ObservedStart)
				}
			}},
		{"a position mismatch says where exact really starts", abc, Q("xyz").WithClaimedStart(22),
			func(t *testing.T, s *Suggestion) {
				if s.ResolvedStart == nil || *s.ResolvedStart != 23 || str(s.Observed) != "wxy" || s.ObservedStart != 22 {
					t.Errorf("got %+v", s)
				}
			}},
		{"a position mismatch past the end observes from the end", abc, Q("xyz").WithClaimedStart(99),
			func(t *testing.T, s *Suggestion) {
				if *s.ResolvedStart != 23 || str(s.Observed) != "" || s.ObservedStart != 26 {
					t.Errorf("got %+v", s)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.check(t, hintFor(t, tt.text, tt.citation)) })
	}
}

func TestHintNilForNoDiscrepancy(t *testing.T) {
	t.Parallel()
	if Hint(&Request{}, nil) != nil {
		t.Fatal("want nil")
	}
}

// TestHintOnConformance runs Hint on every failing conformance citation
// (CheckAll, so not only the first): it must not panic, must agree on the
// reason, and what it claims must hold in the source.
func TestHintOnConformance(t *testing.T) {
	t.Parallel()
	for _, c := range testkit.Conformance(t) {
		req, err := Decode(c.Body)
		if err != nil {
			continue
		}
		for _, o := range CheckAll(req).Citations {
			d := o.Discrepancy()
			if d == nil {
				continue
			}
			s := Hint(req, d)
			if s.Reason != o.Reason {
				t.Errorf("%s citation %d: hint reason %v, want %v", c.Name, o.CitationIndex, s.Reason, o.Reason)
			}
			cit := req.Citations[o.CitationIndex]
			var text []rune
			for _, src := range req.Sources {
				if src.SourceID == cit.SourceID && src.Version == cit.Version {
					text = []rune(src.Text)
				}
			}
			claimed := []rune(cit.Quote)
			if cit.Selector.Type == QuoteSelector {
				claimed = []rune(cit.Selector.Exact)
			}
			for _, st := range s.Starts {
				if st+len(claimed) > len(text) || string(text[st:st+len(claimed)]) != string(claimed) {
					t.Errorf("%s citation %d: start %d does not hold the claimed text", c.Name, o.CitationIndex, st)
				}
			}
			if p := s.Partial; p != nil && p.Length > 0 {
				if string(text[p.Start:p.At]) != string(claimed[:p.Length]) {
					t.Errorf("%s citation %d: partial %+v does not hold", c.Name, o.CitationIndex, p)
				}
			}
		}
	}
}

// BenchmarkHintExactNotFound measures the worst case the binary search
// meets: a long exact whose leading part nearly all occurs, in a long text.
func BenchmarkHintExactNotFound(b *testing.B) {
	text := strings.Repeat("the quick brown fox jumps over the lazy dog. ", 10000)
	exact := text[:8000] + "!"
	req, err := Decode(testkit.Request{Sources: []testkit.Source{testkit.NewSource("s", "v1", text)},
		Citations: []testkit.Citation{testkit.QuoteCitation("c", "s", "v1", exact)}}.Body())
	if err != nil {
		b.Fatal(err)
	}
	d := Check(req).FirstDiscrepancy
	b.ResetTimer()
	for b.Loop() {
		Hint(req, d)
	}
}

// A quote that an LLM got slightly wrong: Hint says how much of it the
// source has, where, and the first character that differs.
func ExampleHint() {
	req, _ := Decode([]byte(`{"sources":[{"source_id":"handbook","version":"v1",
		"text":"Equipment must be returned within 14 days of leaving."}],
		"citations":[{"citation_id":"c1","source_id":"handbook","version":"v1",
		"selector":{"type":"TextQuoteSelector","exact":"returned within 30 days"}}]}`))
	res := Check(req)
	s := Hint(req, res.FirstDiscrepancy)
	p := s.Partial
	fmt.Printf("%s: the first %d code points occur at %d; then the source has %q where exact has %q\n",
		s.Reason, p.Length, p.Start, *p.Source, p.Claimed)
	// Output: exact_not_found: the first 16 code points occur at 18; then the source has "1" where exact has "3"
}

// An anchor that matches twice: Hint lists the matches and the shortest
// prefix and suffix that would single out the first.
func ExampleHint_ambiguous() {
	req, _ := Decode([]byte(`{"sources":[{"source_id":"s","version":"v1","text":"a cat sat; the cat ran"}],
		"citations":[{"citation_id":"c1","source_id":"s","version":"v1",
		"selector":{"type":"TextQuoteSelector","exact":"cat"}}]}`))
	s := Hint(req, Check(req).FirstDiscrepancy)
	fmt.Printf("%v %v %q %q\n", s.Reason, s.Starts, *s.UniquePrefix, *s.UniqueSuffix)
	// Output: ambiguous_anchor [2 15] "a " " s"
}

// bruteLeadingPart is longestLeadingPart by brute force: the longest
// leading part of claimed, in code points, that strings.Index finds, and
// the code point where it first occurs (-1 for none).
func bruteLeadingPart(text, claimed string) (length, start int) {
	for l := len(claimed); l > 0; l-- {
		if l < len(claimed) && !utf8.RuneStart(claimed[l]) {
			continue
		}
		if b := strings.Index(text, claimed[:l]); b >= 0 {
			return utf8.RuneCountInString(claimed[:l]), utf8.RuneCountInString(text[:b])
		}
	}
	return 0, -1
}

// leadingPartChecker checks longestLeadingPart in a text, scanned and
// indexed (with the index's guards off when unguarded, so that it answers
// for tiny texts too).
func leadingPartChecker(text string, unguarded bool) func(t *testing.T, claimed string) {
	scanned, indexed := newIndexedText(text, search.Plan{}), newIndexedText(text, search.Plan{})
	indexed.IndexNow(unguarded)
	return func(t *testing.T, claimed string) {
		t.Helper()
		l, s := bruteLeadingPart(text, claimed)
		for _, x := range []*indexedText{scanned, indexed} {
			if p := longestLeadingPart(x, claimed); p.Length != l || p.Start != s {
				t.Fatalf("%q in %.60q (indexed %v): length %d at %d, want %d at %d", claimed, text, x == indexed, p.Length, p.Start, l, s)
			}
		}
	}
}

// The longest leading part is the brute force's, and where it first
// occurs: every text and claim over tiny alphabets, one of them of two
// bytes a letter.
func TestLongestLeadingPartIsTheBruteForces(t *testing.T) {
	t.Parallel()
	texts, claims := testkit.AllStrings("ab", 9), testkit.AllStrings("ab", 7)
	for _, b := range []string{"b", "é"} {
		for _, text := range texts {
			check := leadingPartChecker(strings.ReplaceAll(text, "b", b), true)
			for _, claimed := range claims {
				check(t, strings.ReplaceAll(claimed, "b", b))
			}
		}
	}
}

// On prose, indexed or not, with parts that occur more often than
// longestLeadingPart extends at once: words of the text in another order,
// and passages of it with one byte changed.
func TestLongestLeadingPartOnProse(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(21, 22))
	text := testkit.NewCorpus(23).Prose(16 << 10) // four times what the searcher indexes from
	check := leadingPartChecker(text, false)
	words := strings.Fields(text)
	for range 300 {
		var claimed string
		if r.IntN(2) == 0 {
			var b strings.Builder
			for range 1 + r.IntN(8) {
				b.WriteString(words[r.IntN(len(words))] + " ")
			}
			claimed = b.String()
		} else {
			i := r.IntN(len(text) - 100)
			c := []byte(text[i : i+1+r.IntN(100)])
			c[r.IntN(len(c))] ^= 0x20
			claimed = string(c)
		}
		if !utf8.ValidString(claimed) { // a decoded claim is valid
			continue
		}
		check(t, claimed)
	}
}

// FuzzLongestLeadingPart: longestLeadingPart, scanned and from an
// unguarded index, is the brute force's for any text and claim (its
// arguments are FuzzGramIndexAgainstBrute's, whose corpus it shares).
func FuzzLongestLeadingPart(f *testing.F) {
	f.Add("the cat sat on the mat", "at on the", uint16(0))
	f.Add("aaaaaaaaaaaa", "aaaaa", uint16(3))
	f.Add("abababababababab", "babab", uint16(1))
	f.Add("xyzzyxyzzy", "zzyxyzz", uint16(9))
	f.Fuzz(func(t *testing.T, text, claimed string, _ uint16) {
		if len(text) > 1<<12 || len(claimed) > 64 || !utf8.ValidString(text) || !utf8.ValidString(claimed) {
			return // as decoded texts and claims are
		}
		leadingPartChecker(text, true)(t, claimed)
	})
}
