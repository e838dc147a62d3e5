package search

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// rareText is n bytes of a short unit repeated, with rare bytes put in:
// '#' once, '@' a few times, '%' at the text's first and last byte, and
// '!' a little more often than rareMax allows (so it is dense).
func rareText(r *rand.Rand, n int) string {
	unit := make([]byte, 1+r.IntN(40))
	for i := range unit {
		unit[i] = "abcde "[r.IntN(6)]
	}
	t := []byte(strings.Repeat(string(unit), n/len(unit)+1)[:n])
	t[r.IntN(n)] = '#'
	for range 1 + r.IntN(6) {
		t[r.IntN(n)] = '@'
	}
	t[0], t[n-1] = '%', '%'
	for range rareMax(n) + 1 + r.IntN(8) {
		t[r.IntN(n)] = '!'
	}
	return string(t)
}

// rarePatterns cuts patterns from text around its rare bytes: with the
// byte first, last or inside, short and long, as they are and with a byte
// changed (to a rare one, or away from one), and plain periodic cuts.
func rarePatterns(r *rand.Rand, text string) []string {
	var pats []string
	for _, b := range []byte("#@%!a") {
		from := r.IntN(len(text) / 2)
		i := strings.IndexByte(text[from:], b)
		if i < 0 {
			from, i = 0, strings.IndexByte(text, b)
		}
		if i < 0 {
			continue
		}
		at := from + i
		for _, l := range []int{2, 3, 17, 64, 300, 5000} {
			for _, lo := range []int{at, at - l + 1, at - l/2} {
				lo = max(0, min(lo, len(text)-l))
				p := []byte(text[lo : lo+l])
				pats = append(pats, string(p))
				p[r.IntN(l)] = "#@x"[r.IntN(3)]
				pats = append(pats, string(p))
			}
		}
	}
	return pats
}

// The rare-byte lists one Text keeps across its Finds never change an
// answer: every pattern around a rare byte, a dense one or none, found
// through one Text (so later Finds read the lists earlier ones built),
// has the brute force's occurrences. And the lists are there to be read:
// '#' is listed, '!' marked dense.
func TestRareByteListsAnswerAsTheBruteForceAcrossFinds(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(24, 1))
	texts := 12
	if testing.Short() {
		texts = 3
	}
	for range texts {
		text := rareText(r, rareListMinText+r.IntN(3*rareListMinText))
		x := NewText(text, Plan{})
		for _, pat := range rarePatterns(r, text) {
			want, kept := bruteOccurrences(text, pat), bruteFrom(text, pat, 0, 8)
			got := x.Find(pat, make([]int, 0, 8))
			if got.Count != want.Count || got.First != want.First || !slices.Equal(got.Kept, kept) {
				t.Fatalf("Find(%.40q, len %d) on a text of %d = %d %v %v, want %d %v %v",
					pat, len(pat), len(text), got.Count, got.First, got.Kept, want.Count, want.First, kept)
			}
		}
		if l := x.rare.list(text, '#', x.byteRanks()); l == nil || len(l.pos) != 1 {
			t.Errorf("'#' (once in the text) is not listed: %v", l)
		}
		if x.rare.dense['!'/64].Load()&(1<<('!'%64)) == 0 && x.rare.list(text, '!', x.byteRanks()) != nil {
			t.Errorf("'!' (%d times, over %d) is listed", strings.Count(text, "!"), rareMax(len(text)))
		}
	}
}

