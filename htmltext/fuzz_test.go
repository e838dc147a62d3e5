package htmltext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzBodyText: any UTF-8 document gives UTF-8 text, without a panic; and
// a document with no markup (no '<', '&', CR or NUL) is its own text, but
// for the white space the parser drops before the body starts. The
// browser itself is the reference for markup (TestBodyTextMatchesChromium).
func FuzzBodyText(f *testing.F) {
	for _, r := range rules {
		f.Add(r.html)
	}
	f.Add("plain text, no markup at all")
	f.Add("  \n\tleading blanks")
	f.Fuzz(func(t *testing.T, src string) {
		if !utf8.ValidString(src) {
			return
		}
		got, err := BodyText([]byte(src))
		if err != nil {
			return // x/net/html reports only reader failures and nesting too deep
		}
		if !utf8.ValidString(got) {
			t.Fatalf("BodyText(%q) = %q: not UTF-8", src, got)
		}
		if !strings.ContainsAny(src, "<&\r\x00") && !strings.HasPrefix(src, "\uFEFF") {
			if want := strings.TrimLeft(src, " \t\n\f"); got != want {
				t.Fatalf("BodyText(%q) = %q, want the text itself, %q", src, got, want)
			}
		}
	})
}
