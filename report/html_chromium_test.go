package report

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/chromium"
	"github.com/citecheck/citecheck/internal/testkit"
)

// cspWatch records, before any script of the page runs, every
// securitypolicyviolation of the page. Scripts the browser is told to run
// (this one, Runtime.evaluate) are outside the page's policy.
const cspWatch = `window.__csp = [];
document.addEventListener('securitypolicyviolation', function (e) {
	window.__csp.push(e.violatedDirective + ' ' + e.blockedURI);
});`

// pageWatch is what a tab saw while it showed a page.
type pageWatch struct {
	mu       sync.Mutex
	requests []string // every request's URL
	dialogs  []string // every JavaScript dialog's message
	errors   []string // console errors, exceptions, error log entries
}

// watchTab starts recording ctx's tab and installs cspWatch.
func watchTab(t testing.TB, ctx context.Context) *pageWatch {
	t.Helper()
	w := &pageWatch{}
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	err := chromedp.Listen(ctx, func(ev any) {
		w.mu.Lock()
		defer w.mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			w.requests = append(w.requests, ev.Request.URL)
		case *page.EventJavascriptDialogOpening:
			w.dialogs = append(w.dialogs, ev.Message)
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError {
				w.errors = append(w.errors, string(ev.Entry.Source)+": "+ev.Entry.Text)
			}
		case *runtime.EventExceptionThrown:
			w.errors = append(w.errors, "exception: "+ev.ExceptionDetails.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: cspWatch}); err != nil {
		t.Fatal(err)
	}
	return w
}

// writePage writes p's page to a file of t's and returns its file:// URL.
func writePage(t testing.TB, name string, p *Page) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name+".html")
	if err := os.WriteFile(path, AppendHTML(nil, p), 0o644); err != nil {
		t.Fatal(err)
	}
	return (&url.URL{Scheme: "file", Path: path}).String()
}

