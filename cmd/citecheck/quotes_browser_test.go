package main

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/citecheck/citecheck/internal/chromium"
)

// fileURL is the file:// URL of an absolute path.
func fileURL(path string) string { return (&url.URL{Scheme: "file", Path: path}).String() }

// requestLog records the URLs of every request a tab sends or is
// refused, from the tab's network events.
type requestLog struct {
	mu   sync.Mutex
	urls []string
}

func (l *requestLog) listen(t *testing.T, ctx context.Context) {
	t.Helper()
	err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			l.mu.Lock()
			l.urls = append(l.urls, e.Request.URL)
			l.mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

func (l *requestLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	u := l.urls
	l.urls = nil
	return u
}

// The HTML of each worked example of docs/quotes.md, opened from a
// file:// URL in headless Chromium: every [data-outcome] element, in DOM
// order, is the JSON lines' outcome, and the page sends no request but
// its own file's (no script, style, font or image from anywhere).
func TestQuotesHTMLInChromium(t *testing.T) {
	ctx := chromium.Browser(t, 2*time.Minute)
	var log requestLog
	log.listen(t, ctx)
	dir := t.TempDir()
	for i, args := range quotesGuideRuns(t) {
		j := runCLI(t, nil, append(slices.Clone(args), "--format", "json")...)
		h := runCLI(t, nil, append(slices.Clone(args), "--format", "html")...)
		path := filepath.Join(dir, "example-"+string(rune('a'+i))+".html")
		if err := os.WriteFile(path, []byte(h.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		log.take()
		if err := chromedp.Do(ctx, chromedp.Navigate(fileURL(path))); err != nil {
			t.Fatal(err)
		}
		got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("[data-outcome]"), e => e.dataset.outcome)`))
		if err != nil {
			t.Fatal(err)
		}
		if want := lineOutcomes(t, j.stdout); !slices.Equal(got, want) {
			t.Errorf("%s: the DOM's outcomes %q, the JSON lines' %q", strings.Join(args, " "), got, want)
		}
		sawPage := false
		for _, u := range log.take() {
			switch {
			case u == fileURL(path):
				sawPage = true // the listener hears requests: it heard this one
			case !strings.HasPrefix(u, "data:"):
				t.Errorf("%s: the page requested %s", strings.Join(args, " "), u)
			}
		}
		if !sawPage {
			t.Errorf("%s: the network log has not the page's own request", strings.Join(args, " "))
		}
	}
}

// The guide's screenshot of `quotes --format html` on docs/quotes.md's
// report example, full-page at 1000 CSS pixels wide: written only with
// -screenshots (go test ./cmd/citecheck -run TestQuotesHTMLScreenshots
// -screenshots), so that a run of the tests changes no file of the docs.
func TestQuotesHTMLScreenshots(t *testing.T) {
	if !*screenshots {
		t.Skip("writes docs/img/report-quotes.png with -screenshots")
	}
	ctx := chromium.Browser(t, 2*time.Minute)
	t.Chdir("../..") // the page names the report as the guide's command does
	page := runCLI(t, nil, "quotes", "--format", "html", "--explain", "--sources", "examples/quotes/sources.tsv", "examples/quotes/report.md").stdout
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	err := chromedp.Do(ctx, chromedp.EmulateViewport(1000, 800), chromedp.Navigate(fileURL(path)))
	if err != nil {
		t.Fatal(err)
	}
	// Items off screen are not laid out (content-visibility: auto), so a
	// full-page capture of a short viewport shows them blank: grow the
	// viewport to the page until its height holds still.
	for h, last := int64(800), int64(0); h != last; {
		last = h
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(1000, h)); err != nil {
			t.Fatal(err)
		}
		if h, err = chromedp.Run(ctx, chromedp.Evaluate[int64](`document.documentElement.scrollHeight`)); err != nil {
			t.Fatal(err)
		}
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join("docs", "img", "report-quotes.png")
	os.MkdirAll(filepath.Dir(out), 0o755)
	if err := os.WriteFile(out, smallPNG(t, shot), 0o644); err != nil {
		t.Fatal(err)
	}
}

// smallPNG re-encodes a screenshot with a palette of its 256 most
// frequent colours (a page of flat colours and anti-aliased text has few
// more that matter), at the best compression: about half the bytes, the
// same to the eye.
func smallPNG(t *testing.T, b []byte) []byte {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	count := map[color.RGBA]int{}
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			count[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	colors := slices.Collect(maps.Keys(count))
	slices.SortFunc(colors, func(a, b color.RGBA) int {
		if count[a] != count[b] {
			return count[b] - count[a]
		}
		return int(a.R)<<16 | int(a.G)<<8 | int(a.B) - (int(b.R)<<16 | int(b.G)<<8 | int(b.B))
	})
	var pal color.Palette
	for _, c := range colors[:min(256, len(colors))] {
		pal = append(pal, c)
	}
	p := image.NewPaletted(r, pal)
	draw.Draw(p, r, img, r.Min, draw.Src)
	var out bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&out, p); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes of PNG, %d after the palette", len(b), out.Len())
	return out.Bytes()
}
