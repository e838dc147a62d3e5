package citecheck

import (
	"context"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"unicode/utf8"

	"github.com/citecheck/citecheck/internal/fold"
	"github.com/citecheck/citecheck/internal/search"
	"github.com/citecheck/citecheck/internal/testkit"
)

// workBound is what the bound of docs/explain.md allows explaining req:
// its pool plus one step (maxStepWork) of its longest text and claim,
// plus what was granted; and grantBound, what may be granted.
func workBound(req *Request, b *search.Budget) int {
	n, m := 0, 0
	for _, s := range req.Sources {
		n = max(n, len(s.Text))
	}
	for k := range req.Citations {
		m = max(m, len(claimOf(&req.Citations[k])))
	}
	return b.Pool() + b.Granted() + maxStepWork(n, m)
}

// grantBound is what docs/explain.md#the-bound allows granting for req:
// sourceGrantWork of each source (all of them, as if each were cited),
// and the quotes counted in one pass.
func grantBound(req *Request) int {
	g := 64 * len(req.Citations)
	for _, s := range req.Sources {
		g += sourceGrantWork(len(s.Text), len(fold.NewSource(s.Text).Folded()))
	}
	return g
}

// checkGranted holds what b granted to grantBound.
func checkGranted(t testing.TB, req *Request, b *search.Budget) {
	t.Helper()
	if g := grantBound(req); b.Granted() > g {
		t.Errorf("explaining was granted %d units; the bound is %d", b.Granted(), g)
	}
}

// checkCostRules holds one explanation of req to the rules of the bound:
// the work within it, the verdicts CheckAll's and Check's, and every
// finding and fix as checkExplanation wants them (a cut citation has no
// fix).
func checkCostRules(t testing.TB, req *Request, ex *Explanation, b *search.Budget) {
	t.Helper()
	if bound := workBound(req, b); b.Spent() > bound {
		t.Errorf("explaining spent %d units; the bound is %d (pool %d)", b.Spent(), bound, b.Pool())
	}
	checkGranted(t, req, b)
	if all := CheckAll(req); !reflect.DeepEqual(ex.All, all) {
		t.Errorf("explain's verdicts differ from CheckAll's")
	}
	if r := Check(req); r.Valid != ex.All.Valid || !r.Valid && r.FirstDiscrepancy.CitationIndex != ex.All.FirstFailure().CitationIndex {
		t.Errorf("explain's first failure differs from Check's")
	}
	checkExplanation(t, req, ex)
}

// TestExplainWorkIsBoundedByTheRequest: over every hostile family at the
// contract's largest, explaining is charged at most its pool (a few units
// a byte of the body) plus one step, and changes no verdict (spec
// §5.8). Before the budget, the alphabet2 family asked thousands of
// scans of its source.
func TestExplainWorkIsBoundedByTheRequest(t *testing.T) {
	for _, fam := range testkit.HostileFamilies {
		t.Run(fam, func(t *testing.T) {
			t.Parallel()
			body := testkit.HostileRequest(fam, 21, testkit.HostileShape{}).Body()
			req, derr := Decode(body)
			if derr != nil {
				t.Fatal(derr)
			}
			ex, b, err := explainBudgeted(context.Background(), req, true, explainWorkMin, explainWorkPerKiB)
			if err != nil {
				t.Fatal(err)
			}
			if b.Pool() > explainWorkPerKiB*len(body)/1024 && b.Pool() > explainWorkMin {
				t.Errorf("pool %d for a body of %d bytes", b.Pool(), len(body))
			}
			if bound := workBound(req, b); b.Spent() > bound {
				t.Errorf("explaining spent %d units; the bound is %d (pool %d, granted %d)", b.Spent(), bound, b.Pool(), b.Granted())
			}
			checkGranted(t, req, b)
			t.Logf("pool %d, granted %d of at most %d, spent %d", b.Pool(), b.Granted(), grantBound(req), b.Spent())
			if !reflect.DeepEqual(ex.All, CheckAll(req)) {
				t.Errorf("explain's verdicts differ from CheckAll's")
			}
			for k, ce := range ex.Citations {
				for _, f := range ce.Findings {
					if f.NotSearched != nil && ce.Fix != nil {
						t.Errorf("citation %d: cut, and fixed", k)
					}
				}
			}
		})
	}
}

