package quotes

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
)

// upperCasedReport is n quotations of src, each a passage of about 80
// bytes upper-cased and marked "s": near under the case fold alone.
func upperCasedReport(src string, n int) string {
	var b strings.Builder
	step := len(src) / (n + 1)
	for i := range n {
		at := (i + 1) * step
		at += strings.IndexByte(src[at:], ' ') + 1
		end := at + 80
		end += strings.IndexByte(src[end:], ' ')
		if nl := strings.IndexByte(src[at:end], '\n'); nl >= 0 {
			end = at + nl // within one paragraph of the report
		}
		fmt.Fprintf(&b, "Para %d says “%s” [s].\n\n", i, strings.ToUpper(src[at:end]))
	}
	return b.String()
}

// A verdict never depends on the other quotations (spec §5.13): 60
// upper-cased passages of a 500 KB source in one report are each near,
// as each is alone, not near once and not_found for the rest.
func TestVerdictIsTheQuotationsOwn(t *testing.T) {
	t.Parallel()
	c := testkit.NewCorpus(34)
	c.ASCII = true // no curly quotes in the source, so each passage is one quotation
	src := c.Prose(500 << 10)
	srcs := []Source{{ID: "s", Text: src}}
	lim := citecheck.DefaultLimits()
	lim.ScanUnits = citecheck.NoLimit // as the command checks
	a, err := Check(context.Background(), []byte(upperCasedReport(src, 60)), srcs, Options{Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Results) != 60 {
		t.Fatalf("%d results, want 60", len(a.Results))
	}
	for i := range a.Results {
		if o := a.Results[i].Outcome; o != Near {
			t.Errorf("quotation %d: %s, want near; %s", i, o, a.AppendJSON(nil, i))
		}
	}
}
