package annotation

import (
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
)

// Input that is not JSON is refused in plain words, with the byte, line
// and value: no library's words ("invalid character", "jsontext",
// "exceeded max depth", "surrogate pair").
func TestSyntaxErrorsAreInPlainWords(t *testing.T) {
	for _, c := range []struct{ name, input, want string }{
		{"plain/a byte order mark between values", annA + "\n\uFEFF" + annB, "at byte 63 (line 2, value 1): the byte 0xEF where a value should start (if it begins a byte order mark, U+FEFF"},
		{"plain/a byte that is not UTF-8", "{\"id\":\"a\xed\xa0\x80\",\"target\":\"s\"}", "at byte 8 (line 1, value 0): a string holds the byte 0xED, which is not UTF-8"},
		{"plain/nesting past the reader's bound", `{"target":"s","x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "}", "objects and arrays nested deeper than 10000 levels"},
		{"plain/a trailing comma", `[` + annA + `,]`, "a trailing comma: the array's last item is followed by ',' and then ']'"},
		{"plain/a control character in a string", "{\"id\":\"a\x01\",\"target\":\"s\"}", "a string holds the control character U+0001"},
		{"plain/an escape JSON has not", `{"id":"a\x","target":"s"}`, `a string holds \x, not an escape JSON has`},
		{"plain/a number with a leading zero", `{"id":01,"target":"s"}`, "'1' follows a member's value directly: a ',' is missing, or a number has a leading zero"},
		{"plain/a literal that is not one", `{"id":nul,"target":"s"}`, "a value that is not JSON (only true, false and null"},
		{"plain/a missing comma", `{"id":"a" "target":"s"}`, "a ',' is missing between two members of an object"},
		{"plain/a name without quotes", `{id:"a"}`, "a member name must be a string in double quotes, not 'i'"},
		{"plain/a missing colon", `{"id" "a"}`, `a ':' must follow the member name "id", not '"'`},
		{"plain/a value that cannot start", `[` + annA + `,@]`, "'@' cannot start a value"},
		{"plain/the end of the input", `{"id":"a"`, "the input ends before an object is closed"},
		{"plain/a number for a member name", `{"target":"s","x":{"a":1,2:3}}`, "at byte 25 (line 1, value 0): a member name must be a string in double quotes, not '2'"},
		{"plain/a missing comma in a value read whole", `{"target":{"source":"s","selector":{"type":"TextQuoteSelector","exact":"q","x":[1 2]}}}`, "at byte 82 (line 1, value 0): a ',' is missing between two items of an array"},
		{"plain/the end in a value read whole", `{"target":{"source":"s","selector":{"type":"TextQuoteSelector","exact":"q","x":{"a":[1,2`, "the input ends before an array is closed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := scanAll(t, c.input)
			if err == nil {
				t.Fatal("no error")
			}
			ce, ok := err.(*citecheck.Error)
			if !ok {
				t.Fatalf("%T %v", err, err)
			}
			msg := ce.Message
			if !strings.Contains(msg, c.want) || !strings.HasPrefix(msg, "input is not JSON at byte ") {
				t.Errorf("got %q, want it to say %q", msg, c.want)
			}
			for _, w := range []string{"jsontext", "invalid character", "max depth", "surrogate pair", "expecting"} {
				if strings.Contains(msg, w) {
					t.Errorf("%q names the library's words %q", msg, w)
				}
			}
		})
	}
}