// TestExplainBudgetExhaustedSaysWhatWasNotSearched: a request whose pool
// is spent before its last citations are explained gives each of them a
// partial finding listing the kinds not searched, an empty span and no
// fix, and still every verdict and every finding of the steps that ran
// to the end.
func TestExplainBudgetExhaustedSaysWhatWasNotSearched(t *testing.T) {
	req, derr := Decode(testkit.HostileRequest("alphabet2", 3, testkit.HostileShape{BodyBytes: 64 << 10, Block: 600}).Body())
	if derr != nil {
		t.Fatal(derr)
	}
	ex, b, err := explainBudgeted(context.Background(), req, true, 0, 1024)
	if err != nil {
		t.Fatal(err)
	}
	checkCostRules(t, req, ex, b)
	cut := 0
	for _, ce := range ex.Citations {
		if n := len(ce.Findings); n > 0 && ce.Findings[n-1].NotSearched != nil {
			cut++
		}
	}
	if cut == 0 {
		t.Fatalf("a pool of %d units cut no citation (spent %d)", b.Pool(), b.Spent())
	}
	// The same request with the default budget: nothing cut, no verdict
	// changed.
	full := Explain(req)
	if !reflect.DeepEqual(full.All, ex.All) {
		t.Fatal("the budget changed a verdict")
	}
	js := string(ex.AppendJSON(nil))
	if want := `"length":0,"not_searched":[`; !contains(js, want) {
		t.Fatalf("no %s in %.300s", want, js)
	}
}

func contains(s, sub string) bool { return len(sub) == 0 || len(s) >= len(sub) && indexOf(s, sub) >= 0 }

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// countingCtx is a context whose Err turns context.Canceled after a given
// number of calls, counting them: where ExplainContext looks, and that it
// stops at the next look.
type countingCtx struct {
	context.Context
	calls, after atomic.Int64
}

func (c *countingCtx) Done() <-chan struct{} { return make(chan struct{}) }

func (c *countingCtx) Err() error {
	if c.calls.Add(1) > c.after.Load() {
		return context.Canceled
	}
	return nil
}

