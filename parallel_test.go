package citecheck

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/citecheck/citecheck/internal/testkit"
)

// parallelWorkers are the worker counts every parallel test tries: one (the
// serial path), two (the CLI on the benchmark machine) and more workers
// than most requests have citations.
var parallelWorkers = []int{1, 2, 3, 8, 64}

// requireSameAsCheck fails unless CheckParallel answers req as Check does,
// field for field and byte for byte, with every worker count, and with
// workers started whatever the size of the request.
func requireSameAsCheck(t *testing.T, name string, req *Request) {
	t.Helper()
	want := Check(req)
	for _, w := range parallelWorkers {
		for _, got := range []*Result{CheckParallel(req, w), checkParallel(req, w, 0)} {
			if !reflect.DeepEqual(got, want) || !bytes.Equal(AppendEnvelope(nil, got, nil), AppendEnvelope(nil, want, nil)) {
				t.Fatalf("%s, %d workers:\n got %s\nwant %s", name, w, AppendEnvelope(nil, got, nil), AppendEnvelope(nil, want, nil))
			}
		}
	}
}

// CheckParallel gives Check's answer on every conformance case.
func TestCheckParallelAnswersAsCheckOnConformance(t *testing.T) {
	t.Parallel()
	for _, c := range testkit.Conformance(t) {
		if req, err := Decode(c.Body); err == nil {
			requireSameAsCheck(t, c.Name, req)
		}
	}
}

// On the text classes, whose long sources CheckParallel indexes sparsely
// before its workers share them (cjk, astral, binary), a check with
// workers answers as Check, indexing as it goes, does; and so with one
// citation in three of the last third broken (the race detector watches the sharing).
func TestCheckParallelAnswersAsCheckWithSparseIndexes(t *testing.T) {
	t.Parallel()
	for _, w := range classWorkloads() {
		requireSameAsCheck(t, w.name, w.req)
		broken := *w.req
		broken.Citations = slices.Clone(broken.Citations)
		for k := 2 * len(broken.Citations) / 3; k < len(broken.Citations); k += 3 {
			broken.Citations[k].Selector.Exact += "x"
		}
		requireSameAsCheck(t, w.name+" broken", &broken)
	}
}

// The first failure in array order is the one reported, however much
// sooner a later failure is found: here the earliest failing citation is
// the slowest to check (an exact not found, after full scans of a large
// source) and every later one fails at once (an unknown source), so a
// parallel check that reported the first failure to finish, or counted
// the citations it happened to check, would answer otherwise.
func TestCheckParallelReportsTheFirstFailureInArrayOrder(t *testing.T) {
	t.Parallel()
	corpus := testkit.NewCorpus(41)
	big := testkit.NewSource("big", "v1", corpus.Prose(400_000))
	small := testkit.NewSource("small", "v1", corpus.Unicode(3_000))
	rng := testkit.NewRand(42)
	holds := func(i int) testkit.Citation {
		src := []testkit.Source{big, small}[i%2]
		if i%3 == 0 {
			return testkit.PickSpan(rng, src, fmt.Sprintf("ok%d", i), [2]int{5, 60})
		}
		return testkit.PickAnchor(rng, src, fmt.Sprintf("ok%d", i), testkit.AnchorShape{Exact: [2]int{8, 40}, Prefix: [2]int{0, 16}, Suffix: [2]int{0, 16}})
	}
	for _, slowAt := range []int{0, 1, 5, 17, 30} {
		for _, n := range []int{slowAt + 1, slowAt + 2, 32} {
			if n <= slowAt {
				continue
			}
			req := testkit.Request{Sources: []testkit.Source{big, small}}
			for i := range n {
				switch {
				case i < slowAt:
					req.Citations = append(req.Citations, holds(i))
				case i == slowAt:
					req.Citations = append(req.Citations, testkit.QuoteCitation("slow", "big", "v1", strings.Repeat("zq", 40)).WithPrefix("the ").WithSuffix(" of"))
				case i%2 == 0:
					req.Citations = append(req.Citations, testkit.QuoteCitation(fmt.Sprintf("fast%d", i), "nowhere", "v1", "x"))
				default:
					req.Citations = append(req.Citations, holds(i))
				}
			}
			r, err := Decode(req.Body())
			if err != nil {
				t.Fatal(err)
			}
			res := checkParallel(r, 8, 0)
			if res.Valid || res.FirstDiscrepancy.CitationID != "slow" || res.CitationsChecked != slowAt+1 {
				t.Fatalf("slow failure at %d of %d: got %s", slowAt, n, AppendEnvelope(nil, res, nil))
			}
			requireSameAsCheck(t, fmt.Sprintf("slow failure at %d of %d", slowAt, n), r)
		}
	}
}

