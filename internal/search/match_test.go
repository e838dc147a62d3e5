package search

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/citecheck/citecheck/internal/testkit"
	"github.com/citecheck/citecheck/internal/utext"
)

// staticRanks is byteRank as byteRanks, the ranks tests scan with
// when they want the matcher without the text's own ranks.
var staticRanks = func() (r byteRanks) {
	for b, rank := range byteRank {
		r[b] = uint32(rank)
	}
	return r
}()

// findOccurrences reports where pattern occurs in text, bytewise,
// overlapping Occurrences included; offsets are bytes. (The engine calls
// textIndex.find, with the text's own byte ranks; tests use the static
// ones.) An empty pattern occurs at every
// offset 0..len(text). Time is linear in len(text)+len(pattern) whatever the
// input; extra memory is O(1), or O(len(pattern)) once the KMP fallback runs.
func findOccurrences(text, pattern string) Occurrences {
	return findOccurrencesWith(text, pattern, &staticRanks, prefilterSlack, nil)
}

// findOccurrencesWith is findOccurrences with the byte ranks and the
// fallback slack as parameters, so tests can force the KMP fallback early
// (slack < 0 falls back at once), and an optional trace (nil in production).
func findOccurrencesWith(text, pat string, rank *byteRanks, slack int, tr *matchTrace) Occurrences {
	return match(Occurrences{First: [2]int{-1, -1}}, text, pat, rank, slack, tr)
}

// bruteOccurrences is the reference: compare pattern at every offset.
func bruteOccurrences(text, pattern string) Occurrences {
	o := Occurrences{First: [2]int{-1, -1}}
	for i := 0; i+len(pattern) <= len(text); i++ {
		if text[i:i+len(pattern)] == pattern {
			o.add(i)
		}
	}
	return o
}

// matchSlacks are the fallback matchSlacks every comparison runs with: production,
// KMP from the start, and a switch from prefilter to KMP part-way.
var matchSlacks = []int{prefilterSlack, -1, 0, 12}

// checkOccurrencesAgainstBrute fails t if scan disagrees with the brute force for text
// and pattern under any of matchSlacks.
func checkOccurrencesAgainstBrute(t testing.TB, text, pattern string) {
	t.Helper()
	want := bruteOccurrences(text, pattern)
	for _, slack := range matchSlacks {
		if got := findOccurrencesWith(text, pattern, &staticRanks, slack, nil); !sameOccurrences(got, want) {
			t.Fatalf("findOccurrencesWith(%.60q (len %d), %.60q (len %d), slack %d) = %+v, want %+v",
				text, len(text), pattern, len(pattern), slack, got, want)
		}
	}
	if got := findOccurrences(text, pattern); !sameOccurrences(got, want) {
		t.Fatalf("findOccurrences(%.60q, %.60q) = %+v, want %+v", text, pattern, got, want)
	}
}

func TestFindOccurrencesAgreesWithBruteForceOnEveryTinyInput(t *testing.T) {
	t.Parallel()
	// -short stops texts two code points shorter: a quarter to a ninth of
	// the inputs, every pattern still tried.
	short := 0
	if testing.Short() {
		short = 2
	}
	for _, c := range []struct {
		alphabet        string
		maxText, maxPat int
	}{
		{"ab", 12, 5},
		{"abc", 8, 4},
		{"aq", 10, 5}, // 'q' is rare by byteRank, 'a' common: exercises the b2 check
	} {
		t.Run(c.alphabet, func(t *testing.T) {
			t.Parallel()
			texts, pats := testkit.AllStrings(c.alphabet, c.maxText-short), testkit.AllStrings(c.alphabet, c.maxPat)
			for _, text := range texts {
				for _, pat := range pats {
					checkOccurrencesAgainstBrute(t, text, pat)
				}
			}
		})
	}
}

