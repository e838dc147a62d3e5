package testkit

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"unicode/utf8"
)

// NewRand is a PCG generator seeded from seed alone: the same seed gives
// the same sequence on every run and machine.
func NewRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed*0x9E3779B97F4A7C15+1))
}

// Corpus writes deterministic text drawn from Rand: English-like prose
// (Prose, Sentence), text in many scripts (Unicode), and strings over a
// given alphabet (Runes). Every call draws from Rand, so a test that also
// draws from it (to pick citations) gets the same text and picks on every
// run.
type Corpus struct {
	Rand *rand.Rand
	// ASCII keeps prose to one byte per code point: no curly quotes or
	// apostrophes.
	ASCII bool
}

// NewCorpus is a Corpus drawing from NewRand(seed).
func NewCorpus(seed uint64) *Corpus { return &Corpus{Rand: NewRand(seed)} }

// proseWords is a small vocabulary; Word picks from it with a Zipf-like
// skew so that short common words repeat as in real prose (which makes
// short anchors ambiguous and long ones unique, as in real answers).
var proseWords = strings.Fields(`the of and to a in is it you that he was for on are
with as I his they be at one have this from or had by hot word but what some we
can out other were all there when up use your how said an each she which do their
time if will way about many then them write would like so these her long make
thing see him two has look more day could go come did number sound no most people
my over know water than call first who may down side been now find any new work
part take get place made live where after back little only round man year came
show every good me give our under name very through just form sentence great think
say help low line differ turn cause much mean before move right boy old too same
tell does set three want air well also play small end put home read hand port
large spell add even land here must big high such follow act why ask men change
went light kind off need house picture try us again animal point mother world near
build self earth father head stand own page should country found answer school grow
study still learn plant cover food sun four between state keep eye never last let
thought city tree cross farm hard start might story saw far sea draw left late run
evidence archive ledger treaty harbour census manuscript council verdict witness`)

var proseNames = []string{"Ada", "Turing", "Noether", "Hopper", "Lovelace", "Euler", "Gauss",
	"Riemann", "Shannon", "Knuth", "Dijkstra", "Hamming", "Liskov", "Babbage", "Curie"}

// Word is one word of the vocabulary, common words more often.
func (c *Corpus) Word() string {
	i := int(math.Pow(c.Rand.Float64(), 2.2) * float64(len(proseWords)))
	return proseWords[min(i, len(proseWords)-1)]
}

// Sentence is one sentence of 6 to 26 words, capitalised and punctuated,
// with names, numbers, commas, parentheses, and (unless ASCII) possessives
// and quoted speech in curly quotes.
func (c *Corpus) Sentence() string {
	rng := c.Rand
	n := 6 + rng.IntN(21)
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		var w string
		switch x := rng.Float64(); {
		case x < 0.03:
			w = proseNames[rng.IntN(len(proseNames))]
		case x < 0.05:
			w = strconv.Itoa(2 + rng.IntN(2023))
		case x < 0.07 && !c.ASCII:
			w = c.Word() + "\u2019s" // curly apostrophe
		default:
			w = c.Word()
		}
		if i == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		b.WriteString(w)
		if i < n-1 && rng.Float64() < 0.08 {
			b.WriteByte(',')
		}
	}
	s := b.String()
	switch x := rng.Float64(); {
	case x < 0.05 && !c.ASCII:
		return "\u201c" + s + ",\u201d " + proseNames[rng.IntN(len(proseNames))] + " said."
	case x < 0.08:
		return s + " (" + c.Word() + " " + c.Word() + ")."
	}
	return s + string(".......?!"[rng.IntN(9)])
}

// Prose is exactly nbytes bytes of UTF-8 prose in paragraphs of 3 to 8
// sentences.
func (c *Corpus) Prose(nbytes int) string {
	var b strings.Builder
	for b.Len() < nbytes+64 {
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		for k := range 3 + c.Rand.IntN(6) {
			if k > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(c.Sentence())
		}
	}
	t := b.String()[:nbytes]
	for !utf8.ValidString(t) { // a multi-byte char was cut: drop it, pad with '.'
		t = t[:len(t)-1]
	}
	return t + strings.Repeat(".", nbytes-len(t))
}

