package testkit

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode/utf8"
)

// The texts below are the shapes of text that a prefilter on rare bytes
// finds hard (few letters, repeated clauses, logs, code, CJK, astral code
// points), for the benchmark classes and the matchers' tests. Each takes
// its randomness from rng and is about n bytes long.

// RandomText returns n bytes drawn uniformly from alphabet, a newline every
// line bytes when line > 0 (as in FASTA files and hex dumps).
func RandomText(rng *rand.Rand, alphabet string, n, line int) string {
	b := make([]byte, n)
	for i := range b {
		if line > 0 && i%(line+1) == line {
			b[i] = '\n'
			continue
		}
		b[i] = alphabet[rng.IntN(len(alphabet))]
	}
	return string(b)
}

// ZipfText returns about n bytes of symbols drawn Zipf-distributed from
// syms, with a separator from seps after every 2–12 symbols.
func ZipfText(rng *rand.Rand, syms, seps []string, n int) string {
	z := rand.NewZipf(rng, 1.07, 3, uint64(len(syms)-1))
	var b strings.Builder
	for b.Len() < n {
		for range 2 + rng.IntN(11) {
			b.WriteString(syms[z.Uint64()])
		}
		b.WriteString(seps[rng.IntN(len(seps))])
	}
	return TrimToBytes(b.String(), n)
}

// TrimToBytes cuts s to at most n bytes at a code point boundary.
func TrimToBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s[max(0, len(s)-4):]) {
		s = s[:len(s)-1]
	}
	return s
}

// BoilerplateText is a few clauses of a licence repeated in random order:
// every byte and most long substrings are common, and "the" occurs about
// 13,000 times.
func BoilerplateText(rng *rand.Rand, n int) string {
	clauses := []string{
		"The licensee shall not assign or transfer the rights granted under this agreement without the prior written consent of the licensor. ",
		"Nothing in this agreement shall be construed as creating a partnership, joint venture or agency between the parties. ",
		"The licensor makes no warranty, express or implied, as to the fitness of the software for any particular purpose. ",
		"In no event shall the licensor be liable for any indirect, incidental or consequential damages arising out of the use of the software. ",
		"This agreement shall be governed by and construed in accordance with the laws of the jurisdiction in which the licensor is established. ",
		"Any notice under this agreement shall be given in writing and delivered to the address of the party set out above. ",
	}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(clauses[rng.IntN(len(clauses))])
		if rng.IntN(12) == 0 {
			b.WriteString("\n\n")
		}
	}
	return b.String()[:n]
}

// LogText is service log lines: timestamps, levels, request ids, paths and
// durations, as a log search quotes them.
func LogText(rng *rand.Rand, n int) string {
	levels := []string{"INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"}
	paths := []string{"/v1/check", "/v1/check", "/healthz", "/metrics", "/v1/contracts/citation-batch-check/1.0.0", "/tools/check"}
	msgs := []string{"request served", "request served", "cache miss", "upstream timeout, retrying", "body too large", "client closed connection"}
	var b strings.Builder
	ms := 0
	for b.Len() < n {
		ms += rng.IntN(2000)
		fmt.Fprintf(&b, "2026-12-01T%02d:%02d:%02d.%03dZ %-5s http: %s method=POST path=%s status=%d bytes=%d dur=%.3fms req=%016x\n",
			8+ms/3600000%10, ms/60000%60, ms/1000%60, ms%1000, levels[rng.IntN(len(levels))], msgs[rng.IntN(len(msgs))],
			paths[rng.IntN(len(paths))], []int{200, 200, 200, 400, 413, 500}[rng.IntN(6)], rng.IntN(1<<20), rng.Float64()*40, rng.Uint64())
	}
	return b.String()[:n]
}

