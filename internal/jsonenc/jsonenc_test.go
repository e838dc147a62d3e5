package jsonenc

import (
	"encoding/json"
	"testing"
)

// Every string is written as JSON that reads back as it, invalid UTF-8 as
// U+FFFD.
func TestAppendStringReadsBackAsTheString(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""}, {`a"b\c`, `a"b\c`}, {"\x00\n\u2028", "\x00\n\u2028"}, {"é😀", "é😀"}, {"a\xffb", "a\uFFFDb"},
	} {
		var got string
		if err := json.Unmarshal(AppendString(nil, tc.in), &got); err != nil || got != tc.want {
			t.Errorf("AppendString(%q) reads back as %q (%v), want %q", tc.in, got, err, tc.want)
		}
	}
}

// RFC 6901 §3: '~' is written "~0" and '/' "~1", '~' first so that "~1"
// in a name stays two characters.
func TestEscapePointerIsRFC6901(t *testing.T) {
	for in, want := range map[string]string{"": "", "a": "a", "a/b": "a~1b", "m~n": "m~0n", "~1": "~01", "/~": "~1~0"} {
		if got := EscapePointer(in); got != want {
			t.Errorf("EscapePointer(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestKindNameNamesEveryKind(t *testing.T) {
	for k, want := range map[byte]string{'n': "null", 't': "a boolean", 'f': "a boolean", '"': "a string", '0': "a number", '{': "an object", '[': "an array", 0: "invalid JSON"} {
		if got := KindName(k); got != want {
			t.Errorf("KindName(%q) = %q, want %q", k, got, want)
		}
	}
}