// TestExplainContextStopsAtTheNextLook: ExplainContext returns
// ctx.Err() as it is, for a context done before it starts and for one
// done at any of its looks; it looks at most once a search.PollEvery units of
// diagnosis and a checkPollBytes of check (plus a look at each end), and
// returns at the first look after the end: the work after it is at most
// one step (maxStepWork).
func TestExplainContextStopsAtTheNextLook(t *testing.T) {
	req, derr := Decode(testkit.HostileRequest("alphabet2", 21, testkit.HostileShape{}).Body())
	if derr != nil {
		t.Fatal(derr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if ex, err := ExplainContext(ctx, req); ex != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled before: %v, %v", ex, err)
	}
	if _, e := RunExplainContext(ctx, testkit.HostileRequest("periodic", 1, testkit.HostileShape{BodyBytes: 8 << 10}).Body()); e == nil || AsError(e).Code != CodeOverloaded {
		t.Fatalf("RunExplainContext cancelled: %v", e)
	}
	// Never done: every look answers nil, and they are few.
	never := &countingCtx{Context: context.Background()}
	never.after.Store(1 << 62)
	ex, b, err := explainBudgeted(never, req, true, explainWorkMin, explainWorkPerKiB)
	if err != nil || ex == nil {
		t.Fatal(err)
	}
	var read int64
	for _, s := range req.Sources {
		read += int64(len(s.Text))
	}
	looks := never.calls.Load()
	if most := 2 + int64(b.Spent()/search.PollEvery) + int64(len(req.Citations))*read/checkPollBytes; looks > most || looks < 2 {
		t.Fatalf("%d looks at the context for %d units; at most %d", looks, b.Spent(), most)
	}
	for _, after := range []int64{0, 1, looks / 2, looks - 2} {
		c := &countingCtx{Context: context.Background()}
		c.after.Store(after)
		ex, err := ExplainContext(c, req)
		if ex != nil || !errors.Is(err, context.Canceled) {
			t.Fatalf("done after %d looks: %v, %v", after, ex, err)
		}
		if c.calls.Load() != after+1 {
			t.Fatalf("done after %d looks, looked %d times", after, c.calls.Load())
		}
	}
	// Explain is ExplainContext with a context never done.
	if got, _ := ExplainContext(context.Background(), req); !reflect.DeepEqual(got, Explain(req)) {
		t.Fatal("ExplainContext(Background) differs from Explain")
	}
}

// FuzzExplainCost builds hostile requests of every family (testkit's
// HostileRequest) in sizes the fuzzer picks, and explains them with a
// budget it picks too, from none to the default: the work stays within
// the bound, the verdicts are CheckAll's and Check's, and every finding
// and fix is right (checkExplanation), a cut citation unfixed.
func FuzzExplainCost(f *testing.F) {
	for i := range testkit.HostileFamilies {
		f.Add(uint8(i), uint64(i), uint16(8<<10), uint16(300), uint8(40), uint32(0))
		f.Add(uint8(i), uint64(i)+7, uint16(2<<10), uint16(64), uint8(12), uint32(5000))
	}
	f.Fuzz(func(t *testing.T, family uint8, seed uint64, text, block uint16, citations uint8, pool uint32) {
		fam := testkit.HostileFamilies[int(family)%len(testkit.HostileFamilies)]
		shape := testkit.HostileShape{BodyBytes: 2*int(text) + 4<<10, TextBytes: int(text), Block: int(block), Citations: int(citations)}
		req, derr := Decode(testkit.HostileRequest(fam, seed, shape).Body())
		if derr != nil {
			t.Fatalf("%s: %v", fam, derr)
		}
		minUnits := explainWorkMin
		if pool != 0 {
			minUnits = int(pool)
		}
		ex, b, err := explainBudgeted(context.Background(), req, pool%2 == 0, minUnits, explainWorkPerKiB*int(pool%3))
		if err != nil {
			t.Fatal(err)
		}
		checkCostRules(t, req, ex, b)
	})
}

// TestLongestLeadingPartByCandidatesIsTheBruteForces: claims of 32 bytes
// and more, which leadingPartByCandidates answers at the occurrences of
// their first 32, 128, … bytes, over texts of two and three letters (one
// of two bytes), where those occur few or many times: the brute force's
// length and first start, indexed or not.
func TestLongestLeadingPartByCandidatesIsTheBruteForces(t *testing.T) {
	t.Parallel()
	r := testkit.NewRand(77)
	for _, alphabet := range []string{"ab", "abé", "aab"} {
		for _, n := range []int{300, 5000} {
			letters := []rune(alphabet)
			text := string(testkit.NewCorpus(uint64(n)).Runes(letters, n))
			check := leadingPartChecker(text, false)
			for range 40 {
				cps := []rune(text)
				s := r.IntN(len(cps) - 40)
				l := 32 + r.IntN(min(600, len(cps)-s-32))
				claim := []rune(string(cps[s : s+l]))
				switch r.IntN(3) {
				case 0:
					claim[r.IntN(len(claim))] = 'z'
				case 1:
					claim = append(claim[:len(claim)/2], []rune(string(cps[:len(claim)/2]))...)
				}
				check(t, string(claim))
			}
		}
	}
}

// bruteUniqueContext is uniqueContext by brute force: the shortest k from
// the citation's own context's length plus one, within max_context_bytes,
// whose context leaves one match.
func bruteUniqueContext(text string, sel *Selector, start int) (prefix, suffix *string) {
	cps := []rune(text)
	e, p, s := sel.Exact, sel.Prefix, sel.Suffix
	for k := utf8.RuneCountInString(p) + 1; k <= start; k++ {
		c := string(cps[start-k : start])
		if len(c) > MaxContextBytes {
			break
		}
		if bruteCount(text, c+e+s) == 1 {
			prefix = &c
			break
		}
	}
	q := start + utf8.RuneCountInString(e)
	for k := utf8.RuneCountInString(s) + 1; q+k <= len(cps); k++ {
		c := string(cps[q : q+k])
		if len(c) > MaxContextBytes {
			break
		}
		if bruteCount(text, p+e+c) == 1 {
			suffix = &c
			break
		}
	}
	return prefix, suffix
}

// TestUniqueContextAtOccurrencesIsTheShortest: the contexts read at the
// anchor's occurrences (uniquePrefixAt, uniqueSuffixAt) and the binary
// search (an anchor of more than uniqueCandidates occurrences) are the
// brute force's: over texts of two letters (one of two bytes) with a
// block that occurs two or three times, anchors inside it and across its
// ends, with and without the citation's own context.
func TestUniqueContextAtOccurrencesIsTheShortest(t *testing.T) {
	t.Parallel()
	r := testkit.NewRand(78)
	for _, alphabet := range []string{"ab", "aé"} {
		for trial := range 60 {
			letters := []rune(alphabet)
			c := testkit.NewCorpus(uint64(trial))
			block := c.Runes(letters, 20+r.IntN(300))
			var text []rune
			for range 2 + trial%2 {
				text = append(text, c.Runes(letters, 50+r.IntN(400))...)
				text = append(text, block...)
			}
			text = append(text, c.Runes(letters, r.IntN(50))...)
			s := string(text)
			x := newIndexedText(s, search.Plan{})
			for range 10 {
				at := r.IntN(len(text) - 4)
				l := 1 + r.IntN(min(40, len(text)-at-1))
				sel := &Selector{Type: QuoteSelector, Exact: string(text[at : at+l])}
				if k := r.IntN(4); k > 0 && k <= at {
					sel.Prefix = string(text[at-k : at])
				}
				if k := r.IntN(4); k > 0 && at+l+k <= len(text) {
					sel.Suffix = string(text[at+l : at+l+k])
				}
				start := at
				gotP, gotS := uniqueContext(x, sel, start)
				wantP, wantS := bruteUniqueContext(s, sel, start)
				if !reflect.DeepEqual(gotP, wantP) || !reflect.DeepEqual(gotS, wantS) {
					t.Fatalf("%+v at %d in %q: prefix %v suffix %v, want %v %v", sel, start, s, deref(gotP), deref(gotS), deref(wantP), deref(wantS))
				}
			}
		}
	}
}

func deref(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestPlainBytesFoldOneForOne holds the proof normalized skips the folding
// by: a text of plain bytes (plainBytes) folds to its bytes mapped one by
// one by asciiFolded's table, and when foldsApart holds for a text and a
// claim, the folded claim occurs in the folded text exactly where the
// claim occurs in the text.
func TestPlainBytesFoldOneForOne(t *testing.T) {
	t.Parallel()
	r := testkit.NewRand(79)
	var plain []byte
	for c := range byte(utf8.RuneSelf) {
		if _, ok := plainBytes(string([]byte{c})); ok {
			plain = append(plain, c)
		} else if !fold.IsWhiteSpace(rune(c)) {
			t.Errorf("ASCII %q is not plain", c)
		}
	}
	folded := func(s string) string {
		w := fold.NewFolder(fold.All, len(s))
		w.Fold(s)
		return w.Done()
	}
	table := fold.ASCII()
	apart, together := 0, 0
	for range 3000 {
		alphabet := make([]byte, 1+r.IntN(4))
		for i := range alphabet {
			alphabet[i] = plain[r.IntN(len(plain))]
		}
		if r.IntN(2) == 0 { // two bytes that case folding or typography reads alike
			pair := [][2]byte{{'a', 'A'}, {'q', 'Q'}, {'`', '\''}}[r.IntN(3)]
			alphabet = append(alphabet, pair[0], pair[1])
		}
		gen := func(n int) string {
			b := make([]byte, n)
			for i := range b {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
			return string(b)
		}
		text, claim := gen(1+r.IntN(60)), gen(1+r.IntN(6))
		mapped := []byte(text)
		for i, c := range mapped {
			mapped[i] = table[c]
		}
		if got := folded(text); got != string(mapped) {
			t.Fatalf("%q folds to %q, not its bytes mapped %q", text, got, mapped)
		}
		ts, _ := plainBytes(text)
		cs, _ := plainBytes(claim)
		if !foldsApart(ts, cs) {
			together++
			continue
		}
		apart++
		if (bruteCount(folded(text), folded(claim)) > 0) != (bruteCount(text, claim) > 0) {
			t.Fatalf("%q in %q: folds apart, yet occurs folded %d times and as it is %d", claim, text, bruteCount(folded(text), folded(claim)), bruteCount(text, claim))
		}
	}
	if apart < 100 || together < 100 {
		t.Fatalf("%d pairs apart, %d together: the test does not try both", apart, together)
	}
}
