package citecheck

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestEchoCutsInputOverMaxEchoBytes: a piece of input up to MaxEchoBytes is
// echoed whole; a longer one is cut at a code point boundary, with an
// ellipsis and its full length, in both the %s and the %q forms.
func TestEchoCutsInputOverMaxEchoBytes(t *testing.T) {
	long := strings.Repeat("a", MaxEchoBytes+1)
	// é is 2 bytes: MaxEchoBytes-1 ASCII bytes and then é straddle the cut.
	straddle := strings.Repeat("a", MaxEchoBytes-1) + "é" + "tail"
	for _, c := range []struct {
		name, in, s, q string
	}{
		{"short", "abc", "abc", `"abc"`},
		{"exactly MaxEchoBytes", long[:MaxEchoBytes], long[:MaxEchoBytes], `"` + long[:MaxEchoBytes] + `"`},
		{"one byte over", long, long[:MaxEchoBytes] + "… (257 bytes)", `"` + long[:MaxEchoBytes] + `…" (257 bytes)`},
		{"cut inside a code point", straddle, straddle[:MaxEchoBytes-1] + "… (261 bytes)", `"` + straddle[:MaxEchoBytes-1] + `…" (261 bytes)`},
		{"quoting escapes", "a\"b\n", "a\"b\n", `"a\"b\n"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := fmt.Sprintf("%s", Echo(c.in)); got != c.s {
				t.Errorf("%%s: %q, want %q", got, c.s)
			}
			if got := Echo(c.in).String(); got != c.s {
				t.Errorf("String: %q, want %q", got, c.s)
			}
			if got := fmt.Sprintf("%q", Echo(c.in)); got != c.q {
				t.Errorf("%%q: %q, want %q", got, c.q)
			}
			if got := Echo(c.in).Quoted(); got != c.q {
				t.Errorf("quoted: %q, want %q", got, c.q)
			}
			if !utf8.ValidString(Echo(c.in).String()) {
				t.Error("the cut split a code point")
			}
		})
	}
}

// TestErrorMessagesEchoAtMostMaxEchoBytes: every message that repeats a
// piece of the body repeats at most MaxEchoBytes of it, however long it is,
// while the error's path stays exact.
func TestErrorMessagesEchoAtMostMaxEchoBytes(t *testing.T) {
	const n = MaxInputBytes - 1024 // the longest piece a body within max_input_bytes holds, about
	name := strings.Repeat("n", n)
	digits := strings.Repeat("9", n)
	pos := func(sel string) string { return dBody(dSrc, dCite("p", sel, `,"quote":"efg"`)) }
	for _, c := range []struct {
		name, body, path string
	}{
		{"unknown member name", `{"` + name + `":1}`, "/" + name},
		{"unknown nested member name", dBody(dSrc[:len(dSrc)-1]+`,"`+name+`":1}`, dCite("p", dPosSel, `,"quote":"efg"`)), "/sources/0/" + name},
		{"integer out of range", pos(`"type":"TextPositionSelector","start":` + digits + `,"end":7`), "/citations/0/selector/start"},
		{"number that is not an integer", pos(`"type":"TextPositionSelector","start":1.` + digits + `,"end":7`), "/citations/0/selector/start"},
		{"negative integer", pos(`"type":"TextPositionSelector","start":-` + digits[:10] + `,"end":7`), "/citations/0/selector/start"},
		{"selector type", pos(`"type":"` + name + `","start":4,"end":7`), "/citations/0/selector/type"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, e := Decode([]byte(c.body))
			if e == nil {
				t.Fatal("accepted")
			}
			if AsError(e).Path != c.path {
				t.Errorf("path %.80q…, want %.80q… (%d bytes, want %d)", AsError(e).Path, c.path, len(AsError(e).Path), len(c.path))
			}
			if max := 3*MaxEchoBytes + 200; len(AsError(e).Message) > max {
				t.Errorf("message is %d bytes, over %d: %.300s", len(AsError(e).Message), max, AsError(e).Message)
			}
			t.Logf("%.120s", AsError(e).Message)
		})
	}
	if e := LookupTool(name, ToolVersion); len(AsError(e).Message) > 2*MaxEchoBytes {
		t.Errorf("LookupTool: message is %d bytes", len(AsError(e).Message))
	}
}