// CodeText is Go-like source: functions built from a few statement shapes
// over a small vocabulary of identifiers, tab-indented.
func CodeText(rng *rand.Rand, n int) string {
	ids := []string{"err", "req", "buf", "n", "i", "text", "pattern", "occ", "rank", "x", "src", "out", "ctx", "cfg", "limit"}
	types := []string{"int", "string", "[]byte", "*Request", "error", "bool", "occurrences"}
	id := func() string { return ids[rng.IntN(len(ids))] }
	var b strings.Builder
	for f := 0; b.Len() < n; f++ {
		fmt.Fprintf(&b, "// %s%d returns the %s of %s.\nfunc %s%d(%s %s, %s %s) (%s, error) {\n",
			id(), f, id(), id(), id(), f, id(), types[rng.IntN(len(types))], id(), types[rng.IntN(len(types))], types[rng.IntN(len(types))])
		for range 3 + rng.IntN(10) {
			switch rng.IntN(5) {
			case 0:
				fmt.Fprintf(&b, "\tif %s != nil {\n\t\treturn %s, fmt.Errorf(\"%s: %%w\", %s)\n\t}\n", id(), id(), id(), id())
			case 1:
				fmt.Fprintf(&b, "\tfor %s := 0; %s < len(%s); %s++ {\n\t\t%s += %s[%s]\n\t}\n", id(), id(), id(), id(), id(), id(), id())
			case 2:
				fmt.Fprintf(&b, "\t%s := %s(%s, %d)\n", id(), id(), id(), rng.IntN(1000))
			case 3:
				fmt.Fprintf(&b, "\t%s.%s = append(%s.%s, %s)\n", id(), id(), id(), id(), id())
			default:
				fmt.Fprintf(&b, "\tdefer %s.Close()\n", id())
			}
		}
		fmt.Fprintf(&b, "\treturn %s, nil\n}\n\n", id())
	}
	return b.String()[:n]
}

// CJKText is Chinese-like text: 3,000 common ideographs Zipf-distributed,
// with ideographic punctuation (3 bytes and one UTF-16 unit each).
func CJKText(rng *rand.Rand, n int) string {
	return ZipfText(rng, RuneRange(0x4E00, 0x4E00+3000), []string{"\uFF0C", "\u3002", "\u3001", "\u300C", "\u300D", "\n"}, n)
}

// AstralText is mostly astral code points (4 bytes, two UTF-16 units each):
// emoji with skin tones and ZWJ sequences, mathematical letters, CJK
// extension B.
func AstralText(rng *rand.Rand, n int) string {
	syms := append(append(RuneRange(0x1F300, 0x1F5FF), RuneRange(0x1D400, 0x1D6A4)...), RuneRange(0x20000, 0x20400)...)
	syms = append(syms, "\U0001F44D\U0001F3FD", "\U0001F469\u200D\U0001F4BB", "\U0001F1EF\U0001F1F5")
	rng.Shuffle(len(syms), func(i, j int) { syms[i], syms[j] = syms[j], syms[i] })
	return ZipfText(rng, syms, []string{" ", " ", "\n", "\u3002"}, n)
}

// foldTokens are the pieces FoldText is made of: words, and the
// characters the folds and the offset units are about.
var foldTokens = []string{
	"the", "The", "court", "ruled", "ana", "banana", "first", "floor", "café", "cafe\u0301",
	" ", " ", " ", "\n", "\r\n", "\u00a0", "  ", ", ", ". ",
	"’", "'", "“", "”", `"`, "—", "-", "…", "...", "\u00ad", "ﬁ", "ﬂ", "ＡＢＣ", "ABC",
	"🚀", "🙂", "日本", "é",
}

// FoldText returns tokens pieces drawn from foldTokens: short texts
// dense in what the folds and the offset units read differently.
func FoldText(r *rand.Rand, tokens int) string {
	var b strings.Builder
	for range tokens {
		b.WriteString(foldTokens[r.IntN(len(foldTokens))])
	}
	return b.String()
}

// Variant returns s as a citer might have typed it: read under one of
// folds (the caller's readings of s under typography, white space and
// case, and NFKC), elided, reordered, or as it is.
func Variant(r *rand.Rand, s string, folds [3]func(string) string) string {
	switch k := r.IntN(8); k {
	case 0, 1, 2:
		return folds[k](s)
	case 3:
		rs := []rune(s)
		if len(rs) > 4 {
			i := 1 + r.IntN(len(rs)-3)
			j := i + 1 + r.IntN(len(rs)-i-1)
			return string(rs[:i]) + " … " + string(rs[j:])
		}
	case 4:
		w := strings.Fields(s)
		r.Shuffle(len(w), func(i, j int) { w[i], w[j] = w[j], w[i] })
		return strings.Join(w, " ")
	}
	return s
}

// AllStrings returns every string over alphabet of length 0..maxLen.
func AllStrings(alphabet string, maxLen int) []string {
	out := []string{""}
	level := []string{""}
	for l := 1; l <= maxLen; l++ {
		var nextLevel []string
		for _, s := range level {
			for i := 0; i < len(alphabet); i++ {
				nextLevel = append(nextLevel, s+alphabet[i:i+1])
			}
		}
		out = append(out, nextLevel...)
		level = nextLevel
	}
	return out
}

