package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/chromedp/chromedp"

	"github.com/citecheck/citecheck/internal/chromium"
	"github.com/citecheck/citecheck/internal/testkit"
	"github.com/citecheck/citecheck/quotes"
	reportpkg "github.com/citecheck/citecheck/report"
)

// The issue's size for the HTML report of quotes: 1,000 quotations over
// 16 sources of 512 KiB.
const (
	benchQuotations  = 1000
	benchSources     = 16
	benchSourceBytes = 512 << 10
)

var (
	benchOnce  sync.Once
	benchRun   quotes.Run
	benchCount [7]int // the outcomes the workload gives, for the record
)

// quotesHTMLWorkload is a report of benchQuotations quotations over
// benchSources sources of benchSourceBytes, the same on every run: the
// sources are real text in several scripts (testkit's multilingual text:
// CJK, Latin with accents, English with emoji; its Unicode text: CJK,
// kana, Hebrew with niqqud, Devanagari, combining marks, astral letters;
// Chinese; English prose), each quotation 30–120 code points of one of
// them in «», marked [sN]: 7 in 10 verbatim, 1 in 10 marked with another
// source (elsewhere), 1 in 10 lowered (near, under the case fold, where
// the text has case), 1 in 10 with a word put in (not_found).
func quotesHTMLWorkload() quotes.Run {
	benchOnce.Do(func() {
		rng := testkit.NewRand(38)
		srcs := make([]quotes.Source, benchSources)
		for i := range srcs {
			var text string
			switch i % 4 {
			case 0:
				text = testkit.MultilingualText(rng, benchSourceBytes)
			case 1:
				text = (&testkit.Corpus{Rand: rng}).Unicode(benchSourceBytes)
			case 2:
				text = testkit.CJKText(rng, benchSourceBytes)
			case 3:
				text = (&testkit.Corpus{Rand: rng}).Prose(benchSourceBytes)
			}
			srcs[i] = quotes.Source{ID: fmt.Sprintf("s%d", i), Text: text}
		}
		var b strings.Builder
		b.WriteString("# A report of a thousand quotations\n\n")
		for k := 0; k < benchQuotations; k++ {
			s := rng.IntN(benchSources)
			q := pickQuote(rng, srcs[s].Text)
			marker := s
			switch k % 10 {
			case 3:
				marker = (s + 1 + rng.IntN(benchSources-1)) % benchSources
			case 6:
				if lower := strings.ToLower(q); lower != q {
					q = lower
				}
			case 9:
				r := []rune(q)
				at := len(r) / 2
				q = string(r[:at]) + " inserted " + string(r[at:])
			}
			fmt.Fprintf(&b, "Paragraph %d says «%s» [s%d] and goes on.\n\n", k, q, marker)
		}
		benchRun = quotes.Run{Shape: quotes.Report, Input: []byte(b.String()), Name: "report.md", Sources: srcs}
	})
	return benchRun
}

// pickQuote is 30–120 code points of text on one line, starting and
// ending on a letter, holding no mark or bracket the report would read.
func pickQuote(rng *rand.Rand, text string) string {
	for {
		at := rng.IntN(len(text) - 1024)
		for !utf8.RuneStart(text[at]) {
			at++
		}
		r := []rune(text[at : at+1024])
		n := 30 + rng.IntN(91)
		q := strings.TrimFunc(string(r[:n]), func(c rune) bool { return !unicode.IsLetter(c) })
		if utf8.RuneCountInString(q) >= 20 && !strings.ContainsAny(q, "\r\n«»[]\"“”„「」『』") {
			return q
		}
	}
}

// benchPage checks the workload and returns its page.
func benchPage(tb testing.TB) *reportpkg.Page {
	run := quotesHTMLWorkload()
	page := quotes.NewHTMLPage(run.Name, run.Shape, run.Input)
	counts, err := run.Each(context.Background(), func(a *quotes.Answer) { page.Items = a.AppendHTMLItems(page.Items) })
	if err != nil {
		tb.Fatal(err)
	}
	copy(benchCount[:], counts)
	return page
}

