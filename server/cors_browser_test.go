package server

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/citecheck/citecheck"
)

// fetched is what a page's fetch() saw: the answer, or the browser's
// refusal (error).
type fetched struct {
	Status     int    `json:"status"`
	Body       string `json:"body"`
	RetryAfter string `json:"retryAfter"`
	Error      string `json:"error"`
}

// pageFetch runs fetch(url, POST JSON body) in the page ctx shows, with
// the extra request headers, and reports what the page could read.
func pageFetch(t *testing.T, ctx context.Context, url string, body []byte, headers map[string]string) fetched {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json"}
	for k, v := range headers {
		h[k] = v
	}
	hj, _ := json.Marshal(h)
	js := `fetch(` + strconv.Quote(url) + `, {method: "POST", headers: ` + string(hj) + `, body: ` + strconv.Quote(string(body)) + `})
		.then(r => r.text().then(b => ({status: r.status, body: b, retryAfter: r.headers.get("Retry-After") || ""})))
		.catch(e => ({error: String(e)}))`
	f, err := chromedp.Run(ctx, chromedp.Evaluate[fetched](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("fetch: %v", err)
	}
	return f
}

// TestCORSInBrowser calls the service from pages on two other origins in
// headless Chromium: the browser itself must give the allowed page the
// answer (execute and /mcp, Retry-After readable on a 503) and refuse the
// other page.
func TestCORSInBrowser(t *testing.T) {
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(`<!doctype html><title>another origin</title><p>a page that calls citecheck`))
	})
	allowedPage := httptest.NewServer(page)
	defer allowedPage.Close()
	otherPage := httptest.NewServer(page)
	defer otherPage.Close()
	api := start(t, Config{AllowedOrigins: []string{allowedPage.URL}, MaxInFlight: 1, QueueWait: 50 * time.Millisecond})
	if api.URL == allowedPage.URL || api.URL == otherPage.URL {
		t.Fatal("the pages must be on other origins than the service")
	}
	ctx := browser(t)
	example := exampleInput(t)
	want, _, _ := inProcess(example)

	if err := chromedp.Do(ctx, chromedp.Navigate(allowedPage.URL)); err != nil {
		t.Fatal(err)
	}
	t.Run("allowed origin gets the answer", func(t *testing.T) {
		f := pageFetch(t, ctx, api.URL+executePath, example, nil)
		if f.Error != "" || f.Status != 200 || f.Body != string(want) {
			t.Fatalf("got %+v\nwant 200 %s", f, want)
		}
	})
	t.Run("allowed origin reads Retry-After on 503", func(t *testing.T) {
		entered, release := holdSlots(api.Server)
		defer release()
		held := make(chan struct{})
		go func() { post(t, api.URL+executePath, example); close(held) }()
		<-entered
		f := pageFetch(t, ctx, api.URL+executePath, example, nil)
		release()
		<-held // (the hook stays, open: later requests pass straight through it)
		if f.Status != http.StatusServiceUnavailable || f.RetryAfter == "" {
			t.Fatalf("got %+v, want 503 with Retry-After readable", f)
		}
	})
	t.Run("allowed origin calls MCP", func(t *testing.T) {
		args, _ := json.Marshal(map[string]any{"id": citecheck.ToolID, "version": citecheck.ToolVersion, "input": json.RawMessage(example)})
		call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"execute","arguments":` + string(args) + `}}`
		f := pageFetch(t, ctx, api.URL+pathMCP, []byte(call), map[string]string{
			"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2025-06-18"})
		if f.Error != "" || f.Status != 200 {
			t.Fatalf("got %+v", f)
		}
		var rpc struct {
			Result struct {
				StructuredContent json.RawMessage `json:"structuredContent"`
			} `json:"result"`
		}
		if err := json.Unmarshal([]byte(f.Body), &rpc); err != nil || !sameJSON(rpc.Result.StructuredContent, want) {
			t.Fatalf("MCP answer %s (%v), want structured content %s", f.Body, err, want)
		}
	})

	if err := chromedp.Do(ctx, chromedp.Navigate(otherPage.URL)); err != nil {
		t.Fatal(err)
	}
	t.Run("other origin is refused by the browser", func(t *testing.T) {
		for _, path := range []string{executePath, pathMCP} {
			f := pageFetch(t, ctx, api.URL+path, example, nil)
			if f.Error == "" {
				t.Errorf("%s: the page read %d %.100s; the browser should have refused it", path, f.Status, f.Body)
			}
		}
	})
}