// AdversarialMatchText is "a"*262140 + "b" + "a"*262139, 512 KiB minus 4 bytes.
func AdversarialMatchText() string {
	return strings.Repeat("a", 262140) + "b" + strings.Repeat("a", 262139)
}

// MultilingualText is what a RAG pipeline in Python sends most often
// escaped: paragraphs of Chinese (CJKText), of French, German and Spanish
// with their Latin-1 letters, and of English with emoji (astral, with skin
// tones and ZWJ sequences), "quoted" phrases, Windows paths with
// backslashes, and tables whose cells are separated by tabs; paragraphs
// end with a newline. About n bytes.
func MultilingualText(rng *rand.Rand, n int) string {
	latin := [][]string{
		{"Le", "café", "était", "déjà", "fermé", "à", "l'heure", "où", "nous", "arrivâmes", "près", "de", "la", "forêt", "et", "l'été", "brûlant"},
		{"Die", "Straße", "führt", "über", "die", "Brücke", "zum", "Schloß", "wo", "Bäcker", "Müller", "größere", "Brötchen", "verkauft"},
		{"El", "niño", "español", "comió", "piñas", "en", "el", "jardín", "mañana", "según", "su", "tía", "Inés", "¿verdad?", "¡claro!"},
	}
	english := (&Corpus{Rand: rng, ASCII: true})
	emoji := []string{"\U0001F600", "\U0001F44D\U0001F3FD", "\U0001F680", "\U0001F469\u200D\U0001F4BB", "\U0001F4DA", "\u2728", "\U0001F1EB\U0001F1F7", "\U0001F914"}
	var b strings.Builder
	for b.Len() < n {
		switch x := rng.IntN(10); {
		case x < 4:
			b.WriteString(CJKText(rng, 200+rng.IntN(600)))
		case x < 7:
			words := latin[rng.IntN(len(latin))]
			for k := range 20 + rng.IntN(60) {
				if k > 0 {
					b.WriteByte(' ')
				}
				if rng.IntN(12) == 0 {
					b.WriteString(`"` + words[rng.IntN(len(words))] + `"`)
					continue
				}
				b.WriteString(words[rng.IntN(len(words))])
			}
			b.WriteByte('.')
		case x < 9:
			for k := range 2 + rng.IntN(4) {
				if k > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(english.Sentence())
				if rng.IntN(3) == 0 {
					b.WriteString(" " + emoji[rng.IntN(len(emoji))])
				}
			}
			if rng.IntN(3) == 0 {
				fmt.Fprintf(&b, ` See "C:\Users\ada\Documents\report-%d.pdf".`, rng.IntN(1000))
			}
		default:
			for range 2 + rng.IntN(5) {
				fmt.Fprintf(&b, "%s\t%d\t%s\t%.2f €\n", english.Word(), rng.IntN(10000), latin[0][rng.IntN(len(latin[0]))], rng.Float64()*100)
			}
		}
		b.WriteByte('\n')
	}
	return TrimToBytes(b.String(), n)
}

// HTMLText is English prose marked up as HTML, as a Go client that kept
// a page's markup sends it: paragraphs in <p>, a link with its href and
// query every 120 words or so, an <em>, <strong>, <code>, <b> or <i> span
// every 60, an entity (&amp;, &quot;) every 60, a <br> now and then: a
// '<', '>' or '&' every 27 bytes or so. About n bytes.
func HTMLText(rng *rand.Rand, n int) string {
	english := (&Corpus{Rand: rng, ASCII: true})
	tags := []string{"em", "strong", "code", "b", "i"}
	var b strings.Builder
	for b.Len() < n {
		b.WriteString("<p>")
		for k := range 2 + rng.IntN(5) {
			if k > 0 {
				b.WriteByte(' ')
			}
			for j, w := range strings.Fields(english.Sentence()) {
				if j > 0 {
					b.WriteByte(' ')
				}
				switch x := rng.IntN(120); {
				case x < 1:
					fmt.Fprintf(&b, `<a href="https://example.org/wiki/%s?id=%d&amp;lang=en">%s</a>`, w, rng.IntN(1000), w)
				case x < 3:
					t := tags[rng.IntN(len(tags))]
					fmt.Fprintf(&b, "<%s>%s</%s>", t, w, t)
				case x < 4:
					b.WriteString(w + " &amp;")
				case x < 5:
					b.WriteString("&quot;" + w + "&quot;")
				default:
					b.WriteString(w)
				}
			}
			if rng.IntN(8) == 0 {
				b.WriteString("<br>")
			}
		}
		b.WriteString("</p>\n")
	}
	return TrimToBytes(b.String(), n)
}
