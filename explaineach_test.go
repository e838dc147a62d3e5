package citecheck

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/citecheck/citecheck/internal/testkit"
)

// explainOneByOne is what ExplainEachContext must answer for citation k of
// req: ExplainContext of a request holding that citation and its source
// alone (nil when it has no source).
func explainOneByOne(t *testing.T, req *Request, k int) CitationExplanation {
	t.Helper()
	cit := req.Citations[k]
	j, _ := NewChecker(req).lookup(&cit)
	if j < 0 {
		return CitationExplanation{Findings: []Finding{}}
	}
	ex, err := ExplainContext(context.Background(), &Request{Sources: []Source{req.Sources[j]}, Citations: []Citation{cit}})
	if err != nil {
		t.Fatal(err)
	}
	return ex.Citations[0]
}

// TestExplainEachVerdictDoesNotDependOnNeighbours: each of sixty
// upper-cased quotations of one large source in one request is explained
// as it is alone (issue #34: one shared budget explained 1 of them and
// cut 59).
func TestExplainEachVerdictDoesNotDependOnNeighbours(t *testing.T) {
	c := testkit.NewCorpus(34)
	text := c.Prose(500 << 10)
	req := &Request{Sources: []Source{{SourceID: "s", Version: "v1", Text: text}}}
	for i := range 60 {
		cit := testkit.PickSpan(c.Rand, testkit.NewSource("s", "v1", text), fmt.Sprint("c", i), [2]int{40, 80})
		q := strings.ToUpper(*cit.Quote)
		if q == *cit.Quote || strings.Contains(text, q) {
			continue
		}
		req.Citations = append(req.Citations, Citation{CitationID: fmt.Sprint("c", i), SourceID: "s", Version: "v1",
			Selector: Selector{Type: QuoteSelector, Exact: q}})
	}
	ex, err := ExplainEachContext(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	for k := range req.Citations {
		if want := explainOneByOne(t, req, k); !reflect.DeepEqual(ex.Citations[k], want) {
			t.Fatalf("citation %d: in the batch %+v, alone %+v", k, ex.Citations[k], want)
		}
	}
}
