package server

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image"
	"image/png"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

var writeScreenshot = flag.Bool("screenshot", false, "write docs/img/tool-page-paste.png from the paste mode's browser test")

// browserEvents collects what a target says that a test must see none of:
// its log (CSP violations are logged there, source "security"), its
// uncaught exceptions and its dialogs. Chromium's Log.enable, which
// chromedp sends when it attaches, replays the entries logged before, so
// a target attached late still reports what it logged while loading.
type browserEvents struct {
	mu     sync.Mutex
	events []string
}

func (b *browserEvents) listen(ev any) {
	var s string
	switch e := ev.(type) {
	case *log.EventEntryAdded:
		s = fmt.Sprintf("log %s %s: %s", e.Entry.Source, e.Entry.Level, e.Entry.Text)
	case *runtime.EventExceptionThrown:
		s = "exception: " + e.ExceptionDetails.Text
		if e.ExceptionDetails.Exception != nil {
			s += " " + e.ExceptionDetails.Exception.Description
		}
	case *page.EventJavascriptDialogOpening:
		s = "dialog: " + e.Message
	default:
		return
	}
	b.mu.Lock()
	b.events = append(b.events, s)
	b.mu.Unlock()
}

// matching are the events that contain any of the words.
func (b *browserEvents) matching(words ...string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, e := range b.events {
		for _, w := range words {
			if strings.Contains(e, w) {
				out = append(out, e)
				break
			}
		}
	}
	return out
}

func (b *browserEvents) all() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.events)
}

// What a CSP violation, a blocked dialog or a script error logs.
var violationWords = []string{"Content Security Policy", "Refused to", "security", "dialog", "alert", "sandboxed", "exception", "error"}

// srcdocFrame waits for a srcdoc iframe target other than those in
// skip and attaches to it, with its events collected in ev: a frame
// sandboxed without allow-same-origin runs in its own process, out of
// reach of the page's DOM (chromedp.WithTargetID).
func srcdocFrame(t *testing.T, ctx context.Context, skip map[target.ID]bool, ev *browserEvents) (context.Context, target.ID) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		infos, err := chromedp.Targets(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, info := range infos {
			if info.Type == "iframe" && info.URL == "about:srcdoc" && !skip[info.TargetID] {
				fctx, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(info.TargetID), chromedp.WithListener(ev.listen))
				t.Cleanup(cancel)
				return fctx, info.TargetID
			}
		}
	}
	t.Fatal("no srcdoc frame target appeared")
	return nil, ""
}

// The frame's view of itself: the outcomes, and what must not be there.
type frameFacts struct {
	Outcomes   []string `json:"outcomes"`
	Scripts    int      `json:"scripts"`
	Handlers   []string `json:"handlers"`   // elements with an on* attribute
	JSURLs     []string `json:"jsURLs"`     // href/src/action with javascript:
	Origin     string   `json:"origin"`     // "null": an opaque origin
	ParentDOM  bool     `json:"parentDOM"`  // could it read the page's DOM?
	Text       string   `json:"text"`       // the body's text (textContent: what the frame holds, whether drawn or skipped off screen)
	ScriptText string   `json:"scriptText"` // for the hash check
}

const frameFactsJS = `(() => {
  const all = Array.from(document.querySelectorAll("*"));
  let parentDOM = false;
  try { parentDOM = !!window.parent.document.body; } catch (_) {}
  return {
    outcomes: Array.from(document.querySelectorAll("[data-outcome]"), e => e.getAttribute("data-outcome")),
    scripts: document.scripts.length,
    handlers: all.filter(e => Array.from(e.attributes).some(a => a.name.toLowerCase().startsWith("on"))).map(e => e.outerHTML.slice(0, 80)),
    jsURLs: all.filter(e => ["href", "src", "action", "formaction"].some(n => (e.getAttribute(n) || "").trim().toLowerCase().startsWith("javascript:"))).map(e => e.outerHTML.slice(0, 80)),
    origin: window.origin,
    parentDOM: parentDOM,
    text: document.body ? document.body.textContent : "",
    scriptText: document.scripts.length ? document.scripts[0].textContent : "",
  };
})()`

