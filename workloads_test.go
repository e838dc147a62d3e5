package citecheck

import (
	"strconv"
	"strings"
	"sync"

	"github.com/citecheck/citecheck/internal/testkit"
)

// The benchmark workloads, built with testkit's request builder, corpus and
// citation pickers. Every build is seeded, so each workload is the same
// bytes on every run.

// benchWorkload is one deterministic benchmark request; every citation in it
// passes, so the whole batch is checked.
type benchWorkload struct {
	name      string
	body      []byte
	citations int
}

// benchWorkloads builds the workloads once per test binary (max_limits alone
// is a 1 MiB body).
var benchWorkloads = sync.OnceValue(func() []benchWorkload {
	var ws []benchWorkload
	for _, w := range []struct {
		name  string
		build func() testkit.Request
	}{
		{"rag_typical", ragTypical},
		{"many_small", manySmall},
		{"max_limits", maxLimits},
		{"adversarial_periodic", adversarialPeriodic},
		{"adversarial_overlap", adversarialOverlap},
		{"unicode_heavy", unicodeHeavy},
	} {
		r := w.build()
		ws = append(ws, benchWorkload{name: w.name, body: r.Body(), citations: len(r.Citations)})
	}
	return ws
})

// ragTypical: 4 × ~20 KB English-like prose with curly quotes (report has two
// versions), 24 citations: 12 position, 12 quote with prefix and suffix (a
// third of them with claimed_start).
func ragTypical() testkit.Request {
	p := testkit.NewCorpus(1001)
	rng := p.Rand
	srcs := []testkit.Source{
		testkit.NewSource("handbook", "2024-03-01", p.Prose(19000+rng.IntN(2001))),
		testkit.NewSource("faq", "v7", p.Prose(19000+rng.IntN(2001))),
		testkit.NewSource("report", "v1", p.Prose(19000+rng.IntN(2001))),
	}
	// v2 is v1 with a paragraph rewritten and one appended, as revisions are.
	paras := strings.Split(srcs[2].Text, "\n\n")
	paras[len(paras)/2] = p.Sentence() + " " + p.Sentence() + " " + p.Sentence()
	srcs = append(srcs, testkit.NewSource("report", "v2", strings.Join(paras, "\n\n")+"\n\n"+p.Sentence()))
	req := testkit.Request{Sources: srcs}
	for i := range 24 {
		s, id := srcs[i%4], "c"+strconv.Itoa(i+1)
		if i%2 == 0 {
			req.Citations = append(req.Citations, testkit.PickSpan(rng, s, id, [2]int{30, 300}))
		} else {
			req.Citations = append(req.Citations, testkit.PickAnchor(rng, s, id, testkit.AnchorShape{
				Exact: [2]int{40, 200}, Prefix: [2]int{16, 32}, Suffix: [2]int{16, 32}, ClaimedStart: 0.33}))
		}
	}
	return req
}

// manySmall: 16 × 2 KB sources, 256 citations (the max_citations limit):
// per-citation overhead.
func manySmall() testkit.Request {
	p := testkit.NewCorpus(1006)
	rng := p.Rand
	var req testkit.Request
	for j := range 16 {
		req.Sources = append(req.Sources, testkit.NewSource("s"+strconv.Itoa(j), "v1", p.Prose(2048)))
	}
	for i := range MaxCitations {
		s, id := req.Sources[rng.IntN(len(req.Sources))], "m"+strconv.Itoa(i)
		if i%2 == 0 {
			req.Citations = append(req.Citations, testkit.PickSpan(rng, s, id, [2]int{20, 160}))
		} else {
			req.Citations = append(req.Citations, testkit.PickAnchor(rng, s, id, testkit.AnchorShape{
				Exact: [2]int{20, 120}, Prefix: [2]int{0, 16}, Suffix: [2]int{0, 16}, ClaimedStart: 0.3}))
		}
	}
	return req
}

