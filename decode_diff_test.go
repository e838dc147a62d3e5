package citecheck

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"github.com/citecheck/citecheck/internal/testkit"
)

// Decode against refDecode (decode_reference_test.go), the jsontext-based
// decoder it replaced: on every body the same Request, or an Error equal in
// every member. Its messages and offsets included: the scanner promises
// jsontext's failures to the byte.

// sameDecoding reports how Decode's answer on body differs from the
// reference's, or "" when it does not.
func sameDecoding(body []byte) string {
	req, err := Decode(body)
	// DecodeShared differs from Decode in memory only.
	sreq, serr := DecodeShared(body, DefaultLimits())
	switch {
	case (err == nil) != (serr == nil) || err != nil && *AsError(err) != *AsError(serr):
		return "DecodeShared answers otherwise: " + describe(sreq, AsError(serr)) + ", Decode " + describe(req, AsError(err))
	case err == nil && !equalRequests(req, sreq):
		return "DecodeShared's request differs from Decode's"
	}
	wreq, werr := refDecode(body)
	switch {
	case (err == nil) != (werr == nil):
		return "one accepts, the other refuses: got " + describe(req, AsError(err)) + ", want " + describe(wreq, werr)
	case err != nil:
		if *AsError(err) != *werr {
			return "errors differ:\n got  " + describe(nil, AsError(err)) + "\n want " + describe(nil, werr)
		}
	case !equalRequests(req, wreq):
		return "requests differ"
	}
	return ""
}

func describe(req *Request, e *Error) string {
	if e == nil {
		return "a request"
	}
	s := e.Code + " " + e.Limit + " at " + "\"" + e.Path + "\": " + e.Message
	if e.Limit != "" {
		s += " (max " + strconv.Itoa(int(e.Max)) + ", actual " + strconv.Itoa(int(e.Actual)) + ")"
	}
	return s
}

// decodeSeeds are bodies both decoders are held to, and the fuzz seeds:
// the conformance cases, the contract's examples, JSONTestSuite's files
// when present, and the bodies of the benchmark workloads.
func decodeSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	for _, c := range testkit.Conformance(t) {
		seeds = append(seeds, c.Body)
	}
	for _, ex := range contractExamples(t) {
		seeds = append(seeds, []byte(ex.Input))
	}
	files, _ := filepath.Glob(filepath.Join(jsonTestSuiteDir, "*.json"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil {
			seeds = append(seeds, b)
		}
	}
	for _, body := range []string{dOK, dBody(`{"text":"caf\u00e9 \ud83d\ude00\r\n","version":"v\"1","source_id":"s\/x"}`,
		`{"citation_id":"p","source_id":"s/x","version":"v\"1","selector":{"end":2,"start":1,"type":"TextPositionSelector"},"quote":"a"},`+
			`{"claimed_start":4.0,"citation_id":"q","source_id":"s/x","version":"v\"1","selector":{"type":"Text\u0051uoteSelector","exact":"\ud83d\ude00","prefix":"","suffix":"\r\n"}}`)} {
		seeds = append(seeds, []byte(body))
	}
	// What one-byte edits never reach: nesting at jsontext's depth limit,
	// and objects with more names than are compared one by one, whose
	// duplicate comes late (after a schema failure, as both decoders read
	// on for I-JSON failures).
	for _, depth := range []int{maxDepth - 2, maxDepth - 1, maxDepth, maxDepth + 1} {
		seeds = append(seeds, []byte(`{"x":`+rep("[", depth)+rep("]", depth)+`}`),
			[]byte(`{"x":`+rep(`{"a":`, depth)+"1"+rep("}", depth)+`}`),
			[]byte(rep("[", depth)))
	}
	var many strings.Builder
	for i := range 100 {
		many.WriteString(`"n` + strconv.Itoa(i) + `":1,`)
	}
	seeds = append(seeds, escapeBlockBodies()...)
	seeds = append(seeds,
		[]byte(`{"x":{`+many.String()+`"n\u0037":2}}`),
		[]byte(`{"x":{`+many.String()+`"n99":2}}`),
		[]byte(`{"x":{`+many.String()+`"n100":2}}`),
		[]byte(`{`+many.String()+`"sources":[],"n5":0}`))
	return seeds
}

