package citecheck

import (
	"github.com/citecheck/citecheck/internal/testkit"
	"github.com/citecheck/citecheck/internal/utext"

	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// The text classes of BenchmarkCheckClass: one seeded request per shape of
// text and anchor that a prefilter on rare bytes finds hard, each at the
// scan limit (as many quote citations as max_scan_units, max_citations and
// max_input_bytes allow), every citation passing. Cost is reported per scan
// unit (ns/unit: one UTF-16 code unit of source text scanned by one quote
// citation, spec §1) beside max_limits, the prose baseline, in the same run:
// bench/classes.sh prints the ratios.

// textClass is one benchmark class: a text and the anchors cut from it.
type textClass struct {
	name string
	// text returns the source text, at most max_text_bytes.
	text func(rng *rand.Rand) string
	// anchor returns one passing quote citation on text (r is text as
	// code points), or ok false to try again.
	anchor func(rng *rand.Rand, r []rune, text string) (exact, prefix, suffix string, ok bool)
	// citations caps the number of quote citations (0: as many as fit).
	citations int
}

// cutAnchor cuts exact (elen code points), prefix and suffix (plen, slen)
// around a random code point of r; ok when prefix+exact+suffix occurs once.
func cutAnchor(rng *rand.Rand, r []rune, text string, elen, plen, slen [2]int) (e, p, s string, ok bool) {
	l := elen[0] + rng.IntN(elen[1]-elen[0]+1)
	lp := plen[0] + rng.IntN(plen[1]-plen[0]+1)
	ls := slen[0] + rng.IntN(slen[1]-slen[0]+1)
	if l+lp+ls > len(r) {
		return "", "", "", false
	}
	at := lp + rng.IntN(len(r)-l-lp-ls+1)
	e, p, s = string(r[at:at+l]), string(r[at-lp:at]), string(r[at+l:at+l+ls])
	return e, p, s, testkit.CountOverlapping(text, p+e+s) == 1
}

// cutter is an anchor func that cuts with cutAnchor.
func cutter(elen, plen, slen [2]int) func(*rand.Rand, []rune, string) (string, string, string, bool) {
	return func(rng *rand.Rand, r []rune, text string) (string, string, string, bool) {
		return cutAnchor(rng, r, text, elen, plen, slen)
	}
}

// aroundWord is an anchor func for "many occurrences of exact, one of the
// anchor": exact is word, at a random one of its occurrences, with prefix
// and suffix of plen and slen bytes (moved to code point boundaries).
func aroundWord(word string, plen, slen [2]int) func(*rand.Rand, []rune, string) (string, string, string, bool) {
	var once sync.Once
	var at []int
	return func(rng *rand.Rand, _ []rune, text string) (string, string, string, bool) {
		once.Do(func() {
			for i := 0; ; {
				j := strings.Index(text[i:], word)
				if j < 0 {
					break
				}
				at = append(at, i+j)
				i += j + 1
			}
		})
		i := at[rng.IntN(len(at))]
		lo := max(0, i-(plen[0]+rng.IntN(plen[1]-plen[0]+1)))
		hi := min(len(text), i+len(word)+slen[0]+rng.IntN(slen[1]-slen[0]+1))
		for lo < i && !utf8.RuneStart(text[lo]) {
			lo++
		}
		for hi < len(text) && !utf8.RuneStart(text[hi]) {
			hi--
		}
		p, s := text[lo:i], text[i+len(word):hi]
		return word, p, s, testkit.CountOverlapping(text, p+word+s) == 1
	}
}

// textClasses are the benchmark classes, in the order of the tables.
var textClasses = []textClass{
	{name: "binary", text: func(r *rand.Rand) string { return testkit.RandomText(r, "01", MaxTextBytes, 0) },
		anchor: cutter([2]int{20, 60}, [2]int{30, 30}, [2]int{30, 30})},
	{name: "dna", text: func(r *rand.Rand) string { return testkit.RandomText(r, "ACGT", MaxTextBytes, 60) },
		anchor: cutter([2]int{20, 200}, [2]int{0, 30}, [2]int{0, 30})},
	{name: "dna_short_exact", text: func(r *rand.Rand) string { return testkit.RandomText(r, "ACGT", MaxTextBytes, 0) },
		// exact occurs ~30–500 times, prefix+exact+suffix once
		anchor: cutter([2]int{5, 7}, [2]int{20, 30}, [2]int{20, 30})},
	{name: "hex", text: func(r *rand.Rand) string { return testkit.RandomText(r, "0123456789abcdef", MaxTextBytes, 64) },
		anchor: cutter([2]int{16, 64}, [2]int{0, 32}, [2]int{0, 32})},
	{name: "cjk", text: func(r *rand.Rand) string { return testkit.CJKText(r, MaxTextBytes) },
		anchor: cutter([2]int{5, 50}, [2]int{0, 20}, [2]int{0, 20})},
	{name: "astral", text: func(r *rand.Rand) string { return testkit.AstralText(r, MaxTextBytes) },
		anchor: cutter([2]int{3, 40}, [2]int{0, 10}, [2]int{0, 10})},
	{name: "boilerplate_common_word", text: func(r *rand.Rand) string { return testkit.BoilerplateText(r, MaxTextBytes) },
		anchor: aroundWord(" the ", [2]int{800, MaxContextBytes}, [2]int{800, MaxContextBytes})},
	{name: "prose_common_word", text: func(r *rand.Rand) string { return (&testkit.Corpus{Rand: r, ASCII: true}).Prose(MaxTextBytes) },
		anchor: aroundWord(" the ", [2]int{16, MaxContextBytes}, [2]int{16, MaxContextBytes})},
	{name: "prose_long_exact", text: func(r *rand.Rand) string { return (&testkit.Corpus{Rand: r, ASCII: true}).Prose(MaxTextBytes) },
		// 28 citations of up to max_quote_bytes fill most of max_input_bytes
		anchor: cutter([2]int{4096, MaxQuoteBytes}, [2]int{0, MaxContextBytes}, [2]int{0, MaxContextBytes}), citations: 28},
	{name: "logs", text: func(r *rand.Rand) string { return testkit.LogText(r, MaxTextBytes) },
		anchor: cutter([2]int{20, 200}, [2]int{0, 64}, [2]int{0, 64})},
	{name: "code", text: func(r *rand.Rand) string { return testkit.CodeText(r, MaxTextBytes) },
		anchor: cutter([2]int{20, 200}, [2]int{0, 64}, [2]int{0, 64})},
	// Periodic text where one rare byte tells every anchor apart: each
	// exact, 12–16 KiB, holds the text's one '#'.
	{name: "periodic_rare_byte", text: periodicRareText,
		anchor: aroundRare([2]int{12 << 10, MaxQuoteBytes}, [2]int{0, 0}), citations: 32},
	// Overlapping anchors in periodic text: each exact, 8,000 bytes of the
	// period, occurs at every period; a prefix or suffix that reaches the
	// '#' keeps one.
	{name: "periodic_overlap", text: periodicRareText,
		anchor: aroundRare([2]int{8000, 8000}, [2]int{1, 64}), citations: 32},
}

// periodicRareText is MaxTextBytes of a 16-byte unit repeated, with one
// byte in the middle replaced by '#', which the unit lacks.
func periodicRareText(*rand.Rand) string {
	t := []byte(strings.Repeat("the cat sat on. ", MaxTextBytes/16))
	t[len(t)/2+5] = '#'
	return string(t)
}

// aroundRare is an anchor func on periodicRareText: an exact of elen
// bytes that holds the '#' when ctx is zero; else one that ends (or
// starts) 1–64 bytes before (after) it, with a suffix (prefix) of ctx
// bytes that reaches it.
func aroundRare(elen, ctx [2]int) func(*rand.Rand, []rune, string) (string, string, string, bool) {
	return func(rng *rand.Rand, _ []rune, text string) (string, string, string, bool) {
		x := strings.IndexByte(text, '#')
		l := elen[0] + rng.IntN(elen[1]-elen[0]+1)
		if ctx[1] == 0 {
			at := x - rng.IntN(l)
			return text[at : at+l], "", "", true
		}
		gap := ctx[0] + rng.IntN(ctx[1]-ctx[0]+1) // context bytes up to and with the '#'
		if rng.IntN(2) == 0 {
			at := x + 1 - gap - l
			return text[at : at+l], "", text[at+l : x+1], true
		}
		at := x + gap
		return text[at : at+l], text[x:at], "", true
	}
}

// classWorkload is the request of one class, decoded, with its scan units.
type classWorkload struct {
	name  string
	body  []byte
	req   *Request
	units int
}

// classWorkloads builds the classes once per test binary, and max_limits
// first as the baseline.
var classWorkloads = sync.OnceValue(func() []classWorkload {
	var out []classWorkload
	add := func(name string, body []byte) {
		req, err := Decode(body)
		if err != nil {
			panic(fmt.Sprintf("class %s is refused: %s: %s", name, AsError(err).Code, AsError(err).Message))
		}
		out = append(out, classWorkload{name: name, body: body, req: req, units: scanUnits(req)})
	}
	for _, w := range benchWorkloads() {
		if w.name == "max_limits" {
			add("max_limits", w.body)
		}
	}
	for k, c := range textClasses {
		rng := testkit.NewRand(2000 + uint64(k))
		text := c.text(rng)
		r := []rune(text)
		n := min(MaxScanUnits/utext.UTF16Len(text), MaxCitations)
		if c.citations > 0 {
			n = min(n, c.citations)
		}
		var cits []testkit.Citation
		for len(cits) < n {
			e, p, s, ok := c.anchor(rng, r, text)
			if !ok {
				continue
			}
			cit := testkit.QuoteCitation("q"+strconv.Itoa(len(cits)), "src", "v1", e)
			if p != "" {
				cit = cit.WithPrefix(p)
			}
			if s != "" {
				cit = cit.WithSuffix(s)
			}
			if len(cits)%4 == 0 { // a quarter claim their (true) start
				cit = cit.WithClaimedStart(utf8.RuneCountInString(text[:strings.Index(text, p+e+s)+len(p)]))
			}
			cits = append(cits, cit)
		}
		add(c.name, testkit.Request{Sources: []testkit.Source{testkit.NewSource("src", "v1", text)}, Citations: cits}.Body())
	}
	return out
})

// scanUnits is the scan units req spends (spec §1): each quote citation's
// source length in UTF-16 code units.
func scanUnits(req *Request) int {
	n := 0
	for _, c := range req.Citations {
		if c.Selector.Type != QuoteSelector {
			continue
		}
		for _, s := range req.Sources {
			if s.SourceID == c.SourceID && s.Version == c.Version {
				n += utext.UTF16Len(s.Text)
			}
		}
	}
	return n
}

// BenchmarkCheckClass times Check per text class; ns/unit is the time per
// scan unit, to compare with class=max_limits of the same run.
func BenchmarkCheckClass(b *testing.B) {
	for _, w := range classWorkloads() {
		b.Run("class="+w.name, func(b *testing.B) {
			b.ReportAllocs()
			// The thread's CPU time too: on a machine shared with other
			// jobs, wall time counts the time they take the core.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			cpu := threadCPU()
			for b.Loop() {
				if res := Check(w.req); !res.Valid {
					b.Fatalf("%s does not pass: %s", w.name, res.AppendJSON(nil))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(w.units), "ns/unit")
			if cpu >= 0 {
				b.ReportMetric(float64(threadCPU()-cpu)/float64(b.N)/float64(w.units), "cpu-ns/unit")
			}
		})
	}
}

// TestCheckClassesPassAtTheScanLimit makes sure each class measures what it
// claims: a valid request that passes whole, close to the scan limit unless
// max_input_bytes stops it first, and for the "common word" classes an
// exact that occurs many times.
func TestCheckClassesPassAtTheScanLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 12 requests of up to 1 MiB")
	}
	for _, w := range classWorkloads() {
		t.Run(w.name, func(t *testing.T) {
			if res := Check(w.req); !res.Valid {
				t.Fatalf("does not pass: %s", res.AppendJSON(nil))
			}
			if w.units < MaxScanUnits*2/3 {
				t.Errorf("%d scan units, under two thirds of max_scan_units", w.units)
			}
			if strings.HasSuffix(w.name, "common_word") || w.name == "dna_short_exact" {
				text := w.req.Sources[0].Text
				for _, c := range w.req.Citations[:4] {
					if n := testkit.CountOverlapping(text, c.Selector.Exact); n < 20 {
						t.Errorf("%s: exact %q occurs %d times, want many", c.CitationID, c.Selector.Exact, n)
					}
				}
			}
			t.Logf("%d bytes, %d citations, %d scan units", len(w.body), len(w.req.Citations), w.units)
		})
	}
}