// maxLimits: a body just under max_input_bytes. One 512 KiB (max_text_bytes)
// ASCII prose source; 32 quote citations (exact 50–300 chars occurring once,
// prefix and suffix 8–16 chars) scanning 32 × 524,288 = 16,777,216 units,
// the whole budget; the rest of the body is position citations with long
// quotes (which cost no scan units), so decoding works on a full 1 MiB.
func maxLimits() testkit.Request {
	p := testkit.NewCorpus(1002)
	p.ASCII = true
	rng := p.Rand
	text := p.Prose(MaxTextBytes)
	src := testkit.NewSource("corpus", "v1", text)
	req := testkit.Request{Sources: []testkit.Source{src}}
	for i := range 32 {
		req.Citations = append(req.Citations, testkit.PickAnchor(rng, src, "q"+strconv.Itoa(i), testkit.AnchorShape{
			Exact: [2]int{50, 300}, Prefix: [2]int{8, 16}, Suffix: [2]int{8, 16}, UniqueExact: true, ClaimedStart: 0.25}))
	}
	// Fill with position citations up to ~2 KiB under the limit.
	const room = MaxInputBytes - 2048
	size := len(req.Body())
	for i := 0; ; i++ {
		id := "f" + strconv.Itoa(i)
		overhead := len(testkit.PositionCitation(id, "corpus", "v1", 0, 0, "").JSON()) + 16 // + digits of start/end, comma
		l := min(MaxQuoteBytes, room-size-overhead)
		if l < 1 {
			break
		}
		start := rng.IntN(len(text) - l + 1)
		c := testkit.PositionCitation(id, "corpus", "v1", start, start+l, text[start:start+l])
		size += len(c.JSON()) + 1
		req.Citations = append(req.Citations, c)
	}
	return req
}

// periodicB is where adversarialMatchText has its one b.
const periodicB = 262140

// adversarialPeriodic: on adversarialMatchText, 32 quote citations
// alternating exact "a"×7999+"b" (a left-to-right naive matcher's worst
// case) and "b"+"a"×7999 (a right-to-left one's), each occurring once; every
// other pair adds context and the right claimed_start. 32 × 524,280 units:
// the whole budget.
func adversarialPeriodic() testkit.Request {
	const l = 8000
	aab, baa := strings.Repeat("a", l-1)+"b", "b"+strings.Repeat("a", l-1)
	req := testkit.Request{Sources: []testkit.Source{testkit.NewSource("periodic", "v1", testkit.AdversarialMatchText())}}
	for i := range 32 {
		var c testkit.Citation
		id := "p" + strconv.Itoa(i)
		switch i % 4 {
		case 0:
			c = testkit.QuoteCitation(id, "periodic", "v1", aab)
		case 1:
			c = testkit.QuoteCitation(id, "periodic", "v1", baa)
		case 2:
			c = testkit.QuoteCitation(id, "periodic", "v1", aab).WithSuffix(strings.Repeat("a", 16)).WithClaimedStart(periodicB - (l - 1))
		case 3:
			c = testkit.QuoteCitation(id, "periodic", "v1", baa).WithPrefix(strings.Repeat("a", 16)).WithClaimedStart(periodicB)
		}
		req.Citations = append(req.Citations, c)
	}
	return req
}

// adversarialOverlap: the same text, 32 quote citations with exact "a"×8000,
// which occurs ~508,000 times overlapping (OE); suffix "b" or prefix "b"
// keeps exactly one. Counting every occurrence is the expensive part.
func adversarialOverlap() testkit.Request {
	exact := strings.Repeat("a", 8000)
	req := testkit.Request{Sources: []testkit.Source{testkit.NewSource("periodic", "v1", testkit.AdversarialMatchText())}}
	for i := range 32 {
		c := testkit.QuoteCitation("o"+strconv.Itoa(i), "periodic", "v1", exact)
		if i%2 == 0 {
			c = c.WithSuffix("b")
		} else {
			c = c.WithPrefix("b").WithClaimedStart(periodicB + 1)
		}
		req.Citations = append(req.Citations, c)
	}
	return req
}

// unicodeHeavy: one ~200 KB source of testkit's many-script text; 32
// position citations (a quarter starting on an astral char, a combining
// mark or a ZWJ, so they cut through grapheme clusters) and 32 quote
// citations.
func unicodeHeavy() testkit.Request {
	p := testkit.NewCorpus(1005)
	rng := p.Rand
	src := testkit.NewSource("unicode", "v1", p.Unicode(200*1024))
	r := []rune(src.Text)
	req := testkit.Request{Sources: []testkit.Source{src}}
	for i := range 64 {
		id := "u" + strconv.Itoa(i)
		if i%2 == 1 {
			req.Citations = append(req.Citations, testkit.PickAnchor(rng, src, id, testkit.AnchorShape{
				Exact: [2]int{5, 150}, Prefix: [2]int{0, 20}, Suffix: [2]int{0, 20}, ClaimedStart: 0.4}))
			continue
		}
		c := testkit.PickSpan(rng, src, id, [2]int{5, 300})
		if i%8 == 0 {
			for p := rng.IntN(len(r) - 400); p < len(r)-300; p++ {
				if ch := r[p]; ch > 0xFFFF || (ch >= 0x300 && ch < 0x370) || ch == 0x200D {
					l := 1 + rng.IntN(200)
					c = testkit.PositionCitation(id, "unicode", "v1", p, p+l, string(r[p:p+l]))
					break
				}
			}
		}
		req.Citations = append(req.Citations, c)
	}
	return req
}