// BenchmarkQuotesHTML times `quotes --format html` on the workload: the
// whole command's work (read, check, items, render; "command"), the
// same writing JSON lines ("command-json", the baseline), and the
// renderer alone on the page of items ("render"). Figures:
// docs/report-html.md#quotes.
//
//	go test ./cmd/citecheck -run '^$' -bench BenchmarkQuotesHTML -benchtime 5x -count 5
func BenchmarkQuotesHTML(b *testing.B) {
	b.Run("command", func(b *testing.B) {
		run := quotesHTMLWorkload()
		b.ReportAllocs()
		for b.Loop() {
			q := quotesRun{Run: run, html: true}
			if _, err := q.write(context.Background(), io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("command-json", func(b *testing.B) { // the same run writing JSON lines: the baseline
		run := quotesHTMLWorkload()
		b.ReportAllocs()
		for b.Loop() {
			q := quotesRun{Run: run}
			if _, err := q.write(context.Background(), io.Discard); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("render", func(b *testing.B) {
		page := benchPage(b)
		b.ReportAllocs()
		var out []byte
		for b.Loop() {
			out = reportpkg.AppendHTML(out[:0], page)
		}
		b.ReportMetric(float64(len(out)), "page-bytes")
		b.ReportMetric(float64(len(page.Items)), "items")
	})
}

// BenchmarkQuotesHTMLChromium times headless Chromium opening the
// workload's page from a file:// URL, to its load event (navigation
// start to loadEventEnd, as the page's own performance timing reports
// it, in ms-to-load; the ns/op is the whole navigation as chromedp waits
// for it). The issue asks under a second.
//
//	go test ./cmd/citecheck -run '^$' -bench BenchmarkQuotesHTMLChromium -benchtime 5x -count 5
func BenchmarkQuotesHTMLChromium(b *testing.B) {
	page := reportpkg.AppendHTML(nil, benchPage(b))
	path := filepath.Join(b.TempDir(), "report.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		b.Fatal(err)
	}
	ctx := chromium.Browser(b, 10*time.Minute)
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil { // start the browser outside the timing
		b.Fatal(err)
	}
	best := time.Duration(1 << 62)
	for b.Loop() {
		if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(fileURL(path))); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`(() => { const t = performance.getEntriesByType("navigation")[0]; return t.loadEventEnd - t.startTime })()`))
		if err != nil {
			b.Fatal(err)
		}
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("[data-outcome]").length`))
		if err != nil || n != benchQuotations {
			b.Fatalf("%d items in the DOM, want %d (%v)", n, benchQuotations, err)
		}
		best = min(best, time.Duration(ms*float64(time.Millisecond)))
		b.StartTimer()
	}
	b.ReportMetric(float64(best)/float64(time.Millisecond), "fastest-ms-to-load")
	b.ReportMetric(float64(len(page)), "page-bytes")
}

// The workload is what the benchmarks say: 1,000 quotations over 16
// sources of 512 KiB (within 1 KiB), every outcome of a report but
// no_source among them.
func TestQuotesHTMLWorkloadIsTheIssues(t *testing.T) {
	if testing.Short() {
		t.Skip("checks 1,000 quotations over 8 MiB")
	}
	run := quotesHTMLWorkload()
	if len(run.Sources) != benchSources {
		t.Fatalf("%d sources", len(run.Sources))
	}
	for _, s := range run.Sources {
		if len(s.Text) < benchSourceBytes-1024 || len(s.Text) > benchSourceBytes {
			t.Errorf("source %s: %d bytes", s.ID, len(s.Text))
		}
	}
	page := benchPage(t)
	if len(page.Items) != benchQuotations {
		t.Fatalf("%d items", len(page.Items))
	}
	t.Logf("outcomes: %v", benchCount)
	for _, o := range []quotes.Outcome{quotes.Verbatim, quotes.Elsewhere, quotes.Near, quotes.NotFound} {
		if benchCount[o] == 0 {
			t.Errorf("no %s quotation", o)
		}
	}
}
