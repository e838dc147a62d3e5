package citecheck

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// failingMaxBody is a maximum-size request in which every citation fails,
// each in a way citers get wrong: one 512 KiB prose source with curly
// quotes; 32 quote citations (the scan budget) cycling through an ASCII
// retyping (normalized), a changed word (a partial match), a claimed_start
// off by one (position_mismatch) and a common word (ambiguous_anchor); the
// rest of the 1 MiB body position citations with long quotes and byte
// offsets (quote_mismatch, elsewhere and offset_units).
var failingMaxBody = sync.OnceValue(func() []byte {
	rng := newRand(909)
	p := &proseGen{rng: rng}
	text := p.text(MaxTextBytes)
	r := []rune(text)
	srcs := []reqSource{{"corpus", "v1", text}}
	var cits []reqCitation
	for i := range 32 {
		c := pickAnchor(rng, "q"+strconv.Itoa(i), "corpus", "v1", r, text, [2]int{50, 300}, [2]int{0, 0}, [2]int{0, 0}, true, 0)
		e := c.Exact
		switch i % 4 {
		case 0:
			e = referenceFold(e, FoldTypography)
			if e == c.Exact {
				e = strings.ToUpper(e)
			}
		case 1:
			mid := strings.IndexByte(e[len(e)/2:], ' ') + len(e)/2
			e = e[:mid] + " fabricated" + e[mid:]
		case 2:
			c = c.claimed(strings.Index(text, e)) // a byte offset, so off where there is a curly quote before
			if !utf8.ValidString(text[:*c.ClaimedStart]) || utf8.RuneCountInString(text[:*c.ClaimedStart]) == *c.ClaimedStart {
				c = c.claimed(*c.ClaimedStart + 1)
			}
		case 3:
			e = "the"
		}
		c.Exact = e
		cits = append(cits, c)
	}
	const room = MaxInputBytes - 2048
	size := len(encodeRequest(srcs, cits))
	for i := 0; ; i++ {
		id := "f" + strconv.Itoa(i)
		overhead := len(positionCite(id, "corpus", "v1", 0, 0, "").appendJSON(nil)) + 16
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
		c := positionCite(id, "corpus", "v1", start, end, text[start:end]) // byte offsets
		size += len(c.appendJSON(nil)) + 1
		cits = append(cits, c)
	}
	return encodeRequest(srcs, cits)
})

func TestFailingMaxBodyFailsEverywhere(t *testing.T) {
	body := failingMaxBody()
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

// BenchmarkExplainFailingMax compares explaining a maximum-size request in
// which every citation fails with checking it to the end (CheckAll, what
// --all does; Check would stop at the first): the target is a ratio of at
// most 10.
func BenchmarkExplainFailingMax(b *testing.B) {
	req, err := Decode(failingMaxBody())
	if err != nil {
		b.Fatal(err)
	}
	b.Run("check_all", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			CheckAll(req)
		}
	})
	b.Run("explain", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			Explain(req)
		}
	})
}
