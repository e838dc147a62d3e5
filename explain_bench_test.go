package citecheck

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"unicode/utf8"

	"github.com/citecheck/citecheck/internal/testkit"
	"github.com/citecheck/citecheck/internal/utext"
)

// failingMaxBody is a maximum-size request in which every citation fails,
// each in a way citers get wrong: one 512 KiB prose source with curly
// quotes; 32 quote citations (the scan budget) cycling through an ASCII
// retyping (normalized), a changed word (a partial match), a claimed_start
// off by one (position_mismatch) and a common word (ambiguous_anchor); the
// rest of the 1 MiB body position citations with long quotes and byte
// offsets (quote_mismatch, elsewhere and offset_units).
var failingMaxBody = sync.OnceValue(func() []byte {
	corpus := testkit.NewCorpus(909)
	rng := corpus.Rand
	text := corpus.Prose(MaxTextBytes)
	src := testkit.NewSource("corpus", "v1", text)
	req := testkit.Request{Sources: []testkit.Source{src}}
	for i := range 32 {
		c := testkit.PickAnchor(rng, src, "q"+strconv.Itoa(i), testkit.AnchorShape{Exact: [2]int{50, 300}, UniqueExact: true})
		e := *c.Selector.Exact
		switch i % 4 {
		case 0:
			e = referenceFold(e, FoldTypography)
			if e == *c.Selector.Exact {
				e = strings.ToUpper(e)
			}
		case 1:
			mid := strings.IndexByte(e[len(e)/2:], ' ') + len(e)/2
			e = e[:mid] + " fabricated" + e[mid:]
		case 2:
			c = c.WithClaimedStart(strings.Index(text, e)) // a byte offset, so off where there is a curly quote before
			if !utf8.ValidString(text[:*c.ClaimedStart]) || utf8.RuneCountInString(text[:*c.ClaimedStart]) == *c.ClaimedStart {
				c = c.WithClaimedStart(*c.ClaimedStart + 1)
			}
		case 3:
			e = "the"
		}
		c.Selector.Exact = &e
		req.Citations = append(req.Citations, c)
	}
	const room = MaxInputBytes - 2048
	size := len(req.Body())
	for i := 0; ; i++ {
		id := "f" + strconv.Itoa(i)
		overhead := len(testkit.PositionCitation(id, "corpus", "v1", 0, 0, "").AppendJSON(nil)) + 16
		l := min(MaxQuoteBytes/2, room-size-overhead)
		if l < 64 {
			break
		}
		start := len(text)/2 + rng.IntN(len(text)/2-l) // past curly quotes, so bytes and code points differ
		for !utf8.RuneStart(text[start]) {
			start++
		}
		end := start + l
		for !utf8.RuneStart(text[end]) {
			end++
		}
		c := testkit.PositionCitation(id, "corpus", "v1", start, end, text[start:end]) // byte offsets
		size += len(c.AppendJSON(nil)) + 1
		req.Citations = append(req.Citations, c)
	}
	return req.Body()
})

// failingMaxNormalizedBody is a maximum-size request whose citations all
// fail the costliest way to explain: position citations with long quotes
// (8 KiB) retyped in ASCII, so each quote occurs nowhere exactly and is
// found under the typography fold (a folded source, a search of it, and
// the minimal fold set compared over 8 KiB spans).
var failingMaxNormalizedBody = sync.OnceValue(func() []byte {
	corpus := testkit.NewCorpus(910)
	rng := corpus.Rand
	text := corpus.Prose(MaxTextBytes)
	r := []rune(text)
	req := testkit.Request{Sources: []testkit.Source{testkit.NewSource("corpus", "v1", text)}}
	const room = MaxInputBytes - 2048
	size := len(req.Body())
	for i := 0; ; i++ {
		id := "n" + strconv.Itoa(i)
		l := min(MaxQuoteBytes/2, room-size-128)
		if l < 64 {
			break
		}
		start := rng.IntN(len(r) - l)
		q := string(r[start : start+l])
		typed := referenceFold(q, FoldTypography)
		if typed == q {
			i--
			continue
		}
		c := testkit.PositionCitation(id, "corpus", "v1", start, start+l, typed)
		size += len(c.AppendJSON(nil)) + 1
		req.Citations = append(req.Citations, c)
	}
	return req.Body()
})