// blockEscapes are the escapes the decoder's block loops must find
// wherever they fall: each two-byte escape, \uXXXX of each UTF-8 length
// (and Go's HTML-safe ones), surrogate pairs in either case, and the
// failures: lone or reversed surrogates, a high half before a letter or a
// BMP escape, a letter that escapes nothing, a cut or bad hex digit.
var blockEscapes = []string{`\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`,
	`\u0000`, `\u0041`, `\u003c`, `\u003E`, `\u0026`, `\u007f`, `\u0080`, `\u00e9`, `\u07ff`, `\u0800`,
	`\u4e2d`, `\ud7ff`, `\ue000`, `\uffff`, `\u2028`, `\ud83d\ude00`, `\uD83D\uDE00`, `\udbff\udfff`,
	`\u003cp\u003e`, `\n\t\"`, `\ud83d`, `\ude00`, `\ude00\ud83d`, `\ud83dx`, `\ud83d\u0041`, `\ud83d\n`,
	`\x`, `\u12`, `\u00G0`, `\`, "\u00e9\xc3\xa9", "\t\x01"}

// escapeBlockBodies puts each of blockEscapes at every offset 0–33 of a
// string (so at every position of an 8-, 16- and 32-byte block), with 0–17
// or 40 bytes after it, in a source text and as a citation's exact, and
// also ends a body right after it. The offset counts from the string's
// start, or from an escape before it: the blocks of the pass that writes
// a string start after each escape.
func escapeBlockBodies() [][]byte {
	var bodies [][]byte
	for _, e := range blockEscapes {
		for at := 0; at <= 33; at++ {
			for _, after := range []int{0, 1, 7, 8, 9, 15, 16, 17, 40} {
				str := strings.Repeat("a", at) + e + strings.Repeat("b", after)
				if after%2 == 1 {
					str = `\u003c` + str
				}
				bodies = append(bodies,
					[]byte(testkit.RawBody(`{"source_id":"s","version":"v","text":"`+str+`"}`, "")),
					[]byte(testkit.RawBody(`{"source_id":"s","version":"v","text":"x"}`,
						`{"citation_id":"c","source_id":"s","version":"v","selector":{"type":"TextQuoteSelector","exact":"`+str+`"}}`)))
			}
			bodies = append(bodies, []byte(`{"sources":[{"source_id":"s","version":"v","text":"`+strings.Repeat("a", at)+e))
		}
	}
	return bodies
}

// TestDecodeMatchesReferenceOnSeeds: every seed, and every body one edit
// away from a small valid one (each truncation; each byte replaced by, or
// preceded by, a byte that matters to JSON), decodes as the reference does.
func TestDecodeMatchesReferenceOnSeeds(t *testing.T) {
	check := func(name string, body []byte) {
		t.Helper()
		if diff := sameDecoding(body); diff != "" {
			t.Errorf("%s: %s\nbody %q", name, diff, body)
		}
	}
	for i, b := range decodeSeeds(t) {
		check("seed "+strconv.Itoa(i), b)
	}
	for _, w := range benchWorkloads() {
		check(w.name, w.body)
	}
	const edits = "\"\\{}[]:,0-+.eE1uUdDcCfF/bnrtx \t\n\r\x00\x1f\x7f\xc3\xa9\xe2\xed\xf0\xf4\xff~"
	for _, base := range []string{dOK, strings.Replace(dOK, `"efg"`, `"e\ud83d\ude00\u00e9\n\"g"`, 1)} {
		for i := 0; i <= len(base); i++ {
			check("truncated", []byte(base[:i]))
			for _, c := range []byte(edits) {
				if i < len(base) {
					check("replaced", []byte(base[:i]+string(c)+base[i+1:]))
				}
				check("inserted", []byte(base[:i]+string(c)+base[i:]))
			}
		}
	}
}

// FuzzDecodeAgainstReference: for any bytes, Decode answers as the
// reference does.
func FuzzDecodeAgainstReference(f *testing.F) {
	for _, b := range decodeSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if diff := sameDecoding(body); diff != "" {
			t.Fatalf("%s\nbody %q", diff, body)
		}
	})
}