// Runes is n code points drawn uniformly from alphabet.
func (c *Corpus) Runes(alphabet []rune, n int) []rune {
	s := make([]rune, n)
	for i := range s {
		s[i] = alphabet[c.Rand.IntN(len(alphabet))]
	}
	return s
}

// RuneRange is the code points lo … hi-1, each as a string.
func RuneRange(lo, hi rune) []string {
	var s []string
	for c := lo; c < hi; c++ {
		s = append(s, string(c))
	}
	return s
}

// Unicode is at most nbytes bytes (and within 4 of it) of text in many
// scripts: CJK, kana, emoji (astral, with skin tones, ZWJ sequences,
// flags), Latin with combining marks (NFD), Hebrew with niqqud, Devanagari
// with vowel signs, astral math letters, and CJK and ASCII punctuation.
func (c *Corpus) Unicode(nbytes int) string {
	rng := c.Rand
	cjk := RuneRange(0x4E00, 0x9FA6)
	kana := append(RuneRange(0x3041, 0x3097), RuneRange(0x30A1, 0x30FB)...)
	emoji := append(append(RuneRange(0x1F300, 0x1F5FF), RuneRange(0x1F600, 0x1F650)...), RuneRange(0x1F90C, 0x1F9FF)...)
	people := []string{"\U0001F44B", "\U0001F44D", "\U0001F64F", "\U0001F466", "\U0001F467", "\U0001F468", "\U0001F469", "\U0001F9D1"}
	tones := RuneRange(0x1F3FB, 0x1F400)
	zwjAndFlags := []string{
		"\U0001F469\u200D\U0001F4BB", "\U0001F468\u200D\U0001F469\u200D\U0001F467",
		"\U0001F3F3\uFE0F\u200D\U0001F308", "\U0001F9D1\U0001F3FD\u200D\U0001F52C",
		"\U0001F1EF\U0001F1F5", "\U0001F1EE\U0001F1F1", "\U0001F1E9\U0001F1EA",
	}
	marks := RuneRange(0x300, 0x370)
	hebrew, niqqud := RuneRange(0x5D0, 0x5EB), RuneRange(0x5B0, 0x5BD)
	deva := RuneRange(0x915, 0x939)
	devaSigns := []string{"\u093E", "\u093F", "\u0940", "\u0941", "\u0947", "\u094B", "\u094D", "\u0902"}
	math := RuneRange(0x1D400, 0x1D6A4)
	punct := []string{"\u3001", "\u3002", "\uFF0C", " ", " ", "\u3000", "\n", "\u300C", "\u300D"}
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	some := func(s []string, lo, hi int) string {
		var b strings.Builder
		for range lo + rng.IntN(hi-lo+1) {
			b.WriteString(pick(s))
		}
		return b.String()
	}
	var b strings.Builder
	for b.Len() < nbytes {
		switch x := rng.Float64(); {
		case x < 0.35:
			b.WriteString(some(cjk, 2, 8))
		case x < 0.45:
			b.WriteString(some(kana, 2, 6))
		case x < 0.52:
			b.WriteString(pick(emoji))
		case x < 0.55:
			b.WriteString(pick(people) + pick(tones)) // emoji + skin tone: 2 code points
		case x < 0.58:
			b.WriteString(pick(zwjAndFlags))
		case x < 0.70: // Latin with combining marks, NFD style
			for range 2 + rng.IntN(6) {
				b.WriteByte("aeiounscrtl"[rng.IntN(11)])
				for range rng.IntN(3) {
					b.WriteString(pick(marks))
				}
			}
		case x < 0.78:
			for range 2 + rng.IntN(5) {
				b.WriteString(pick(hebrew))
				if rng.Float64() < 0.6 {
					b.WriteString(pick(niqqud))
				}
			}
		case x < 0.86:
			for range 2 + rng.IntN(4) {
				b.WriteString(pick(deva))
				if rng.Float64() < 0.7 {
					b.WriteString(pick(devaSigns))
				}
			}
		case x < 0.90:
			b.WriteString(some(math, 1, 4))
		default:
			b.WriteString(pick(punct))
		}
		if rng.IntN(2) == 0 {
			b.WriteString(pick(punct[:6]))
		}
	}
	t := b.String()
	for len(t) > nbytes {
		_, size := utf8.DecodeLastRuneInString(t)
		t = t[:len(t)-size]
	}
	return t
}