// Requests that hold, and requests failing at every position with every
// kind of failure, over shared and separate sources, answer as Check.
func TestCheckParallelAnswersAsCheckAtEveryFailurePosition(t *testing.T) {
	t.Parallel()
	corpus := testkit.NewCorpus(43)
	srcs := []testkit.Source{
		testkit.NewSource("a", "v1", corpus.Prose(20_000)),
		testkit.NewSource("b", "v1", corpus.Unicode(20_000)),
		testkit.NewSource("a", "v2", corpus.Prose(5_000)),
	}
	rng := testkit.NewRand(44)
	const n = 24
	var cits []testkit.Citation
	for i := range n {
		src := srcs[i%len(srcs)]
		if i%2 == 0 {
			cits = append(cits, testkit.PickSpan(rng, src, fmt.Sprintf("c%d", i), [2]int{1, 50}))
		} else {
			cits = append(cits, testkit.PickAnchor(rng, src, fmt.Sprintf("c%d", i), testkit.AnchorShape{Exact: [2]int{3, 30}, Prefix: [2]int{0, 10}, Suffix: [2]int{0, 10}}))
		}
	}
	breakers := []func(c testkit.Citation) testkit.Citation{
		func(c testkit.Citation) testkit.Citation { c.SourceID = "unknown"; return c },
		func(c testkit.Citation) testkit.Citation { c.Version = "v9"; return c },
		func(c testkit.Citation) testkit.Citation {
			return testkit.QuoteCitation(c.CitationID, c.SourceID, c.Version, "the").WithPrefix("nowhere ")
		},
		func(c testkit.Citation) testkit.Citation {
			return testkit.PositionCitation(c.CitationID, c.SourceID, c.Version, 3, 9, "??????")
		},
	}
	body := func(cs []testkit.Citation) *Request {
		r, err := Decode(testkit.Request{Sources: srcs, Citations: cs}.Body())
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	requireSameAsCheck(t, "every citation holds", body(cits))
	for at := range n {
		for b, brk := range breakers {
			cs := append([]testkit.Citation(nil), cits...)
			cs[at] = brk(cs[at])
			if at+3 < n {
				cs[at+3] = breakers[(b+1)%len(breakers)](cs[at+3]) // a second failure after the first
			}
			requireSameAsCheck(t, fmt.Sprintf("failure %d at %d", b, at), body(cs))
		}
	}
}

// Workers start only when the quote citations scan parallelMinScanBytes of
// text between them, counted once per citation; below that, starting them
// costs more than it saves.
func TestCheckParallelStartsWorkersOnlyForLargeScans(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("abcdefgh", 1<<16) // 512 KiB
	quotes := func(n int) *Request {
		cs := []testkit.Citation{testkit.PositionCitation("pos", "s", "v1", 0, 3, "abc")}
		for i := range n {
			cs = append(cs, testkit.QuoteCitation(fmt.Sprintf("q%d", i), "s", "v1", "defgha"))
		}
		r, err := Decode(testkit.Request{Sources: []testkit.Source{testkit.NewSource("s", "v1", text)}, Citations: cs}.Body())
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	atLimit := parallelMinScanBytes / len(text)
	for _, c := range []struct {
		quotes int
		want   bool
	}{{1, false}, {atLimit - 1, false}, {atLimit, true}, {32, true}} {
		if got := NewChecker(quotes(c.quotes)).indexForScans(parallelMinScanBytes); got != c.want {
			t.Errorf("%d quote citations of %d bytes: workers %v, want %v", c.quotes, len(text), got, c.want)
		}
	}
}

// FuzzCheckParallelAgainstCheck: on any body that decodes, CheckParallel
// with workers (started whatever the request's size) answers as Check.
//
//	go test -run '^$' -fuzz '^FuzzCheckParallelAgainstCheck$' -fuzztime 15m -parallel 1 .
func FuzzCheckParallelAgainstCheck(f *testing.F) {
	for _, c := range testkit.Conformance(f) {
		f.Add(c.Body)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := Decode(body)
		if err != nil {
			return
		}
		want := AppendEnvelope(nil, Check(req), nil)
		for _, w := range []int{2, 3} {
			if got := AppendEnvelope(nil, checkParallel(req, w, 0), nil); !bytes.Equal(got, want) {
				t.Fatalf("%d workers:\n got %s\nwant %s", w, got, want)
			}
		}
	})
}