// TestToolPagePasteModeInBrowser: the paste form, filled with a report
// and sources full of markup (a script element, an attribute injection,
// javascript: links, a hostile source id), shows the report in its
// sandboxed frame: one [data-outcome] per quotation equal to the JSON
// outcomes, the markup as text, no dialog, no CSP violation, no error,
// in the page or in the frame; the frame in an opaque origin that cannot
// reach the page. A refused input shows the error as text. A control
// proves a violation in a late-attached frame would be seen.
func TestToolPagePasteModeInBrowser(t *testing.T) {
	t.Parallel()
	ts := start(t, Config{})
	ctx := browser(t)
	var pageEvents, frameEvents browserEvents
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Listen(ctx, pageEvents.listen); err != nil {
		t.Fatal(err)
	}
	args := hostileArgs()
	sources := args["sources"].([]quotesSource)
	err := chromedp.Do(ctx,
		chromedp.Navigate(ts.URL+"/tools/citation-batch-check"),
		chromedp.WaitVisible(chromedp.ID("paste-run")),
		chromedp.SetValue(chromedp.ID("paste-text"), args["text"].(string)),
		chromedp.SetValue(chromedp.CSS("#paste-sources .paste-source .paste-source-id"), sources[0].ID),
		chromedp.SetValue(chromedp.CSS("#paste-sources .paste-source .paste-source-text"), sources[0].Text),
		chromedp.Click(chromedp.ID("paste-add")),
		chromedp.SetValue(chromedp.CSS("#paste-sources .paste-source:nth-of-type(2) .paste-source-id"), sources[1].ID),
		chromedp.SetValue(chromedp.CSS("#paste-sources .paste-source:nth-of-type(2) .paste-source-text"), sources[1].Text),
		chromedp.Click(chromedp.ID("paste-run")),
		chromedp.WaitVisible(chromedp.CSS("#paste-status.checked")),
		chromedp.WaitVisible(chromedp.ID("paste-report")),
	)
	if err != nil {
		t.Fatal(err)
	}
	fctx, frameID := srcdocFrame(t, ctx, nil, &frameEvents)
	var facts frameFacts
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		facts, err = chromedp.Run(fctx, chromedp.Evaluate[frameFacts](frameFactsJS))
		if err != nil {
			t.Fatal(err)
		}
		if len(facts.Outcomes) > 0 || time.Now().After(deadline) {
			break
		}
	}

	a, _, e := checkQuotesArguments(t.Context(), mustJSON(args), false)
	if e != nil {
		t.Fatal(e)
	}
	var want []string
	for _, r := range a.Results {
		want = append(want, r.Outcome.String())
	}
	if !slices.Equal(facts.Outcomes, want) {
		t.Errorf("the frame's data-outcome %v, the JSON outcomes %v", facts.Outcomes, want)
	}
	if facts.Scripts != 1 || len(facts.Handlers) > 0 || len(facts.JSURLs) > 0 {
		t.Errorf("%d scripts (want the report's one), handlers %q, javascript: URLs %q", facts.Scripts, facts.Handlers, facts.JSURLs)
	}
	if facts.Origin != "null" || facts.ParentDOM {
		t.Errorf("the frame's origin %q, reads the page's DOM: %v", facts.Origin, facts.ParentDOM)
	}
	for _, s := range []string{"<script>alert(1)</script>", `" onmouseover="alert(2)`, "javascript:alert(3)"} {
		if !strings.Contains(facts.Text, s) {
			t.Errorf("the report's text lacks %q", s)
		}
	}
	if bad := pageEvents.matching(violationWords...); len(bad) > 0 {
		t.Errorf("the page: %q", bad)
	}
	if bad := frameEvents.matching(violationWords...); len(bad) > 0 {
		t.Errorf("the report's frame: %q", bad)
	}

	t.Run("a refused input shows the error as text", func(t *testing.T) {
		err := chromedp.Do(ctx,
			chromedp.SetValue(chromedp.ID("paste-text"), `{"answer": "<b>no citations</b>"}`),
			chromedp.Click(chromedp.ID("paste-run")),
			chromedp.WaitVisible(chromedp.CSS("#paste-status.error")),
		)
		if err != nil {
			t.Fatal(err)
		}
		status := text(t, ctx, "#paste-status")
		if !strings.Contains(status, "HTTP 400, invalid_input: ") || !strings.Contains(status, "(at /text)") {
			t.Errorf("status %q", status)
		}
		hidden, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("paste-report").hidden && !document.getElementById("paste-report").hasAttribute("srcdoc")`))
		if err != nil || !hidden {
			t.Errorf("the frame still shows the last report (%v)", err)
		}
		err = chromedp.Do(ctx,
			chromedp.SetValue(chromedp.ID("paste-request"), `{"messages": [`),
			chromedp.Click(chromedp.ID("paste-run")),
			chromedp.WaitVisible(chromedp.CSS("#paste-status.error")),
		)
		if err != nil {
			t.Fatal(err)
		}
		if status := text(t, ctx, "#paste-status"); !strings.HasPrefix(status, "The Anthropic request is not JSON: ") {
			t.Errorf("status %q", status)
		}
	})

	t.Run("control: a violation in a late-attached frame is seen", func(t *testing.T) {
		// A frame of the page whose inline script the page's policy
		// refuses, attached to only after it loaded, as the report's was.
		var control browserEvents
		_, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		  const f = document.createElement("iframe");
		  f.sandbox = "allow-scripts";
		  f.srcdoc = "<p>control</p><script>document.title = 'ran'</script>";
		  document.body.append(f);
		  return true; })()`))
		if err != nil {
			t.Fatal(err)
		}
		skip := map[target.ID]bool{frameID: true}
		cctx, _ := srcdocFrame(t, ctx, skip, &control)
		for deadline := time.Now().Add(5 * time.Second); len(control.matching("Content Security Policy")) == 0; time.Sleep(50 * time.Millisecond) {
			if _, err := chromedp.Run(cctx, chromedp.Evaluate[bool]("true")); err != nil {
				t.Fatal(err)
			}
			if time.Now().After(deadline) {
				t.Fatalf("the control's violation was not seen: %q", control.all())
			}
		}
	})
}