func eval[T any](t testing.TB, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// TestHTMLInChromium opens every golden page from a file in headless
// Chromium: the data-outcome of the elements that carry one, in DOM
// order, are the page's items' outcomes; the page makes no request but
// for itself, runs its own script (n, n, p focus the first failure) with
// no policy violation, opens no dialog and holds no script but its own
// (the hostile page included); a script injected after the load is
// refused by the policy (so the watch works).
// About 10 s: a tab per page; skipped under -short.
func TestHTMLInChromium(t *testing.T) {
	ctx := chromium.Browser(t, 2*time.Minute)
	for _, c := range htmlGolden {
		t.Run(c.name, func(t *testing.T) {
			tab, cancel := chromedp.NewContext(ctx)
			defer cancel()
			w := watchTab(t, tab)
			u := writePage(t, c.name, &c.page)
			if err := chromedp.Do(tab, chromedp.Navigate(u)); err != nil {
				t.Fatal(err)
			}
			got := eval[[]string](t, tab, `Array.from(document.querySelectorAll('[data-outcome]'), e => e.dataset.outcome)`)
			var want []string
			for _, it := range c.page.Items {
				want = append(want, cleanText(it.Outcome))
			}
			if !slices.Equal(got, want) {
				t.Errorf("data-outcome in DOM order = %q, want %q", got, want)
			}
			// No bidi control acts on the page: none is in its DOM text
			// or its title (the bidi-controls page holds one in every
			// field).
			if bidi := eval[string](t, tab, `(document.title + document.body.textContent).match(/[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/g)?.join('') ?? ''`); bidi != "" {
				t.Errorf("bidi controls in the DOM text: %+q", bidi)
			}
			if n := eval[int](t, tab, `document.scripts.length`); n != 1 {
				t.Errorf("%d script elements, want 1", n)
			}
			// The page's own script runs on a key: n twice, p once.
			for _, k := range []string{"n", "n", "p"} {
				if err := chromedp.Do(tab, chromedp.KeyEvent(k)); err != nil {
					t.Fatal(err)
				}
			}
			ids := itemIDs(c.page.Items)
			if i := slices.IndexFunc(c.page.Items, func(it Item) bool { return it.Outcome != "verbatim" }); i >= 0 {
				if got := eval[string](t, tab, `document.activeElement.id`); got != ids[i] {
					t.Errorf("after n, n, p the focus is on %q, want the first failure %q: the script did not run", got, ids[i])
				}
			}
			if v := eval[[]string](t, tab, `window.__csp`); len(v) != 0 {
				t.Errorf("policy violations: %q", v)
			}
			w.mu.Lock()
			for _, e := range w.errors {
				t.Errorf("error: %s", e)
			}
			w.mu.Unlock()
			// The control: an inline script added now is refused.
			eval[bool](t, tab, `var s = document.createElement('script'); s.textContent = 'window.__ran = 1'; document.body.append(s); true`)
			// The violation event is queued as a task: wait for it.
			for i := 0; i < 50 && len(eval[[]string](t, tab, `window.__csp`)) == 0; i++ {
				time.Sleep(20 * time.Millisecond)
			}
			if ran := eval[bool](t, tab, `window.__ran === 1`); ran || len(eval[[]string](t, tab, `window.__csp`)) != 1 {
				t.Errorf("an injected inline script ran (%v) or was not reported: %q", ran, eval[[]string](t, tab, `window.__csp`))
			}
			w.mu.Lock()
			defer w.mu.Unlock()
			if len(w.requests) != 1 || w.requests[0] != u {
				t.Errorf("requests %q, want only %s", w.requests, u)
			}
			if len(w.dialogs) != 0 {
				t.Errorf("dialogs opened: %q", w.dialogs)
			}
		})
	}
}

// TestHTMLKeyboardInChromium: pressing n from the top focuses every
// failure in order and wraps to the first; p goes back, wrapping to the
// last; j and k do the same as n and p.
func TestHTMLKeyboardInChromium(t *testing.T) {
	ctx := chromium.Browser(t, time.Minute)
	p := &Page{Title: "keys", Outcomes: quoteOutcomes}
	var fails []string
	for i := range 7 {
		pass := i%3 == 1
		id := fmt.Sprintf("q%d", i)
		p.Items = append(p.Items, Item{ID: id, Outcome: map[bool]string{true: "verbatim", false: "not_found"}[pass], Text: strings.Repeat("words ", 200)})
		if !pass {
			fails = append(fails, id)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(writePage(t, "keys", p))); err != nil {
		t.Fatal(err)
	}
	press := func(key string) string {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.KeyEvent(key)); err != nil {
			t.Fatal(err)
		}
		return eval[string](t, ctx, `document.activeElement.id`)
	}
	var got []string
	for range len(fails) + 1 {
		got = append(got, press("n"))
	}
	if want := append(slices.Clone(fails), fails[0]); !slices.Equal(got, want) {
		t.Errorf("n, n, …: focused %q, want %q", got, want)
	}
	if got, want := press("p"), fails[len(fails)-1]; got != want {
		t.Errorf("p from the first failure: %q, want %q", got, want)
	}
	if got, want := press("k"), fails[len(fails)-2]; got != want {
		t.Errorf("k: %q, want %q", got, want)
	}
	if got, want := press("j"), fails[len(fails)-1]; got != want {
		t.Errorf("j: %q, want %q", got, want)
	}
	// From a pass, n goes to the failure after it and p to the one before.
	eval[bool](t, ctx, `document.getElementById('q4').focus(); true`)
	if got := press("n"); got != "q5" {
		t.Errorf("n from the pass q4: %q, want q5", got)
	}
	eval[bool](t, ctx, `document.getElementById('q4').focus(); true`)
	if got := press("p"); got != "q3" {
		t.Errorf("p from the pass q4: %q, want q3", got)
	}
	if top := eval[float64](t, ctx, `document.activeElement.getBoundingClientRect().top`); top < 0 || top > eval[float64](t, ctx, `innerHeight`) {
		t.Errorf("the focused failure is not in view (top %v)", top)
	}
}

// benchPage is a page of n items whose passages come from 16 sources of
// 512 KiB, cut by NewPassage: a third verbatim, a third near (compared),
// a third not found.
func benchPage(n int) *Page {
	var texts []*citecheck.Text
	for i := range 16 {
		texts = append(texts, citecheck.NewText(testkit.NewCorpus(uint64(i)).Prose(512<<10)))
	}
	p := &Page{Title: "bench", Kind: "quotes", Outcomes: quoteOutcomes}
	for i := range n {
		x := texts[i%16]
		at := (i * 7919) % (x.Len() - 200)
		q := x.String()[x.ByteOffset(at):x.ByteOffset(at+80)]
		it := Item{ID: fmt.Sprintf("q%d", i), Head: fmt.Sprintf("quotation %d", i+1), Text: q, Source: fmt.Sprintf("s%d", i%16)}
		switch i % 3 {
		case 0:
			it.Outcome = "verbatim"
			it.Passages = []Passage{NewPassage("match", x, at, at+80, false)}
		case 1:
			it.Outcome, it.Text = "near", strings.Replace(q, " ", "  ", 2)
			it.Passages = []Passage{NewPassage("nearest reading", x, at, at+80, true)}
			it.Fix = "quote it as: " + q
		default:
			it.Outcome, it.Why = "not_found", "not in any source"
		}
		p.Items = append(p.Items, it)
	}
	return p
}

// BenchmarkHTMLOpen1000 times a page of 1,000 items from AppendHTML to
// Chromium's load event, the page read from a file (docs/report-html.md).
func BenchmarkHTMLOpen1000(b *testing.B) {
	ctx := chromium.Browser(b, 10*time.Minute)
	p := benchPage(1000)
	dir := b.TempDir()
	if err := chromedp.Do(ctx); err != nil {
		b.Fatal(err)
	}
	size := 0
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		page := AppendHTML(nil, p)
		size = len(page)
		path := filepath.Join(dir, fmt.Sprintf("p%d.html", i))
		if err := os.WriteFile(path, page, 0o644); err != nil {
			b.Fatal(err)
		}
		if err := chromedp.Do(ctx, chromedp.Navigate((&url.URL{Scheme: "file", Path: path}).String())); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
	b.ReportMetric(float64(size)/1000, "bytes/item")
}

// benchDocPage is benchPage(n) standing in a document, as a quotes page
// is: a line of prose per item holding its quotation, each item's Range
// on it.
func benchDocPage(n int) *Page {
	p := benchPage(n)
	var doc strings.Builder
	for i := range p.Items {
		it := &p.Items[i]
		fmt.Fprintf(&doc, "Paragraph %d says that “", i+1)
		a := doc.Len()
		doc.WriteString(it.Text)
		it.Range = &ByteRange{a, doc.Len()}
		doc.WriteString("” [1], and goes on.\n\n")
	}
	p.Document = &Document{Name: "bench.md", Text: doc.String()}
	return p
}

// BenchmarkHTMLOpenItems times pages of n items in a document from
// AppendHTML to Chromium's load event (docs/report-html.md, Cost): the
// whole page, the page without its document, and the document alone
// (its items' sections left out), so that the growth is seen and placed.
func BenchmarkHTMLOpenItems(b *testing.B) {
	ctx := chromium.Browser(b, 30*time.Minute)
	if err := chromedp.Do(ctx); err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for _, n := range []int{1000, 5000, 20000} {
		full := benchDocPage(n)
		noDoc := *full
		noDoc.Document = nil
		docOnly := *full
		docOnly.Items = nil
		for _, v := range []struct {
			name string
			p    *Page
		}{{"page", full}, {"nodoc", &noDoc}, {"doconly", &docOnly}} {
			if docOnly.Document != nil && v.name == "doconly" {
				// The document's marks link to items; without them the
				// ranges are dropped, so the document is marked as in
				// the full page through a page whose items are empty.
				items := make([]Item, len(full.Items))
				for i := range items {
					items[i] = Item{ID: full.Items[i].ID, Outcome: full.Items[i].Outcome, Range: full.Items[i].Range}
				}
				docOnly.Items = items
			}
			b.Run(fmt.Sprintf("%s/items=%d", v.name, n), func(b *testing.B) {
				size := 0
				for i := 0; b.Loop(); i++ {
					page := AppendHTML(nil, v.p)
					size = len(page)
					path := filepath.Join(dir, fmt.Sprintf("%s-%d-%d.html", v.name, n, i))
					if err := os.WriteFile(path, page, 0o644); err != nil {
						b.Fatal(err)
					}
					if err := chromedp.Do(ctx, chromedp.Navigate((&url.URL{Scheme: "file", Path: path}).String())); err != nil {
						b.Fatal(err)
					}
					os.Remove(path)
				}
				b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/op")
				b.ReportMetric(float64(size)/1e6, "MB")
			})
		}
	}
}

// TestHTMLDocumentBlocksInChromium: the document cut into blocks is drawn
// as the same document in one block: its height, every block shown, is
// that of its marks and text in one <div> (a block's closing line break
// draws no line), with blank lines at the cuts.
func TestHTMLDocumentBlocksInChromium(t *testing.T) {
	ctx := chromium.Browser(t, time.Minute)
	p := &Page{Title: "blocks", Outcomes: quoteOutcomes}
	var doc strings.Builder
	for i := range 200 {
		fmt.Fprintf(&doc, "Line %d says “", i)
		a := doc.Len()
		doc.WriteString("a quotation\nover two lines")
		p.Items = append(p.Items, Item{ID: fmt.Sprintf("q%d", i), Outcome: "verbatim", Range: &ByteRange{a, doc.Len()}})
		doc.WriteString("”, then more.\n")
		if i%7 == 0 {
			doc.WriteString("\n\n")
		}
	}
	p.Document = &Document{Name: "d", Text: doc.String()}
	if err := chromedp.Do(ctx, chromedp.Navigate(writePage(t, "blocks", p))); err != nil {
		t.Fatal(err)
	}
	got := eval[[]float64](t, ctx, `(() => {
		const d = document.querySelector('.doc');
		for (const b of d.children) b.style.contentVisibility = 'visible';
		const one = d.cloneNode(false);
		one.innerHTML = Array.from(d.children, b => b.innerHTML).join('');
		d.after(one);
		return [d.children.length, d.getBoundingClientRect().height, one.getBoundingClientRect().height];
	})()`)
	t.Logf("%v blocks, %v px; in one block %v px", got[0], got[1], got[2])
	if got[0] < 5 || got[1] < 1000 || got[1] != got[2] {
		t.Errorf("%v blocks %v px high, the same in one block %v px", got[0], got[1], got[2])
	}
}
