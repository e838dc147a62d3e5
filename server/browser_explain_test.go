package server

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestToolPageExplainsAFailureInBrowser: after a failed run the tool page
// shows the findings of the explain route, marks their spans in the source
// (at code points), and offers the fix, which applied makes the run pass.
func TestToolPageExplainsAFailureInBrowser(t *testing.T) {
	ctx := browser(t)
	ts := start(t, Config{})
	if err := chromedp.Do(ctx, chromedp.Navigate(ts.URL+"/tools/citation-batch-check"), chromedp.WaitVisible(chromedp.ID("try-run"))); err != nil {
		t.Fatal(err)
	}
	const memo = `{"source_id":"memo","version":"v1","text":"Launch 🚀 went well. She said “we reached orbit” at 10:42."}`
	cases := []struct {
		name, citation string
		kind, says     string // the first finding's kind and words
		marked         string // what the first finding mark covers
		fix            bool
	}{
		{"JavaScript offsets over an emoji are fixed",
			`{"citation_id":"c","source_id":"memo","version":"v1","selector":{"type":"TextPositionSelector","start":34,"end":41},"quote":"reached"}`,
			"elsewhere", "occurs exactly at [33, 40)", "reached", true},
		{"curly quotes typed straight are a normalized finding, without a fix",
			`{"citation_id":"c","source_id":"memo","version":"v1","selector":{"type":"TextQuoteSelector","exact":"\"we reached orbit\""}}`,
			"normalized", "ignoring typography", "“we reached orbit”", false},
		{"a fabricated quote is only a partial match",
			`{"citation_id":"c","source_id":"memo","version":"v1","selector":{"type":"TextQuoteSelector","exact":"we went well at orbit"}}`,
			"partial", "only the first 3 code points", "we ", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			forget(t, ctx)
			err := chromedp.Do(ctx,
				chromedp.SetValue(chromedp.ID("try-input"), `{"sources":[`+memo+`],"citations":[`+c.citation+`]}`),
				chromedp.Click(chromedp.ID("try-run")),
				chromedp.WaitVisible(chromedp.CSS("#try-status.failed")),
				chromedp.WaitVisible(chromedp.CSS("#try-findings li")),
			)
			if err != nil {
				t.Fatal(err)
			}
			kind, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#try-findings li").dataset.kind`))
			if err != nil {
				t.Fatal(err)
			}
			if says := text(t, ctx, "#try-findings li"); kind != c.kind || !strings.Contains(says, c.says) {
				t.Errorf("first finding %s: %q", kind, says)
			}
			if got := text(t, ctx, "#try-explained mark.finding"); got != c.marked {
				t.Errorf("the finding marks %q, want %q", got, c.marked)
			}
			fixShown, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!document.getElementById("try-fix-box").hidden`))
			if err != nil {
				t.Fatal(err)
			}
			if fixShown != c.fix {
				t.Fatalf("fix shown %v, want %v", fixShown, c.fix)
			}
			if !c.fix {
				return
			}
			forget(t, ctx)
			err = chromedp.Do(ctx,
				chromedp.Click(chromedp.ID("try-fix")),
				chromedp.WaitVisible(chromedp.CSS("#try-status.valid")),
			)
			if err != nil {
				t.Fatalf("applying the fix: %v", err)
			}
			in, err := chromedp.Run(ctx, chromedp.Value(chromedp.ID("try-input")))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(in, `"start": 33`) || !strings.Contains(in, `"end": 40`) {
				t.Errorf("the fixed input: %s", in)
			}
		})
	}
}