// A pattern that holds a listed byte takes its candidates from the list
// alone: no q-gram skip, no pass over the text (the work it reports is its
// candidates' and their compares', far under a scan's).
func TestAListedRareByteSparesTheScan(t *testing.T) {
	t.Parallel()
	text := []byte(strings.Repeat("the cat sat on. ", 1<<14)) // 256 KiB, period 16
	text[100003] = '#'
	s := string(text)
	x := NewText(s, Plan{})
	first := s[100003-9000 : 100003+3000]
	if o := x.Find(first, nil); o.Count != 1 {
		t.Fatalf("first find: %d occurrences", o.Count)
	}
	var tr matchTrace
	pat := s[100003-5000 : 100003+7000]
	o := match(Occurrences{First: [2]int{-1, -1}}, s, pat, x, prefilterSlack, &tr)
	if o.Count != 1 || o.First[0] != 100003-5000 {
		t.Fatalf("second find: %+v", o)
	}
	if tr.qgram || tr.work > 2*len(pat)/8+64 {
		t.Errorf("the second find skipped or scanned: q-gram %v, work %d (a scan's is about %d)", tr.qgram, tr.work, len(s)/simdBytesPerStep)
	}
}

// The lists are bounded: at most rareLists byte values, each of at most
// rareMax offsets, whatever the finds ask (memory n/32 bytes at most).
func TestRareByteListsAreBounded(t *testing.T) {
	t.Parallel()
	text := []byte(strings.Repeat("ab", 1<<16))
	for k := range 40 { // 40 byte values, each once
		text[1000+k*1000] = byte('0' + k)
	}
	s := string(text)
	x := NewText(s, Plan{})
	for k := range 40 {
		at := 1000 + k*1000
		if o := x.Find(s[at-20:at+20], nil); o.Count != 1 {
			t.Fatalf("%c: %d occurrences", '0'+k, o.Count)
		}
	}
	n := 0
	for k := range x.rare.lists {
		if l := x.rare.lists[k].Load(); l != nil {
			n++
			if len(l.pos) > rareMax(len(s)) {
				t.Errorf("%c has %d offsets, over %d", l.b, len(l.pos), rareMax(len(s)))
			}
		}
	}
	if n != rareLists {
		t.Errorf("%d lists, want all %d used and no more", n, rareLists)
	}
}

// FuzzRareByteListsAgainstBrute: on a long text made of a fuzzed unit
// with fuzzed bytes put in at fuzzed places, patterns cut from it (and
// one with a byte changed), found in turn through one Text, have the
// brute force's occurrences.
func FuzzRareByteListsAgainstBrute(f *testing.F) {
	f.Add("the cat sat on. ", []byte("#\x10\x00@\x80\x00"), []byte("\x00\x20\x10\x00\x30\x00\x40\x00"))
	f.Add("ab", []byte("#\xff\xff"), []byte("\xf0\xff\x20\x00"))
	f.Add("a", []byte("b\x00\x80"), []byte("\xf8\x7f\x10\x00"))
	f.Fuzz(func(t *testing.T, unit string, puts, cuts []byte) {
		if unit == "" || len(unit) > 64 {
			return
		}
		n := rareListMinText + len(unit)
		text := []byte(strings.Repeat(unit, n/len(unit)+1)[:n])
		for i := 0; i+3 <= len(puts) && i < 3*64; i += 3 {
			at := int(puts[i+1])<<8 | int(puts[i+2]) // a fraction of the text, in 65,536ths
			text[at*len(text)>>16] = puts[i]
		}
		s := string(text)
		x := NewText(s, Plan{})
		for i := 0; i+4 <= len(cuts) && i < 4*6; i += 4 {
			lo := (int(cuts[i])<<8 | int(cuts[i+1])) * len(s) >> 16
			l := 1 + int(cuts[i+2])<<8 | int(cuts[i+3])
			l = min(l%8192+1, len(s)-lo)
			pats := []string{s[lo : lo+l]}
			if l > 1 {
				p := []byte(pats[0])
				p[l/2] = cuts[i]
				pats = append(pats, string(p))
			}
			for _, pat := range pats {
				want := bruteOccurrences(s, pat)
				if got := x.Find(pat, nil); got.Count != want.Count || got.First != want.First {
					t.Fatalf("Find(%.40q, len %d) = %d %v, want %d %v", pat, len(pat), got.Count, got.First, want.Count, want.First)
				}
			}
		}
	})
}
