package jsonwords

import (
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// FuzzDescribe: every fault of any input is described at a byte of the
// input, in specific words that name no library, whether the input is
// held whole or streamed a byte at a time; and a streaming reader that
// read a whole value gets the words one reading token by token gets
// whenever the decoder stopped at the same fault both ways.
func FuzzDescribe(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":"bc`, `[1, ]`, `{"a":1,}`, `{a:1}`, `{"a" 1}`, `[01]`, `[1.5.5]`, `[true1]`,
		"[\"a\x01\"]", "[\"a\xff\"]", `["\x"]`, `["\u12"]`, `["\ud800x"]`, `["\udc00"]`, `["a",“b”]`, "[\uFEFF1]", `[1 2]`, `[1}`,
		`{"a":[{"b":{"c":[1,2}}]}`, `{"a":{"b":"c" "d":1}}`, `[9223372036854775807, 1e400, -0, 01]`,
		strings.Repeat("[", MaxNesting+1), strings.Repeat(`{"a":`, MaxNesting) + "1x"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<16 {
			return // the replay is linear; longer inputs only slow the search
		}
		fw, ok := whole(b)
		if !ok {
			return
		}
		if jsontext.Value(b).IsValid() {
			t.Fatalf("%q is JSON, but %+v", b, fw)
		}
		if fw.At < 0 || fw.At > int64(len(b)) || strings.HasSuffix(fw.Words, "is not JSON") || strings.Contains(fw.Words, "a string that is not JSON") {
			t.Fatalf("%q: %+v", b, fw)
		}
		noLibraryWords(t, fw.Words, b)
		tokens, terr := streamed(b, false)
		values, verr := streamed(b, true)
		for _, f := range []Fault{tokens, values} {
			if f.At < 0 || f.At > int64(len(b)) {
				t.Fatalf("%q: streamed %+v", b, f)
			}
			noLibraryWords(t, f.Words, b)
		}
		if sameFault(terr, verr) && (tokens.At != values.At || tokens.Words != values.Words && !heldWhole(values.Words, tokens.Words)) {
			t.Fatalf("%q: token by token %+v, value by value %+v", b, tokens, values)
		}
	})
}
