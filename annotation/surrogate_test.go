package annotation

import (
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// A lone surrogate escape is valid JSON (RFC 8259) but not I-JSON: the
// annotation whose member holds one is an error item naming the member
// and the escape's byte, and the scan reads on to the next annotation.
// A pair is text. Read whole, a byte at a time and in chunks that cut
// every escape, inside strings short enough to be buffered and long
// enough to be skipped, the items are the same.
func TestLoneSurrogateEscapeIsAnErrorItemOfItsAnnotation(t *testing.T) {
	long := strings.Repeat("x", 100<<10)
	for _, c := range []struct{ name, lead, want string }{
		{"lone/high in an unused member", `{"id":"bad","body":"a\ud800b",`, "/body"},
		{"lone/low in an unused member", `{"id":"bad","body":"a\udc00b",`, "/body"},
		{"lone/high at a string's end", `{"id":"bad","x":["\uD800"],`, "/x"},
		{"lone/high then a non-low escape", `{"id":"bad","x":"\ud800\u0041",`, "/x"},
		{"lone/in a long skipped string", `{"id":"bad","body":"` + long + `\ud800` + long + `",`, "/body"},
		{"lone/in a member name", `{"id":"bad","\ud800":1,`, "/\uFFFD"},
		{"lone/in the id", `{"id":"bad\udbff","x":1,`, "/id"},
		{"lone/in a selector", `{"id":"bad",`, "/target"},
		{"pair/is text", `{"id":"ok","body":"\ud83c\udf0a` + long + `\uD83D\uDE00",`, ""},
		{"pair/escaped backslash", `{"id":"ok","body":"\\ud800",`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			target := `"target":{"source":"s","selector":{"type":"TextQuoteSelector","exact":"x"}}}`
			if c.name == "lone/in a selector" {
				target = `"target":{"source":"s","selector":{"type":"TextQuoteSelector","exact":"x\ud800"}}}`
			}
			input := annA + "\n" + c.lead + target + "\n" + annB + "\n"
			for _, r := range []struct {
				name string
				r    func() io.Reader
			}{
				{"whole", func() io.Reader { return strings.NewReader(input) }},
				{"bytewise", func() io.Reader { return iotest.OneByteReader(strings.NewReader(input)) }},
				{"halves", func() io.Reader { return iotest.HalfReader(strings.NewReader(input)) }},
			} {
				var items []Item
				err := NewScanner(r.r()).Scan(func(it Item) error { items = append(items, it); return nil })
				if err != nil {
					t.Fatalf("%s: %v", r.name, err)
				}
				if len(items) != 3 || items[0].Annotation == nil || items[2].Annotation == nil {
					t.Fatalf("%s: items %s, want a, the annotation, b", r.name, ids(items))
				}
				it := items[1]
				if c.want == "" {
					if it.Err != nil {
						t.Fatalf("%s: refused: %s", r.name, it.Err.Message)
					}
					continue
				}
				at := strings.Index(input, `\ud800`)
				for _, e := range []string{`\udc00`, `\uD800`, `\udbff`} {
					if i := strings.Index(input, e); i >= 0 && (at < 0 || i < at) {
						at = i
					}
				}
				want := c.want + ": a string holds a lone surrogate escape (at byte " + strconv.Itoa(at) + ")"
				if it.Err == nil || it.Err.Path != c.want || !strings.HasPrefix(it.Err.Message, want) || it.ID == "" {
					t.Errorf("%s: got %+v (id %q), want an error item with its id saying %q", r.name, it.Err, it.ID, want)
				}
			}
		})
	}
}