// DecodeShared's long strings without escapes are the body's own bytes;
// Decode's strings are copies (the body may be reused at once), and so are
// DecodeShared's short strings and those it unescapes.
func TestDecodeSharedSharesLongPlainStringsOnly(t *testing.T) {
	bodyOf := func(text string) []byte {
		return testkit.Request{Sources: []testkit.Source{testkit.NewSource("a", "v1", text)},
			Citations: []testkit.Citation{testkit.PositionCitation("c", "a", "v1", 0, 4, "line")}}.Body()
	}
	inBody := func(body []byte, s string) bool {
		p, start := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(&body[0]))
		return p >= start && p < start+uintptr(len(body))
	}
	plainText, escapedText := strings.Repeat("line text ", 110), strings.Repeat("line\n", 200)
	plain, escaped := bodyOf(plainText), bodyOf(escapedText)
	if !bytes.Contains(escaped, []byte(`line\n`)) {
		t.Fatal("the text is not written with escapes")
	}
	shared, err := DecodeShared(plain, DefaultLimits())
	if err != nil {
		t.Fatal(AsError(err).Message)
	}
	if !inBody(plain, shared.Sources[0].Text) {
		t.Error("DecodeShared copied a text of 1,100 bytes without escapes")
	}
	for _, s := range []string{shared.Sources[0].SourceID, shared.Citations[0].Quote} {
		if inBody(plain, s) {
			t.Errorf("DecodeShared shares the short string %q", s)
		}
	}
	if req, _ := DecodeShared(escaped, DefaultLimits()); inBody(escaped, req.Sources[0].Text) {
		t.Error("DecodeShared shares a text it unescaped")
	}
	copied, _ := Decode(plain)
	if inBody(plain, copied.Sources[0].Text) {
		t.Error("Decode shares the body's memory")
	}
	for i := range plain { // the body reused: Decode's request is unchanged
		plain[i] = 'x'
	}
	if copied.Sources[0].Text != plainText {
		t.Error("Decode's text changed with the body")
	}
}

// Decode keeps one copy of each string: what it allocates is at most the
// body's bytes plus the Request's own slices, and for a body without
// escapes about the strings the Request keeps, never a second copy of a
// text (the decoder before it allocated twice the texts). A long string
// with an escape is decoded before its length is known, into a chunk that
// holds the rest of the body decoded: that chunk is the bound.
func TestDecodeAllocatesAtMostTheBodyAndNoSecondCopy(t *testing.T) {
	// Beside the benchmark's classes, the shapes that would leave chunks
	// a quarter empty if strings with escapes moved to chunks of 16 KiB:
	// 256 exacts of 3,300 bytes with one escape at the end or the start,
	// and 256 short ones.
	exacts := func(name string, exact func(i int) string) decodeClass {
		return decodeClass{name, []byte(testkit.RawBody(`{"source_id":"s","version":"v","text":"x"}`,
			testkit.JoinN(MaxCitations, func(i int) string {
				return `{"citation_id":"c` + strconv.Itoa(i) + `","source_id":"s","version":"v","selector":{"type":"TextQuoteSelector","exact":"` + exact(i) + `"}}`
			})))}
	}
	classes := append(decodeClasses(),
		exacts("escape_last", func(i int) string { return strings.Repeat("a", 3300+i%7) + `\"` }),
		exacts("escape_first", func(i int) string { return `\"` + strings.Repeat("a", 3300+i%7) }),
		exacts("escape_short", func(i int) string { return strings.Repeat("a", 10+i%40) + `\n` }))
	for _, c := range classes {
		t.Run("decode/allocation is at most the body, one copy: "+c.name, func(t *testing.T) {
			req, err := Decode(c.body)
			if err != nil {
				t.Fatal(err)
			}
			kept := keptBytes(req)
			structs := cap(req.Sources)*int(unsafe.Sizeof(Source{})) + cap(req.Citations)*int(unsafe.Sizeof(Citation{}))
			var before, after runtime.MemStats
			const runs = 4
			runtime.ReadMemStats(&before)
			for range runs {
				Decode(c.body)
			}
			runtime.ReadMemStats(&after)
			perRun := int(after.TotalAlloc-before.TotalAlloc) / runs
			// Slack: the rounding of allocations to size classes, chunks
			// not filled to the end, the maps of the rules across members.
			limit := len(c.body) + chunkBytes + structs + 48<<10
			if !bytes.Contains(c.body, []byte{'\\'}) {
				limit = kept + kept/8 + structs + 48<<10
			}
			if perRun > limit {
				t.Fatalf("Decode allocates %d bytes; the body is %d bytes, the request keeps %d bytes of strings and %d of structs (limit %d)", perRun, len(c.body), kept, structs, limit)
			}
		})
	}
}