func TestFindOccurrencesCountsOverlappingOccurrences(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text, pat string
		want      Occurrences
	}{
		{"bananas", "ana", Occurrences{Count: 2, First: [2]int{1, 3}}},
		{"aaaa", "aa", Occurrences{Count: 3, First: [2]int{0, 1}}},
		{"abababab", "abab", Occurrences{Count: 3, First: [2]int{0, 2}}},
		{"bananas", "s", Occurrences{Count: 1, First: [2]int{6, -1}}},
		{"bananas", "x", Occurrences{Count: 0, First: [2]int{-1, -1}}},
		{"ana", "bananas", Occurrences{Count: 0, First: [2]int{-1, -1}}},
	} {
		if got := findOccurrences(c.text, c.pat); !sameOccurrences(got, c.want) {
			t.Errorf("findOccurrences(%q, %q) = %+v, want %+v", c.text, c.pat, got, c.want)
		}
	}
}

func TestFindOccurrencesEmptyPatternOccursAtEveryOffset(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		text string
		want Occurrences
	}{
		{"", Occurrences{Count: 1, First: [2]int{0, -1}}},
		{"x", Occurrences{Count: 2, First: [2]int{0, 1}}},
		{"abc", Occurrences{Count: 4, First: [2]int{0, 1}}},
	} {
		if got := findOccurrences(c.text, ""); !sameOccurrences(got, c.want) {
			t.Errorf("findOccurrences(%q, \"\") = %+v, want %+v", c.text, got, c.want)
		}
	}
}

func TestFindOccurrencesCountsOverlappingRunsByExtension(t *testing.T) {
	t.Parallel()
	text := testkit.AdversarialMatchText()
	var tr matchTrace
	got := findOccurrencesWith(text, strings.Repeat("a", 8000), &staticRanks, prefilterSlack, &tr)
	want := Occurrences{Count: (262140 - 8000 + 1) + (262139 - 8000 + 1), First: [2]int{0, 1}}
	if !sameOccurrences(got, want) {
		t.Fatalf("a*8000: got %+v, want %+v", got, want)
	}
	if tr.fellBack || tr.runs != 2 {
		t.Errorf("a*8000: trace %+v, want 2 runs and no fallback", tr)
	}
}