// fabricatedMaxBody is a maximum-size request of position citations whose
// quotes are made of the source's own words in another order, each
// quoteWords words long: every quote fails, occurs nowhere under any fold,
// and is explained by its longest leading part, the costliest search there
// is (a binary search over the length). With few words the request holds
// max_citations citations; with many, long quotes up to the body's size.
func fabricatedMaxBody(seed uint64, quoteWords int, source func(*testkit.Corpus, int) string) []byte {
	corpus := testkit.NewCorpus(seed)
	rng := corpus.Rand
	text := source(corpus, MaxTextBytes)
	words := strings.Fields(text)
	req := testkit.Request{Sources: []testkit.Source{testkit.NewSource("corpus", "v1", text)}}
	const room = MaxInputBytes - 2048
	size := len(req.Body())
	for i := 0; i < MaxCitations; i++ {
		var b strings.Builder
		for b.Len() < MaxQuoteBytes/2 && b.Len() < quoteWords*8 {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[rng.IntN(len(words))])
		}
		q := b.String()
		if strings.Contains(text, q) {
			i--
			continue
		}
		start := rng.IntN(len(text) / 2)
		c := testkit.PositionCitation("x"+strconv.Itoa(i), "corpus", "v1", start, start+utext.RuneCount(q), q)
		if size+len(c.AppendJSON(nil))+1 > room {
			break
		}
		size += len(c.AppendJSON(nil)) + 1
		req.Citations = append(req.Citations, c)
	}
	return req.Body()
}

// misplacedShortMaxBody is a maximum-size request of position citations
// whose quotes are short passages of the source (one to four bytes, each
// another), cited at offsets where they are not: each is an elsewhere
// finding whose occurrences, tens of thousands for a common letter, must
// all be counted.
func misplacedShortMaxBody() []byte {
	corpus := testkit.NewCorpus(913)
	rng := corpus.Rand
	text := corpus.Prose(MaxTextBytes)
	req := testkit.Request{Sources: []testkit.Source{testkit.NewSource("corpus", "v1", text)}}
	seen := map[string]bool{}
	for len(req.Citations) < MaxCitations {
		p := rng.IntN(len(text) - 4)
		q := text[p : p+1+rng.IntN(4)]
		if seen[q] || !utf8.ValidString(q) || strings.TrimSpace(q) != q || strings.HasPrefix(text, q) {
			continue
		}
		seen[q] = true
		req.Citations = append(req.Citations, testkit.PositionCitation("s"+strconv.Itoa(len(req.Citations)), "corpus", "v1", 0, utext.RuneCount(q), q))
	}
	return req.Body()
}

func TestFailingMaxBodyFailsEverywhere(t *testing.T) {
	body := failingMaxBody()
	if req, err := Decode(failingMaxNormalizedBody()); err != nil || CheckAll(req).Failed != len(req.Citations) {
		t.Fatalf("the normalized body: %v", err)
	}
	if ex := Explain(mustDecode(t, string(failingMaxNormalizedBody()))); ex.Citations[0].Findings[0].Kind != FindingNormalized {
		t.Fatalf("the normalized body's first citation: %+v", ex.Citations[0].Findings)
	}
	req, err := Decode(body)
	if err != nil {
		t.Fatal(err)
	}
	all := CheckAll(req)
	if all.Failed != len(req.Citations) || len(body) < MaxInputBytes-4096 {
		t.Fatalf("%d of %d citations fail, body %d bytes", all.Failed, len(req.Citations), len(body))
	}
	ex := Explain(req)
	var kinds [findingKindCount]int
	for _, ce := range ex.Citations {
		for _, f := range ce.Findings {
			kinds[f.Kind]++
		}
	}
	for k, n := range kinds {
		if n == 0 && FindingKind(k) != FindingElided {
			t.Errorf("no %s finding in the benchmark request", FindingKind(k))
		}
	}
}

