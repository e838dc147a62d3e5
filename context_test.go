package citecheck

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/citecheck/citecheck/internal/testkit"
)

// Tests of the context variants (spec §4.1, §5.7): the same answers as the
// plain functions while ctx is not done, no citation started once it is
// seen done, and a look at ctx at least every checkPollBytes of work.

// lookCtx is a context whose Err reports it done from its doneAt-th call
// on (0: never), and which counts the calls: a test of where the engine
// looks, independent of the clock.
type lookCtx struct {
	context.Context
	done   chan struct{}
	doneAt int
	looks  int
}

func newLookCtx(doneAt int) *lookCtx {
	return &lookCtx{Context: context.Background(), done: make(chan struct{}), doneAt: doneAt}
}

func (c *lookCtx) Done() <-chan struct{} { return c.done }

func (c *lookCtx) Err() error {
	c.looks++
	if c.doneAt > 0 && c.looks >= c.doneAt {
		return context.Canceled
	}
	return nil
}

// TestContextVariantsAgreeWhenNotCancelled: on every conformance case and
// benchmark workload, with a context that could be cancelled but is not,
// RunContext answers Run's bytes, and CheckContext and CheckAllContext
// give Check's and CheckAll's values.
func TestContextVariantsAgreeWhenNotCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bodies := map[string][]byte{}
	for _, c := range testkit.Conformance(t) {
		bodies["conformance/"+c.Name] = c.Body
	}
	for _, w := range benchWorkloads() {
		bodies["workload/"+w.name] = w.body
	}
	for _, f := range []string{"alphabet2", "periodic", "nearmiss"} {
		bodies["hostile/"+f] = hostileBody(f)
	}
	results := 0
	for name, body := range bodies {
		res, e := Run(body)
		cres, ce := RunContext(ctx, body)
		if got, want := AppendEnvelope(nil, cres, ce), AppendEnvelope(nil, res, e); !bytes.Equal(got, want) {
			t.Errorf("%s: RunContext answers\n%s\nRun answers\n%s", name, got, want)
		}
		req, err := Decode(body)
		if err != nil {
			continue
		}
		results++
		if got, err := CheckContext(ctx, req); err != nil || !reflect.DeepEqual(got, Check(req)) {
			t.Errorf("%s: CheckContext differs from Check (err %v)", name, err)
		}
		if got, err := CheckAllContext(ctx, req); err != nil || !reflect.DeepEqual(got, CheckAll(req)) {
			t.Errorf("%s: CheckAllContext differs from CheckAll (err %v)", name, err)
		}
	}
	if results < 50 {
		t.Fatalf("only %d bodies give a result", results)
	}
}

// hostileBody is a request on which the check reads the most: long
// sources scanned by quote citations and long position quotes.
func hostileBody(family string) []byte {
	return testkit.HostileRequest(family, 21, testkit.HostileShape{}).Body()
}

// TestContextDoneBeforeStartChecksNothing: a context already done (or past
// its deadline) is seen before the first citation, so none is checked and
// its error comes back as it is; RunContext answers overloaded without
// decoding.
func TestContextDoneBeforeStartChecksNothing(t *testing.T) {
	t.Parallel()
	body := hostileBody("alphabet2")
	req, e := Decode(body)
	if e != nil {
		t.Fatal(e)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	late, cancelLate := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancelLate()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want error
		msg  string
	}{
		{"cancelled", cancelled, context.Canceled, "check stopped: context canceled"},
		{"deadline passed", late, context.DeadlineExceeded, "check stopped: context deadline exceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ran := 0
			if n, err := NewChecker(req).polled(tc.ctx, func(int) bool { ran++; return true }); n != 0 || ran != 0 || err != tc.want {
				t.Errorf("polled ran %d citations (said %d), err %v; want none and %v", ran, n, err, tc.want)
			}
			if res, err := CheckContext(tc.ctx, req); res != nil || err != tc.want {
				t.Errorf("CheckContext = %v, %v; want nil, %v", res, err, tc.want)
			}
			if all, err := CheckAllContext(tc.ctx, req); all != nil || err != tc.want {
				t.Errorf("CheckAllContext = %v, %v; want nil, %v", all, err, tc.want)
			}
			res, re := RunContext(tc.ctx, body)
			if res != nil || re == nil || AsError(re).Code != CodeOverloaded || AsError(re).Message != tc.msg || AsError(re).Path != "" {
				t.Errorf("RunContext = %v, %+v; want overloaded %q", res, re, tc.msg)
			}
			// An invalid body is not even decoded: the stop comes first.
			if _, re := RunContext(tc.ctx, []byte(`{`)); re == nil || AsError(re).Code != CodeOverloaded {
				t.Errorf("RunContext on a bad body = %+v; want overloaded", re)
			}
		})
	}
}

