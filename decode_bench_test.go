package citecheck

import (
	"github.com/citecheck/citecheck/internal/testkit"

	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// BenchmarkDecodeClass times Decode on one body per class of text, beside
// the decoder it replaced (refDecode, on jsontext) and encoding/json into
// plain structs, in one run:
//
//	go test -run '^$' -bench 'DecodeClass' -count 6 . | benchstat -col /decoder -
//
// Throughput is in body bytes, per second of wall time (MB/s), of the
// process's CPU time (cpu-MB/s: every thread, the garbage collector's
// included) and of the decoding thread's CPU time (thread-MB/s: the
// decoder's own work and its share of garbage collection assists, without
// the collector's background workers). The CPU figures are the ones a
// machine shared with other work disturbs far less.
// kept-B/op is the bytes of the strings the Request keeps, to compare B/op
// with: the decoder allocates about that much for a body without escapes,
// at most the body's bytes for one with them, and no second copy of any
// text.
func BenchmarkDecodeClass(b *testing.B) {
	for _, c := range decodeClasses() {
		for _, dec := range []struct {
			name   string
			decode func([]byte) error
		}{
			{"citecheck", func(body []byte) error {
				if _, err := Decode(body); err != nil {
					return err
				}
				return nil
			}},
			{"reference", func(body []byte) error {
				if _, err := refDecode(body); err != nil {
					return err
				}
				return nil
			}},
			{"encoding_json", func(body []byte) error {
				var req testkit.Request
				return json.Unmarshal(body, &req)
			}},
		} {
			b.Run("class="+c.name+"/decoder="+dec.name, func(b *testing.B) {
				req, err := Decode(c.body)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(c.body)))
				b.ReportAllocs()
				runtime.LockOSThread() // for threadCPU
				defer runtime.UnlockOSThread()
				cpu0, thread0 := processCPU(), threadCPU()
				for b.Loop() {
					if err := dec.decode(c.body); err != nil {
						b.Fatal(err)
					}
				}
				cpu := float64(processCPU()-cpu0) / float64(b.N)
				b.ReportMetric(cpu, "cpu-ns/op")
				b.ReportMetric(float64(len(c.body))/cpu*1e3, "cpu-MB/s")
				if thread0 >= 0 {
					thread := float64(threadCPU()-thread0) / float64(b.N)
					b.ReportMetric(float64(len(c.body))/thread*1e3, "thread-MB/s")
				}
				b.ReportMetric(float64(keptBytes(req)), "kept-B/op")
			})
		}
	}
}

// keptBytes is the size of the strings req holds.
func keptBytes(req *Request) int {
	n := 0
	for _, s := range req.Sources {
		n += len(s.SourceID) + len(s.Version) + len(s.Text)
	}
	for _, c := range req.Citations {
		n += len(c.CitationID) + len(c.SourceID) + len(c.Version) + len(c.Quote) +
			len(c.Selector.Exact) + len(c.Selector.Prefix) + len(c.Selector.Suffix)
	}
	return n
}

type decodeClass struct {
	name string
	body []byte
}

// decodeClasses are the bodies of issue 11's decode targets, seeded:
//
//	ascii_prose   a ~500 KB source of ASCII prose in paragraphs (\n\n) with a
//	              quoted name (\"Ada\") every ~200 bytes, 32 citations
//	multibyte     mostly multi-byte text: CJK (extension B too), kana, emoji
//	              with skin tones and ZWJ sequences, mathematical letters,
//	              Latin with combining marks, Hebrew, Devanagari
//	many_small    the many_small workload: 256 citations, 16 small sources
//	escape_heavy  the multibyte body with every non-ASCII code point as
//	              \uXXXX, astral ones as pairs, compact
//	python_dumps  multilingual text (CJK, Latin-1, emoji, quotes, paths,
//	              tabs, newlines) as Python's json.dumps writes it by default
//	go_html       English prose marked up as HTML, as Go's encoding/json
//	              writes it (<, > and & as \u003c, \u003e, \u0026)
var decodeClasses = sync.OnceValue(func() []decodeClass {
	corpus := &testkit.Corpus{Rand: testkit.NewRand(1101), ASCII: true}
	rng := corpus.Rand
	prose := corpus.Prose(MaxTextBytes - 20000)
	for _, name := range []string{"Ada", "Turing", "Noether", "Hopper", "Lovelace", "Euler", "Gauss"} {
		prose = strings.ReplaceAll(prose, name, `"`+name+`"`) // names quoted as \"Ada\" in the body
	}
	multi := multibyteText(rng, 400*1024)
	// The later classes draw from their own seed, leaving the earlier
	// classes' bodies as they were.
	rng2 := testkit.NewRand(2401)
	var classes []decodeClass
	for _, c := range []struct {
		name, text string
		encode     func(testkit.Request) []byte
	}{
		{"ascii_prose", prose, testkit.Request.Body},
		{"multibyte", multi, testkit.Request.Body},
		{"escape_heavy", multi, func(r testkit.Request) []byte { return testkit.EscapeNonASCII(r.Body()) }},
		{"python_dumps", testkit.MultilingualText(rng2, 400*1024), func(r testkit.Request) []byte { return testkit.PythonDumps(r.Body()) }},
		{"go_html", testkit.HTMLText(rng2, 400*1024), func(r testkit.Request) []byte { return testkit.GoMarshal(r) }},
	} {
		req := testkit.Request{Sources: []testkit.Source{testkit.NewSource("s", "v1", c.text)}}
		for i := range 32 {
			req.Citations = append(req.Citations, testkit.PickSpan(rng, req.Sources[0], fmt.Sprint("c", i), [2]int{20, 400}))
		}
		classes = append(classes, decodeClass{c.name, c.encode(req)})
	}
	for _, w := range benchWorkloads() {
		if w.name == "many_small" {
			classes = append(classes, decodeClass{"many_small", w.body})
		}
	}
	return classes
})

// multibyteText is unicodeText with runs of CJK extension B (astral)
// spliced in every 2 KB or so.
func multibyteText(rng *rand.Rand, nbytes int) string {
	var b strings.Builder
	for rest := (&testkit.Corpus{Rand: rng}).Unicode(nbytes); b.Len() < nbytes && rest != ""; {
		cut := min(len(rest), 1024+rng.IntN(2048))
		for !utf8.RuneStart(rest[cut%len(rest)]) {
			cut--
		}
		b.WriteString(rest[:cut])
		rest = rest[cut:]
		for range 8 + rng.IntN(24) {
			b.WriteRune(rune(0x20000 + rng.IntN(0xA6E0)))
		}
	}
	t := b.String()
	for len(t) > nbytes {
		_, size := utf8.DecodeLastRuneInString(t)
		t = t[:len(t)-size]
	}
	return t
}