func TestFindOccurrencesFindsTheOneOccurrenceInAdversarialText(t *testing.T) {
	t.Parallel()
	a := strings.Repeat("a", 7999)
	for _, c := range []struct {
		name, text, pat string
		want            Occurrences
	}{
		{"a7999b", testkit.AdversarialMatchText(), a + "b", Occurrences{Count: 1, First: [2]int{262140 - 7999, -1}}},
		{"ba7999", testkit.AdversarialMatchText(), "b" + a, Occurrences{Count: 1, First: [2]int{262140, -1}}},
		{"a16383b", strings.Repeat("a", 1<<19), strings.Repeat("a", 16383) + "b", Occurrences{Count: 0, First: [2]int{-1, -1}}},
	} {
		var tr matchTrace
		if got := findOccurrencesWith(c.text, c.pat, &staticRanks, prefilterSlack, &tr); !sameOccurrences(got, c.want) {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
		if tr.fellBack {
			t.Errorf("%s: fell back to KMP", c.name)
		}
		for _, slack := range matchSlacks[1:] {
			if got := findOccurrencesWith(c.text, c.pat, &staticRanks, slack, nil); !sameOccurrences(got, c.want) {
				t.Errorf("%s, slack %d: got %+v, want %+v", c.name, slack, got, c.want)
			}
		}
	}
}

// periodicMatchText returns n bytes of words drawn from a few short words over a
// small alphabet, with about one byte in every mutateEvery replaced.
func periodicMatchText(r *rand.Rand, n, mutateEvery int) string {
	words := make([]string, 1+r.IntN(3))
	for i := range words {
		w := make([]byte, 1+r.IntN(5))
		for j := range w {
			w[j] = "abq "[r.IntN(4)]
		}
		words[i] = string(w)
	}
	var b strings.Builder
	for b.Len() < n {
		w := words[r.IntN(len(words))]
		for k := r.IntN(20); k >= 0; k-- {
			b.WriteString(w)
		}
	}
	s := []byte(b.String()[:n])
	for i := range s {
		if r.IntN(mutateEvery) == 0 {
			s[i] = "abqz"[r.IntN(4)]
		}
	}
	return string(s)
}

func TestFindOccurrencesAgreesWithBruteForceOnPeriodicText(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	var runs, fellBack int
	iters := 400
	if testing.Short() {
		iters = 100
	}
	for range iters {
		text := periodicMatchText(r, 1000+r.IntN(7000), 50+r.IntN(2000))
		for range 5 {
			var pat string
			switch r.IntN(4) {
			case 0: // a short cut, likely to occur many times
				i := r.IntN(len(text))
				pat = text[i : i+min(1+r.IntN(8), len(text)-i)]
			case 1, 2: // a long cut, possibly spanning a run end
				i := r.IntN(len(text))
				pat = text[i : i+min(1+r.IntN(600), len(text)-i)]
			default: // a cut with one byte changed
				i := r.IntN(len(text))
				p := []byte(text[i : i+min(1+r.IntN(100), len(text)-i)])
				p[r.IntN(len(p))] = "abqz"[r.IntN(4)]
				pat = string(p)
			}
			checkOccurrencesAgainstBrute(t, text, pat)
			var tr matchTrace
			findOccurrencesWith(text, pat, &staticRanks, prefilterSlack, &tr)
			runs += tr.runs
			if tr.fellBack {
				fellBack++
			}
		}
	}
	if runs == 0 || fellBack == 0 {
		t.Errorf("the cases did not exercise both paths: %d runs extended, %d fallbacks", runs, fellBack)
	}
}

func TestFindOccurrencesLeavesTheRareBytesForTheWindowWhenTheyAreEverywhere(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	b := make([]byte, 1<<16)
	for i := range b {
		b[i] = "qz"[r.IntN(2)]
	}
	text := string(b)
	// Patterns too short for the q-gram skip: the rare bytes, then the window.
	for _, pat := range []string{text[40000:40003], "qzqzqzqz", text[5000:5015]} {
		var tr matchTrace
		got := findOccurrencesWith(text, pat, &staticRanks, prefilterSlack, &tr)
		if want := bruteOccurrences(text, pat); !sameOccurrences(got, want) {
			t.Errorf("%q: got %+v, want %+v", pat, got, want)
		}
		if tr.qgram || !tr.windowed {
			t.Errorf("%q: trace %+v, want the window and no q-gram phase", pat, tr)
		}
	}
}

// TestFindOccurrencesLeavesAPoorQgramSkipForARareByte: in periodic text
// (a period of 48 bytes) the pattern's q-grams recur every period, so the
// skip meets a candidate each period and costs about a unit per 3 bytes,
// within its budget; a pattern that holds a byte rare in the text (one
// mutation in 16,001 bytes) is then found by that byte, at under a unit
// per 8 bytes, and exactly. With the static ranks, which hold no counts,
// the skip goes on. A pattern of the period alone (occurring everywhere)
// is counted exactly either way.
func TestFindOccurrencesLeavesAPoorQgramSkipForARareByte(t *testing.T) {
	t.Parallel()
	block := testkit.RandomText(testkit.NewRand(5), "abcdefghijklmnopqrstuvwxyz", 48, 0)
	b := []byte(strings.Repeat(block, (1<<19)/48+1)[:1<<19])
	for at := 4000; at < len(b); at += 16001 {
		b[at] = 'Z'
	}
	text := string(b)
	for _, pat := range []string{text[4000-40 : 4000+60], text[20001-90 : 20001+10], text[9000:9100]} {
		work := map[bool]int{}
		for _, own := range []bool{false, true} {
			ranks := &staticRanks
			if own {
				ranks = textRanks(text)
			}
			var tr matchTrace
			got := findOccurrencesWith(text, pat, ranks, prefilterSlack, &tr)
			if want := bruteOccurrences(text, pat); !sameOccurrences(got, want) {
				t.Fatalf("%.20q (own ranks %v): got %+v, want %+v", pat, own, got, want)
			}
			work[own] = tr.work
		}
		rare := strings.Contains(pat, "Z")
		// IndexByte's bytes alone are a unit per simdBytesPerStep (16).
		if rare && (work[true]*8 > len(text) || work[false]*4 < len(text)) {
			t.Errorf("%.20q: work %d with the text's ranks, %d with the static ones, in %d bytes", pat, work[true], work[false], len(text))
		}
	}
}

func TestFindOccurrencesSkipsByQgramsWhereNoByteIsRare(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, alphabet := range []string{"qz", "ACGT", "0123456789abcdef"} {
		b := make([]byte, 1<<17)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		text := string(b)
		own := textRanks(text) // by which a poor skip weighs the rare bytes: none is rare here
		for _, pat := range []string{text[5000:5016], text[20000:20100], text[100000:100400], strings.Repeat(alphabet[:1], 29) + alphabet[1:2]} {
			for _, ranks := range []*byteRanks{&staticRanks, own} {
				var tr matchTrace
				got := findOccurrencesWith(text, pat, ranks, prefilterSlack, &tr)
				if want := bruteOccurrences(text, pat); !sameOccurrences(got, want) {
					t.Errorf("%s, %.20q: got %+v, want %+v", alphabet, pat, got, want)
				}
				if !tr.qgram || tr.windowed || tr.fellBack {
					t.Errorf("%s, %.20q: trace %+v, want the q-gram skip alone", alphabet, pat, tr)
				}
			}
		}
	}
}

func TestFindOccurrencesFallsBackPhaseByPhaseToKMP(t *testing.T) {
	// a* gives the q-gram skip steps of 1 (the pattern's a^8 ends one
	// before its end); (ab)* makes every b a candidate of the rare bytes
	// and every even offset one of the window (ab)^16, none an occurrence.
	text := strings.Repeat("a", qgramMinText) + strings.Repeat("ab", qgramMinText)
	pat := strings.Repeat("ab", 20) + strings.Repeat("a", 8) + "b"
	var tr matchTrace
	got := findOccurrencesWith(text, pat, &staticRanks, prefilterSlack, &tr)
	if want := bruteOccurrences(text, pat); !sameOccurrences(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if !tr.qgram || !tr.windowed || !tr.fellBack {
		t.Errorf("trace %+v, want every phase and KMP", tr)
	}
}

// TestQgramLanesReturnEveryOccurrenceInOrder checks the q-gram phase alone:
// every occurrence is among its candidates, which rise strictly, whatever
// the number of lanes (text length) and of queued candidates (a low-entropy
// text where the last q-gram recurs often fills the queues).
func TestQgramLanesReturnEveryOccurrenceInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for iter := range 300 {
		n := 100 + r.IntN(40000)
		text := periodicMatchText(r, n, 20+r.IntN(500))
		if iter%3 == 0 {
			text = testkit.RandomText(r, "ab", n, 0)
		}
		i := r.IntN(n - qgramMinLen)
		pat := text[i : i+min(qgramMinLen+r.IntN(300), n-i)]
		var qt qgramTable
		qt.init(pat)
		var cands []int
		last := n - len(pat)
		for a := 0; a <= last; {
			c, _, ok := qt.next(text, a, last, 0, 1<<62)
			if !ok {
				break
			}
			if len(cands) > 0 && c <= cands[len(cands)-1] {
				t.Fatalf("candidate %d after %d", c, cands[len(cands)-1])
			}
			cands = append(cands, c)
			a = c + 1
		}
		j := 0
		for a := 0; a <= last; a++ {
			if text[a:a+len(pat)] != pat {
				continue
			}
			for j < len(cands) && cands[j] < a {
				j++
			}
			if j == len(cands) || cands[j] != a {
				t.Fatalf("n=%d, pattern %.30q: occurrence at %d is no candidate", n, pat, a)
			}
		}
	}
}

// A q-gram that only hashes like the pattern's last one is no
// candidate, and the skip goes on one alignment: no further, for the next
// alignment may be an occurrence. The pattern here is one whose q-gram
// before the last collides with the last, so that the alignment just
// before each occurrence is such a collision, and the text holds it after
// fillers of every length, so that the skips land there.
func TestQgramCollisionMovesOneAlignment(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	var pat string
	for {
		pat = testkit.RandomText(r, "abcdefghijklmnopqrstuvwxyz", 24, 0)
		m := len(pat)
		if a, b := utext.Load64(pat, m-9), utext.Load64(pat, m-8); a != b && qgramHash(a) == qgramHash(b) {
			break
		}
	}
	var b strings.Builder
	for b.Len() < 4*qgramMinText {
		b.WriteString(testkit.RandomText(r, "abcdefghijklmnopqrstuvwxyz", r.IntN(2*len(pat)), 0))
		b.WriteString(pat)
	}
	text := b.String()
	if got, want := findOccurrences(text, pat).Count, testkit.CountOverlapping(text, pat); got != want {
		t.Fatalf("%d occurrences, want %d", got, want)
	}
}

func TestFindOccurrencesKeepsThePrefilterOnProse(t *testing.T) {
	t.Parallel()
	text := proseMatchText(1 << 19)
	for _, at := range []int{1000, len(text) / 2, len(text) - 500} {
		for _, m := range []int{50, 200, 300} {
			pat := text[at : at+m]
			var tr matchTrace
			got := findOccurrencesWith(text, pat, &staticRanks, prefilterSlack, &tr)
			if want := bruteOccurrences(text, pat); !sameOccurrences(got, want) {
				t.Errorf("pattern at %d, len %d: got %+v, want %+v", at, m, got, want)
			}
			if tr.fellBack {
				t.Errorf("pattern at %d, len %d: fell back to KMP on prose", at, m)
			}
		}
	}
}

func TestCommonPrefixLenFindsTheFirstDifference(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 100, 1000, 4096, 5000, 20000} {
		a := strings.Repeat("x", n)
		for range 20 {
			b := []byte(a)
			want := n
			if n > 0 && r.IntN(5) != 0 {
				want = r.IntN(n)
				b[want] = 'y'
			}
			if got := utext.CommonPrefixLen(a, string(b)); got != want {
				t.Fatalf("n=%d: got %d, want %d", n, got, want)
			}
			if got := utext.CommonPrefixLen(a, string(b)+"tail"); got != want {
				t.Fatalf("n=%d, longer b: got %d, want %d", n, got, want)
			}
		}
	}
}

