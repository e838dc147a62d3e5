package annotation

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"
)

// scanTranscript scans input read in chunks of chunk bytes (0: whole)
// and writes down everything the scan hands on and returns, every offset
// and message included; with keep, skipped strings are passed to the
// decoder whole (the reference).
func scanTranscript(input []byte, chunk int, keep bool) string {
	var r io.Reader = bytes.NewReader(input)
	if chunk > 0 {
		r = &chunked{r: r, n: chunk}
	}
	s := NewScanner(r)
	s.tee.keepStrings = keep
	var b strings.Builder
	err := s.Scan(func(it Item) error {
		fmt.Fprintf(&b, "item %d value %d at %d id %q", it.Index, it.Value, it.Offset, it.ID)
		if it.Err != nil {
			fmt.Fprintf(&b, " error %s %q %q\n", it.Err.Code, it.Err.Path, it.Err.Message)
			return nil
		}
		a := it.Annotation
		fmt.Fprintf(&b, " annotation %q %d %d targets %+v\n", a.ID, a.Offset, a.size, a.Targets)
		return nil
	})
	fmt.Fprintf(&b, "end: %v\n", err)
	// The decoder quotes as much of a bad sequence as it happens to hold
	// (`\ud83c\u0` or `\ud83c\u0041`): where it is, and why, must agree.
	return quoted.ReplaceAllString(b.String(), "$1 …")
}

var quoted = regexp.MustCompile("(sequence|pair) (`[^`]*`|\"(?:[^\"\\\\]|\\\\.)*\")")

// chunked reads at most n bytes at a time, so that strings and their
// units are cut at every place across reads.
type chunked struct {
	r io.Reader
	n int
}

func (c *chunked) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

// Strings the checks do not use are skipped without being held, and
// judged exactly as the decoder judges them: whatever the string holds
// and wherever the reads cut it, the scan hands on the same items, with
// the same offsets and messages, and ends with the same error, as when
// the decoder reads every string whole.
func TestSkippedStringsAreJudgedAsTheDecoderJudgesThem(t *testing.T) {
	ann := func(body string) string {
		return `{"id":"a","body":{"type":"TextualBody","value":"` + body + `","list":["` + body + `",1]},"creator":"` + body + `",` +
			`"target":{"source":"s","selector":{"type":"TextQuoteSelector","exact":"q","note":"` + body + `"}}}`
	}
	long := strings.Repeat("plain text é 🌊 \\n \\\" \\u00e9 \\ud83c\\udf0a ", 800) // past one skipChunk
	for _, c := range []struct{ name, body string }{
		{"skip/plain ASCII", strings.Repeat("x", 100000)},
		{"skip/UTF-8 and escapes", long},
		{"skip/an escaped surrogate pair", `ab\ud83c\udf0acd`},
		{"skip/a lone high surrogate", long + `\ud83cx`},
		{"skip/a high surrogate then a non-surrogate escape", long + `\ud83c\u0041`},
		{"skip/a lone low surrogate", long + `\udf0a`},
		{"skip/a bad escape", long + `\x41`},
		{"skip/a short unicode escape", long + `\u12"`},
		{"skip/a control character", long + "\x01"},
		{"skip/a raw line feed", long + "\n"},
		{"skip/a byte that is not UTF-8", long + "\xff"},
		{"skip/a cut UTF-8 sequence", long + "\xe2\x82"},
		{"skip/an encoded surrogate", long + "\xed\xa0\x80"},
		{"skip/an encoded U+FFFD", long + "\xef\xbf\xbd"},
		{"skip/an overlong encoding", long + "\xc0\xaf"},
		{"skip/DEL", long + "\x7f"},
		{"skip/empty", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			inputs := []string{
				ann(c.body),
				ann(c.body) + "\n" + annA + "\n",
				"\uFEFF[" + ann(c.body) + "," + annB + "]",
				ann(c.body)[:len(ann(c.body))/2],                       // cut by the input's end
				`{"id":"x","target":9,"body":"` + c.body + `"}` + annA, // skipped after a refusal
				`{"total":1,"note":"` + c.body + `","rows":[` + annA + `]}`,
			}
			chunks := []int{0, 1, 2, 5, 13, 4096}
			if testing.Short() {
				chunks = []int{0, 5, 4096}
			}
			for i, in := range inputs {
				for _, chunk := range chunks {
					want := scanTranscript([]byte(in), chunk, true)
					if got := scanTranscript([]byte(in), chunk, false); got != want {
						t.Fatalf("input %d read %d bytes at a time:\n%s\nwant (strings held):\n%s", i, chunk, got, want)
					}
				}
			}
		})
	}
	// And one byte at a time from a reader that also says io.EOF with its
	// last bytes.
	in := ann(long) + "\n" + annB
	if got, want := func() string {
		s := NewScanner(iotest.DataErrReader(iotest.OneByteReader(strings.NewReader(in))))
		n := 0
		err := s.Scan(func(Item) error { n++; return nil })
		return fmt.Sprint(n, err)
	}(), "2 <nil>"; got != want {
		t.Errorf("one byte at a time: %s, want %s", got, want)
	}
}
