package main

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/citecheck/citecheck/internal/chromium"
)

var screenshots = flag.Bool("screenshots", false, "write the guide's screenshots, docs/img/report-{quotes,annotations,run}.png, from the worked examples' pages")

type workedPage struct {
	name, page, shot, docs string
	want                   []string
}

// workedPages are the pages of the worked examples of docs/annotations.md
// and docs/explain.md, with the JSON lines' outcomes they must show and
// the screenshot each is kept as in docs/img.
func workedPages(t *testing.T) []workedPage {
	t.Helper()
	// Run where the guides run them, so that the pages' titles name the
	// files as the guides do.
	ann := []string{"annotations", "--source", estuaryIRI + "=estuary-v1.txt", "hypothesis-search.json"}
	run := []string{"run", "citation-batch-check", "1.0.0", "--input", "examples/explain.json"}
	annDir, err := filepath.Abs(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	runDir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var out []workedPage
	for _, c := range []struct {
		name, shot string
		cwd        string
		args       []string
		want       func(*testing.T, string) []string
		json       []string
	}{
		{"annotations", "report-annotations.png", annDir, ann, lineOutcomes, nil},
		{"run", "report-run.png", runDir, run, answerOutcomes, []string{"--explain"}},
	} {
		t.Chdir(c.cwd)
		j := runCLI(t, nil, append(slices.Clone(c.args), c.json...)...)
		h := runCLI(t, nil, append(slices.Clone(c.args), "--format", "html")...)
		page := filepath.Join(dir, c.name+".html")
		if err := os.WriteFile(page, []byte(h.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		out = append(out, workedPage{c.name, page, c.shot, filepath.Join(runDir, "docs"), c.want(t, j.stdout)})
	}
	return out
}

// The pages of the worked examples, opened from file:// in Chromium: the
// outcomes read from the DOM, in document order, are the JSON lines'; the
// page makes no request beyond its own file; the keyboard (n) reaches
// every failure, in order, and comes back round.
func TestHTMLReportsInChromium(t *testing.T) {
	for _, p := range workedPages(t) {
		t.Run(p.name, func(t *testing.T) {
			ctx := chromium.Browser(t, 60*time.Second)
			var mu sync.Mutex
			var requests []string
			if err := chromedp.Do(ctx); err != nil { // open the tab before listening
				t.Fatal(err)
			}
			if err := chromedp.Listen(ctx, func(ev any) {
				if e, ok := ev.(*network.EventRequestWillBeSent); ok {
					mu.Lock()
					requests = append(requests, e.Request.URL)
					mu.Unlock()
				}
			}); err != nil {
				t.Fatal(err)
			}
			url := "file://" + p.page
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(1000, 1400), chromedp.Navigate(url)); err != nil {
				t.Fatal(err)
			}
			got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-outcome]'), e => e.dataset.outcome)`))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, p.want) {
				t.Errorf("DOM outcomes %q\nJSON lines   %q", got, p.want)
			}
			failing, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll('[data-outcome][data-pass="false"]'), e => e.id)`))
			if err != nil {
				t.Fatal(err)
			}
			var reached []string
			for range len(failing) + 1 {
				if err := chromedp.Do(ctx, chromedp.KeyEvent("n")); err != nil {
					t.Fatal(err)
				}
				id, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.activeElement.id`))
				if err != nil {
					t.Fatal(err)
				}
				reached = append(reached, id)
			}
			if want := append(slices.Clone(failing), failing[0]); !slices.Equal(reached, want) {
				t.Errorf("n reached %q, want every failure in order and back to the first: %q", reached, want)
			}
			if *screenshots {
				if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.activeElement.blur(), window.scrollTo(0, 0), true`)); err != nil {
					t.Fatal(err)
				}
				png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatal(err)
				}
				shot := filepath.Join(p.docs, "img", p.shot)
				if err := os.MkdirAll(filepath.Dir(shot), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(shot, png, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s, %d KB", shot, len(png)>>10)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, u := range requests {
				if u != url {
					t.Errorf("the page requested %s", u)
				}
			}
			if len(requests) == 0 {
				t.Errorf("no request seen, not even the page's own: is the listener on?")
			}
		})
	}
}
