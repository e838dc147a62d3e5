package quotes

import (
	"bytes"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
)

// TestNewRunMaxSourceBytes holds a call to the command's bound: the
// input, the request and each source are read up to MaxSourceBytes, and
// one byte more is refused with limit_exceeded, naming what is too large
// (a source by its id, cut as every message cuts it).
func TestNewRunMaxSourceBytes(t *testing.T) {
	report := []byte(`"a" [s]`)
	answer := []byte(`{"type":"message","content":[{"type":"text","text":"x"}]}`)
	request := []byte(`{"messages":[]}`)
	at := bytes.Repeat([]byte("a"), MaxSourceBytes)
	over := bytes.Repeat([]byte("a"), MaxSourceBytes+1)
	longID := strings.Repeat("i", 1000)
	padded := func(b []byte) []byte {
		return append(append([]byte{}, b...), bytes.Repeat([]byte(" "), MaxSourceBytes+1-len(b))...)
	}
	for _, tc := range []struct {
		name        string
		input       []byte
		request     []byte
		withRequest bool
		sources     []RawSource
		refused     string // the message, or "" when accepted
	}{
		{"a source at the bound", report, nil, false, []RawSource{{ID: "s", Text: at}}, ""},
		{"a source over the bound", report, nil, false, []RawSource{{ID: "s", Text: over}}, `source "s": larger than 64MiB`},
		{"a long id is cut", report, nil, false, []RawSource{{ID: longID, Text: over}}, `source "` + strings.Repeat("i", MessageExcerpt) + `…": larger than 64MiB`},
		{"the input over the bound", padded(report), nil, false, []RawSource{{ID: "s", Text: []byte("a")}}, `text: larger than 64MiB`},
		{"the request over the bound", answer, padded(request), true, nil, `request: larger than 64MiB`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, e := NewRun(tc.input, tc.request, tc.withRequest, tc.sources, false)
			switch {
			case tc.refused == "" && e != nil:
				t.Fatalf("refused: %s", e.Message)
			case tc.refused == "":
			case e == nil:
				t.Fatalf("accepted; want %q", tc.refused)
			case e.Code != citecheck.CodeLimitExceeded || !strings.HasPrefix(e.Message, tc.refused) || len(e.Message) > 300:
				t.Fatalf("refused with %s %q; want limit_exceeded starting %q", e.Code, e.Message, tc.refused)
			}
		})
	}
}