// TestToolPagePasteScreenshot writes docs/img/tool-page-paste.png: the
// paste form with the page's example checked, for the guide. Run with
// -screenshot (go test ./server -run PasteScreenshot -screenshot).
func TestToolPagePasteScreenshot(t *testing.T) {
	if !*writeScreenshot {
		t.Skip("writes docs/img/tool-page-paste.png with -screenshot")
	}
	ts := start(t, Config{})
	ctx := browser(t)
	err := chromedp.Do(ctx,
		// The whole shot within the viewport: Chromium paints an
		// out-of-process frame only where it is on screen.
		chromedp.EmulateViewport(1000, 1700),
		chromedp.Navigate(ts.URL+"/tools/citation-batch-check"),
		chromedp.WaitVisible(chromedp.ID("paste-run")),
	)
	if err != nil {
		t.Fatal(err)
	}
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("paste-report").style.height = "760px";
		window.scrollTo(0, document.getElementById("paste").getBoundingClientRect().top + window.scrollY); true`))
	if err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("paste-run")),
		chromedp.WaitVisible(chromedp.CSS("#paste-status.checked")),
	)
	if err != nil {
		t.Fatal(err)
	}
	fctx, _ := srcdocFrame(t, ctx, nil, &browserEvents{})
	// The items skip layout until they are on screen
	// (content-visibility: auto): wait for frames painted with them.
	err = chromedp.Do(fctx,
		chromedp.WaitVisible(chromedp.CSS("[data-outcome]")),
		chromedp.Sleep(500*time.Millisecond),
	)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(fctx, chromedp.Evaluate[bool](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	// The viewport as painted (a capture beyond the viewport resizes it,
	// and the frame's items are then not painted again in time), cut to
	// the form and the report.
	type rect struct{ Top, Bottom, Width float64 }
	r, err := chromedp.Run(ctx, chromedp.Evaluate[rect](`(() => {
	  const a = document.getElementById("paste").getBoundingClientRect(), b = document.getElementById("paste-report").getBoundingClientRect();
	  return {top: a.top, bottom: b.bottom, width: document.documentElement.clientWidth}; })()`))
	if err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	cut := img.(interface {
		SubImage(image.Rectangle) image.Image
	}).SubImage(image.Rect(0, int(r.Top), int(r.Width), int(r.Bottom)+1))
	var buf bytes.Buffer
	if err := png.Encode(&buf, cut); err != nil {
		t.Fatal(err)
	}
	if buf.Len() > 300<<10 {
		t.Fatalf("the screenshot is %d bytes, over 300 KiB", buf.Len())
	}
	if err := os.WriteFile("../docs/img/tool-page-paste.png", buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