func TestKMPTableHoldsBordersWithDifferentNextByte(t *testing.T) {
	t.Parallel()
	for _, pat := range testkit.AllStrings("ab", 8)[1:] {
		next := kmpTable(pat)
		for q := 0; q <= len(pat); q++ {
			want := -1
			for b := q - 1; b >= 0; b-- {
				if pat[:b] == pat[q-b:q] && (q == len(pat) || pat[b] != pat[q]) {
					want = b
					break
				}
			}
			if int(next[q]) != want {
				t.Fatalf("kmpTable(%q)[%d] = %d, want %d", pat, q, next[q], want)
			}
		}
	}
}

func FuzzFindOccurrences(f *testing.F) {
	f.Add("bananas", "ana", uint8(0))
	f.Add("", "", uint8(0))
	f.Add("abc", "", uint8(3))
	f.Add("aaaaaaaaabaaaaaaaa", "aaaa", uint8(0))
	f.Add("aaaaaaaab", "aaab", uint8(30))
	f.Add("baaaaaaa", "baaa", uint8(30))
	f.Add("abaab", "abaababaab", uint8(20))
	f.Add("qzqqzqzq", "zqz", uint8(200))
	f.Add("the cat sat on the mat. ", "at on the mat. the", uint8(40))
	f.Add("aab", "aabaabaa", uint8(255))
	f.Fuzz(func(t *testing.T, unit, pattern string, reps uint8) {
		// Repeating the unit gives the periodic texts where runs, the
		// budget and the fallback matter; mutate one byte to end a run.
		if len(unit)*(1+int(reps)%64) > 1<<14 || len(pattern) > 1<<10 {
			return // keep the brute force (and minimisation) fast
		}
		text := strings.Repeat(unit, 1+int(reps)%64)
		if reps >= 128 && len(text) > 0 {
			b := []byte(text)
			b[int(reps)*7919%len(b)] ^= 1
			text = string(b)
		}
		checkOccurrencesAgainstBrute(t, text, pattern)
		if len(pattern) > 0 && len(text) > 0 {
			// A pattern cut from the text occurs at least once.
			i := int(reps) % len(text)
			checkOccurrencesAgainstBrute(t, text, text[i:min(len(text), i+len(pattern))])
		}
	})
}

