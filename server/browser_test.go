package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/citecheck/citecheck/internal/chromium"
)

// TestToolPageInBrowser loads the tool page in a real browser, runs the
// prefilled example, then edits the input into failing ones and checks the
// failing span is marked in the source text, at code point positions.
func TestToolPageInBrowser(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	ctx := browser(t)

	err := chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/tools/citation-batch-check"),
		chromedp.WaitVisible(chromedp.ID("try-run")),
		chromedp.Click(chromedp.ID("try-run")),
		chromedp.WaitVisible(chromedp.CSS("#try-status.valid")),
	)
	if err != nil {
		t.Fatalf("running the example: %v", err)
	}
	status := text(t, ctx, "#try-status")
	output := text(t, ctx, "#try-output")
	if !strings.Contains(output, `"valid": true`) || !strings.Contains(status, "Valid") {
		t.Fatalf("example: status %q, output %q", status, output)
	}

	failing := []struct {
		name, input, reason string
		marks               map[string]string // selector → its text
	}{
		{
			name: "quote mismatch",
			input: `{"sources":[{"source_id":"alphabet","version":"v1","text":"abcdefghijklmnopqrstuvwxyz"}],
			  "citations":[{"citation_id":"c1","source_id":"alphabet","version":"v1",
			  "selector":{"type":"TextPositionSelector","start":4,"end":7},"quote":"efh"}]}`,
			reason: "quote_mismatch",
			marks:  map[string]string{"mark.span": "ef", "mark.mismatch": "g"},
		},
		{
			// Two astral code points before the span: UTF-16 indexing
			// would mark "a", code points mark "c".
			name: "code points, not UTF-16 units",
			input: `{"sources":[{"source_id":"s","version":"1","text":"😀😀abcde"}],
			  "citations":[{"citation_id":"c1","source_id":"s","version":"1",
			  "selector":{"type":"TextPositionSelector","start":2,"end":5},"quote":"abX"}]}`,
			reason: "quote_mismatch",
			marks:  map[string]string{"mark.span": "ab", "mark.mismatch": "c"},
		},
		{
			name: "prefix mismatch",
			input: `{"sources":[{"source_id":"alphabet","version":"v1","text":"abcdefghijklmnopqrstuvwxyz"}],
			  "citations":[{"citation_id":"c1","source_id":"alphabet","version":"v1",
			  "selector":{"type":"TextQuoteSelector","exact":"xyz","prefix":"v"}}]}`,
			reason: "prefix_mismatch",
			marks:  map[string]string{"mark.match": "xyz", "mark.mismatch": "w"},
		},
		{
			name: "position mismatch",
			input: `{"sources":[{"source_id":"alphabet","version":"v1","text":"abcdefghijklmnopqrstuvwxyz"}],
			  "citations":[{"citation_id":"c1","source_id":"alphabet","version":"v1",
			  "selector":{"type":"TextQuoteSelector","exact":"xyz"},"claimed_start":22}]}`,
			reason: "position_mismatch",
			marks:  map[string]string{"mark.mismatch": "wxy", "mark.match": "z"},
		},
		{
			name: "ambiguous anchor",
			input: `{"sources":[{"source_id":"b","version":"1","text":"bananas"}],
			  "citations":[{"citation_id":"c1","source_id":"b","version":"1",
			  "selector":{"type":"TextQuoteSelector","exact":"ana"}}]}`,
			reason: "ambiguous_anchor",
			marks:  map[string]string{"mark.match": "anana"},
		},
	}
	for _, f := range failing {
		t.Run(f.name, func(t *testing.T) {
			forget(t, ctx)
			err := chromedp.Do(ctx,
				chromedp.SetValue(chromedp.ID("try-input"), f.input),
				chromedp.Click(chromedp.ID("try-run")),
				chromedp.WaitVisible(chromedp.CSS("#try-status.failed")),
				chromedp.WaitVisible(chromedp.CSS("#try-source mark")),
			)
			if err != nil {
				t.Fatal(err)
			}
			status := text(t, ctx, "#try-status")
			if !strings.Contains(status, f.reason) {
				t.Errorf("status %q lacks %s", status, f.reason)
			}
			for sel, want := range f.marks {
				if got := text(t, ctx, "#try-source "+sel); got != want {
					t.Errorf("%s marks %q, want %q", sel, got, want)
				}
			}
		})
	}

	t.Run("refused input shows the error", func(t *testing.T) {
		forget(t, ctx)
		err := chromedp.Do(ctx,
			chromedp.SetValue(chromedp.ID("try-input"), `{"sources":[]}`),
			chromedp.Click(chromedp.ID("try-run")),
			chromedp.WaitVisible(chromedp.CSS("#try-status.error")),
		)
		if err != nil {
			t.Fatal(err)
		}
		status := text(t, ctx, "#try-status")
		if !strings.Contains(status, "400") || !strings.Contains(status, "invalid_input") {
			t.Errorf("status %q", status)
		}
	})
}

// browser starts headless Chromium for the test, or skips the test where
// it is absent; it stops when the test ends.
func browser(t *testing.T) context.Context { return chromium.Browser(t, 90*time.Second) }

// text is the text of the first element matching the CSS selector.
func text(t *testing.T, ctx context.Context, css string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(css)))
	if err != nil {
		t.Fatalf("text of %s: %v", css, err)
	}
	return s
}

// forget clears the previous run's status and marks, so that waiting for
// this run's cannot be satisfied by what the last one left.
func forget(t *testing.T, ctx context.Context) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("try-status").className = "";
		document.getElementById("try-source").replaceChildren();
		document.getElementById("try-findings").replaceChildren(); true`))
	if err != nil {
		t.Fatal(err)
	}
}