// TestContextDoneMidRunStopsAtTheNextLook: whichever look first sees ctx
// done, no citation starts after it, and between two looks the check
// reads under checkPollBytes plus one citation's reading (its claims, and
// its source's text when it scans it or builds its index).
func TestContextDoneMidRunStopsAtTheNextLook(t *testing.T) {
	t.Parallel()
	// 200 position citations of 1 KiB quotes, then 20 quote citations
	// that each scan a 16 KiB source: looks come every 64 position
	// citations, then every 4 quote citations.
	text := strings.Repeat("abcdefgh", 2<<10)
	var r testkit.Request
	r.Sources = []testkit.Source{testkit.NewSource("s", "v1", text)}
	for k := range 200 {
		at := (k * 8) % (len(text) - 1024)
		r.Citations = append(r.Citations, testkit.PositionCitation("p"+strconv.Itoa(k), "s", "v1", at, at+1024, text[at:at+1024]))
	}
	for k := range 20 {
		r.Citations = append(r.Citations, testkit.QuoteCitation("q"+strconv.Itoa(k), "s", "v1", "abcdefgh").WithClaimedStart(0))
	}
	req, e := Decode(r.Body())
	if e != nil {
		t.Fatal(e)
	}
	n := len(req.Citations)
	// reads is what citation k reads, as the test counts it.
	reads := func(k int) int {
		if k < 200 {
			if k == 0 {
				return 1024 + len(text) // the index is built
			}
			return 1024
		}
		return 8 + len(text)
	}
	// Never done: the looks, and the work between them.
	ctx := newLookCtx(0)
	lookAt := map[int]int{} // look number l → the citations run before look l+1
	k := 0
	c := NewChecker(req)
	ran, err := c.polled(ctx, func(i int) bool {
		c.Citation(i)
		if i != k {
			t.Fatalf("citation %d ran after %d", i, k-1)
		}
		k++
		lookAt[ctx.looks] = k
		return true
	})
	if ran != n || err != nil || k != n {
		t.Fatalf("polled ran %d of %d (said %d), err %v", k, n, ran, err)
	}
	looks := ctx.looks
	if looks < 5 {
		t.Fatalf("only %d looks at the context in %d citations", looks, n)
	}
	maxOne := 1024 + len(text) + 8
	prev := 0
	for l := 1; l <= looks; l++ {
		end, ok := lookAt[l]
		if !ok {
			continue
		}
		read := 0
		for i := prev; i < end; i++ {
			read += reads(i)
		}
		if read > checkPollBytes+maxOne {
			t.Errorf("citations %d..%d read %d bytes between two looks; at most %d", prev, end-1, read, checkPollBytes+maxOne)
		}
		prev = end
	}
	checkCtx := newLookCtx(0)
	if _, err := CheckContext(checkCtx, req); err != nil {
		t.Fatal(err)
	}
	checkLooks := checkCtx.looks
	// Done at each look in turn: nothing runs after the look that sees it.
	for doneAt := 1; doneAt <= looks; doneAt++ {
		ctx := newLookCtx(doneAt)
		ranAfter := 0
		c := NewChecker(req)
		ran, err := c.polled(ctx, func(i int) bool {
			c.Citation(i)
			if ctx.looks >= doneAt {
				ranAfter++
			}
			return true
		})
		if err != context.Canceled || ranAfter != 0 {
			t.Fatalf("done at look %d: err %v, %d citations ran after it", doneAt, err, ranAfter)
		}
		if want := lookAt[doneAt-1]; doneAt < looks && ran != want {
			t.Errorf("done at look %d: ran %d citations, want the %d before it", doneAt, ran, want)
		}
		// Check stops at its first failure (citation 200), after fewer
		// looks; a later look is never made.
		if res, err := CheckContext(newLookCtx(doneAt), req); doneAt <= checkLooks && (res != nil || !errors.Is(err, context.Canceled)) ||
			doneAt > checkLooks && (err != nil || !reflect.DeepEqual(res, Check(req))) {
			t.Errorf("CheckContext done at look %d (of %d) = %v, %v", doneAt, checkLooks, res, err)
		}
		if all, err := CheckAllContext(newLookCtx(doneAt), req); all != nil || !errors.Is(err, context.Canceled) {
			t.Errorf("CheckAllContext done at look %d = %v, %v", doneAt, all, err)
		}
	}
}