func TestRareOffsetsPicksTheTwoRarestByteValues(t *testing.T) {
	t.Parallel()
	rarest := func(pat string, skip int) int {
		best := -1
		for i := range len(pat) {
			if (skip < 0 || pat[i] != pat[skip]) && (best < 0 || byteRank[pat[i]] < byteRank[pat[best]]) {
				best = i
			}
		}
		return best
	}
	r := rand.New(rand.NewPCG(7, 8))
	pats := []string{"ab", "aa", "ba", strings.Repeat("a", 100), strings.Repeat("a", 99) + "b", "b" + strings.Repeat("a", 99)}
	for range 2000 {
		b := make([]byte, 2+r.IntN(70))
		for i := range b {
			const alphabet = "eetaoQz,. \x00\xff"
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		pats = append(pats, string(b))
	}
	for _, pat := range pats {
		off1, off2 := rareOffsets(pat, &staticRanks)
		want1 := rarest(pat, -1)
		want2 := rarest(pat, want1)
		if want2 < 0 {
			want2 = want1 + 1
			if want2 == len(pat) {
				want2 = want1 - 1
			}
		}
		if off1 != want1 || off2 != want2 {
			t.Fatalf("rareOffsets(%q) = %d, %d, want %d, %d", pat, off1, off2, want1, want2)
		}
	}
}

// sameOccurrences compares what findOccurrences promises: the count and the
// first two offsets (kept offsets are an optimisation, tested separately).
func sameOccurrences(a, b Occurrences) bool { return a.Count == b.Count && a.First == b.First }

// FuzzFindOccurrencesInLongPeriodicText: a unit repeated past
// qgramMinText (so the q-gram skip goes first), with a byte changed at
// a fuzzed offset, searched with the text's own ranks (so a poor skip
// weighs the rare bytes, and the changed byte is one) for a pattern cut
// around the change and for one of the period alone: every occurrence,
// as the brute force finds them.
func FuzzFindOccurrencesInLongPeriodicText(f *testing.F) {
	f.Add("abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuv", uint16(4000), uint8(90), byte('Z'))
	f.Add("ab", uint16(17), uint8(40), byte('b'))
	f.Add("the cat sat on the mat. ", uint16(9999), uint8(255), byte('!'))
	f.Fuzz(func(t *testing.T, unit string, at uint16, length uint8, mutant byte) {
		if len(unit) == 0 || len(unit) > 512 {
			return
		}
		b := []byte(strings.Repeat(unit, (qgramMinText+8192)/len(unit)+1))
		i := int(at) % len(b)
		b[i] = mutant
		text := string(b)
		m := 16 + int(length)
		lo := max(0, i-m/2)
		for _, pat := range []string{text[lo:min(len(text), lo+m)], strings.Repeat(unit, m/len(unit)+1)[:m]} {
			want := bruteOccurrences(text, pat)
			if got := findOccurrencesWith(text, pat, textRanks(text), prefilterSlack, nil); !sameOccurrences(got, want) {
				t.Fatalf("%.40q in %d bytes of %.20q: got %+v, want %+v", pat, len(text), unit, got, want)
			}
		}
	})
}