// processCPU is the CPU time the process has used, user and system, in
// nanoseconds: on a shared machine wall time also counts the time other
// processes had the CPU, so the benchmark reports both.
func processCPU() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// BenchmarkExplainFailingMax compares explaining a maximum-size request in
// which every citation fails with checking it to the end (CheckAll, what
// --all does; Check would stop at the first), and gives the request's
// decoding beside them: the target is a ratio of at most 10 (spec §5.8;
// bench/explain.sh prints both ratios, the engine's and the request's).
func BenchmarkExplainFailingMax(b *testing.B) {
	for _, w := range []struct {
		name string
		body func() []byte
	}{
		{"mixed", failingMaxBody},
		{"normalized", failingMaxNormalizedBody},
		{"fabricated_short", func() []byte { return fabricatedMaxBody(911, 6, (*testkit.Corpus).Prose) }},
		{"fabricated_long", func() []byte { return fabricatedMaxBody(912, 600, (*testkit.Corpus).Prose) }},
		{"fabricated_unicode", func() []byte { return fabricatedMaxBody(914, 6, (*testkit.Corpus).Unicode) }},
		{"misplaced_short", misplacedShortMaxBody},
	} {
		body := w.body()
		req, err := Decode(body)
		if err != nil {
			b.Fatal(err)
		}
		for _, stage := range []struct {
			name string
			run  func()
		}{
			{"decode", func() { Decode(body) }},
			{"check_all", func() { CheckAll(req) }},
			{"explain", func() { Explain(req) }},
		} {
			b.Run(w.name+"/"+stage.name, func(b *testing.B) {
				b.ReportAllocs()
				cpu := processCPU()
				for b.Loop() {
					stage.run()
				}
				b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// cyrillicProse is prose of about nbytes bytes with its ASCII letters read
// as Cyrillic ones (two bytes each): a text of another script, not one
// passage repeated, whose quotations upper-case (strings.ToUpper) as
// Latin ones do.
func cyrillicProse(c *testkit.Corpus, nbytes int) string {
	const lower, upper = "абвгдежзийклмнопрстуфхцчшщ", "АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩ"
	lo, up := []rune(lower), []rune(upper)
	var b strings.Builder
	for _, r := range c.Prose(nbytes * 4 / 7) { // letters are about 3 bytes in 4
		switch {
		case r >= 'a' && r <= 'z':
			b.WriteRune(lo[r-'a'])
		case r >= 'A' && r <= 'Z':
			b.WriteRune(up[r-'A'])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// upperCasedRequest is a request of n quotations of 40 to 80 code points
// of text, each upper-cased so that it occurs nowhere exactly and is
// found under the case fold: near misses, each explained by folding the
// source.
func upperCasedRequest(seed uint64, text string, n int) *Request {
	rng := testkit.NewCorpus(seed).Rand
	r := []rune(text)
	req := &Request{Sources: []Source{{SourceID: "s", Version: "v1", Text: text}}}
	for i := 0; len(req.Citations) < n; i++ {
		l := 40 + rng.IntN(41)
		p := rng.IntN(len(r) - l + 1)
		q := strings.ToUpper(string(r[p : p+l]))
		if q == string(r[p:p+l]) || strings.Contains(text, q) {
			continue
		}
		req.Citations = append(req.Citations, Citation{CitationID: "c" + strconv.Itoa(i), SourceID: "s", Version: "v1",
			Selector: Selector{Type: QuoteSelector, Exact: q}})
	}
	return req
}

// unmarkedShortRequest is n quotations of a few common words each, in a
// row as a quotation without a marker reads, against 16 sources of one
// character, each quotation citing one of them in turn: the batch
// `citecheck quotes` makes of many short quotations of tiny sources,
// where what a citation's diagnosis costs beside its source counts most.
func unmarkedShortRequest(n int) *Request {
	c := testkit.NewCorpus(35)
	req := &Request{}
	for j := range 16 {
		req.Sources = append(req.Sources, Source{SourceID: "t" + strconv.Itoa(j), Version: "v1", Text: string(rune('a' + j))})
	}
	for i := range n {
		var b strings.Builder
		for k := range 3 + c.Rand.IntN(6) {
			if k > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(c.Word())
		}
		req.Citations = append(req.Citations, Citation{CitationID: "u" + strconv.Itoa(i), SourceID: "t" + strconv.Itoa(i%16), Version: "v1",
			Selector: Selector{Type: QuoteSelector, Exact: b.String()}})
	}
	return req
}

// eachWorkloads are the batches BenchmarkExplainEach explains: 256
// near-miss quotations of one 500 KB source, non-Latin and ASCII, and
// 256 short quotations of 16 tiny sources.
var eachWorkloads = []struct {
	name string
	req  func() *Request
}{
	{"near_miss_cyrillic", func() *Request {
		return upperCasedRequest(36, cyrillicProse(testkit.NewCorpus(36), 500<<10), 256)
	}},
	{"near_miss_ascii", func() *Request { return upperCasedRequest(37, testkit.NewCorpus(37).Prose(500<<10), 256) }},
	{"unmarked_short", func() *Request { return unmarkedShortRequest(256) }},
}

// BenchmarkExplainEach compares ExplainEachContext (shared, each source's
// readings built once per call) with explaining each failing citation
// in a request of its own (subrequests, what it did before), on the
// batches quotes/ and annotation/ make: the two answer alike
// (TestExplainEachSharesEachSourceReadings), so the ratio is what
// sharing saves.
func BenchmarkExplainEach(b *testing.B) {
	for _, w := range eachWorkloads {
		req := sync.OnceValue(w.req) // built only for the workloads run
		for _, way := range []struct {
			name  string
			share bool
		}{{"subrequests", false}, {"shared", true}} {
			b.Run(w.name+"/"+way.name, func(b *testing.B) {
				req := req()
				b.ReportAllocs()
				cpu := processCPU()
				for b.Loop() {
					if _, _, err := explainEach(context.Background(), req, way.share); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