// BenchmarkCheckContext is BenchmarkCheck through CheckContext with a
// context that can be cancelled (so the looks are made): compare with
// BenchmarkCheck/<w> of the same run.
func BenchmarkCheckContext(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	benchEachWorkload(b, func(req *Request) *Result {
		res, err := CheckContext(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		return res
	})
}

// FuzzCheckContext: on any body that decodes, a context that is not done
// changes nothing (CheckContext, CheckAllContext and RunContext answer
// what Check, CheckAll and Run do), and one that is seen done at its
// doneAt-th look stops the work there: no citation starts after that look,
// and the answer is the stop or, when the check ended before that look,
// Check's own.
func FuzzCheckContext(f *testing.F) {
	for _, c := range testkit.Conformance(f) {
		f.Add(c.Body, uint8(0))
		f.Add(c.Body, uint8(2))
	}
	f.Fuzz(func(t *testing.T, body []byte, doneAt uint8) {
		req, e := Decode(body)
		if e != nil {
			if _, re := RunContext(newLookCtx(0), body); re == nil || *AsError(re) != *AsError(e) {
				t.Fatalf("RunContext refuses with %+v, Run with %+v", re, e)
			}
			return
		}
		d := int(doneAt % 16)
		if d == 0 {
			if got, err := CheckContext(newLookCtx(0), req); err != nil || !reflect.DeepEqual(got, Check(req)) {
				t.Fatalf("CheckContext differs from Check (err %v)", err)
			}
			if got, err := CheckAllContext(newLookCtx(0), req); err != nil || !reflect.DeepEqual(got, CheckAll(req)) {
				t.Fatalf("CheckAllContext differs from CheckAll (err %v)", err)
			}
			res, e := Run(body)
			if cres, ce := RunContext(newLookCtx(0), body); !bytes.Equal(AppendEnvelope(nil, cres, ce), AppendEnvelope(nil, res, e)) {
				t.Fatal("RunContext differs from Run")
			}
			return
		}
		ctx := newLookCtx(d)
		c := NewChecker(req)
		after := 0
		n, err := c.polled(ctx, func(k int) bool {
			if ctx.looks >= d {
				after++
			}
			c.Citation(k)
			return true
		})
		if after != 0 || (err == nil) != (ctx.looks < d) || err == nil && n != len(req.Citations) {
			t.Fatalf("done at look %d of %d: %d citations ran after it, ran %d of %d, err %v", d, ctx.looks, after, n, len(req.Citations), err)
		}
		res, err := CheckContext(newLookCtx(d), req)
		if !(res == nil && errors.Is(err, context.Canceled) || err == nil && reflect.DeepEqual(res, Check(req))) {
			t.Fatalf("CheckContext done at look %d = %v, %v", d, res, err)
		}
	})
}