// notPlainASCII's lowest bit set marks the first byte of the word that a
// string cannot hold as it is (not ASCII, a control, '"' or '\\'): every
// byte value at every position among plain bytes, and random words.
func TestNotPlainASCIIMarksTheFirstByteThatIsNotPlain(t *testing.T) {
	plain := func(c byte) bool { return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' }
	first := func(b [8]byte) int { // the byte-by-byte answer: its index, or 8
		for i, c := range b {
			if !plain(c) {
				return i
			}
		}
		return 8
	}
	got := func(b [8]byte) int {
		t := notPlainASCII(binary.LittleEndian.Uint64(b[:]))
		return bits.TrailingZeros64(t) >> 3 // 8 when t is 0
	}
	for _, bg := range []byte{' ', '!', '#', 'a', '~', 0x7F} {
		for pos := range 8 {
			for c := range 256 {
				var b [8]byte
				for i := range b {
					b[i] = bg
				}
				b[pos] = byte(c)
				if g, w := got(b), first(b); g != w {
					t.Fatalf("%q: first not plain at %d, want %d", b[:], g, w)
				}
			}
		}
	}
	rng := testkit.NewRand(11)
	for range 1 << 20 {
		var b [8]byte
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		if g, w := got(b), first(b); g != w {
			t.Fatalf("%q: first not plain at %d, want %d", b[:], g, w)
		}
	}
}

// TestDecodeWritesStringsAcrossChunkEdgesAsTheReference: strings with
// escapes are decoded straight into the store's chunk before their length
// is known, and move when they outgrow it. Texts of every length from a
// byte to past a chunk, each escape kind, multi-byte text and long plain
// runs falling at the chunk's edge, with strings without escapes between
// (kept in the same chunks) decode as the reference does, and no string
// written later changes one kept before (the requests compare whole).
func TestDecodeWritesStringsAcrossChunkEdgesAsTheReference(t *testing.T) {
	units := []string{`\u003c`, `\n`, `\"`, `\u00e9`, `\u4e2d`, `\ud83d\ude00`, "é", "中", "plain text, long runs of it; "}
	rng := testkit.NewRand(2403)
	text := func(maxBytes int) string { // escaped, at most maxBytes written
		n := rng.IntN(64)
		switch rng.IntN(6) {
		case 0:
			n = ownBytes - 64 + rng.IntN(128) // about where a string outgrowing its chunk takes one for the body
		case 1:
			n = rng.IntN(maxBytes)
		case 2:
			return strings.Repeat("a", 1+rng.IntN(700)) // no escape at all
		}
		var b strings.Builder
		b.WriteString(strings.Repeat("a", 1+rng.IntN(40)))
		for b.Len() < min(n, maxBytes-64) {
			b.WriteString(units[rng.IntN(len(units))])
			if rng.IntN(4) == 0 {
				b.WriteString(strings.Repeat("b", rng.IntN(48)))
			}
		}
		return b.String()
	}
	for round := range 16 {
		var sources, citations []string
		for k := range MaxSources {
			sources = append(sources, `{"source_id":"s`+strconv.Itoa(k)+`","version":"v","text":"`+text(3*chunkBytes)+`"}`)
		}
		for k := range 120 {
			citations = append(citations, `{"citation_id":"c`+strconv.Itoa(k)+`","source_id":"s0","version":"v",`+
				`"selector":{"type":"TextQuoteSelector","exact":"`+text(MaxQuoteBytes)+`","prefix":"`+text(MaxContextBytes)+`"}}`)
		}
		body := []byte(testkit.RawBody(strings.Join(sources, ","), strings.Join(citations, ",")))
		if _, err := Decode(body); err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		if diff := sameDecoding(body); diff != "" {
			t.Errorf("round %d: %s", round, diff)
		}
	}
}
