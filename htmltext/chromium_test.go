package htmltext

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/citecheck/citecheck/internal/chromium"
)

// realPages are HTML pages as published, found on any machine that builds
// this module: the Go specification, memory model and assembler guide from
// the Go distribution, and the Go 1 release notes kept by
// golang.org/x/net/html as its own test page; and the page annotated in
// cmd/citecheck's tests.
func realPages(t *testing.T) map[string][]byte {
	pages := map[string][]byte{}
	add := func(dir string, names ...string) {
		for _, n := range names {
			b, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				t.Fatalf("reading a real page: %v", err)
			}
			pages[n] = b
		}
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	add(filepath.Join(strings.TrimSpace(string(goroot)), "doc"), "go_spec.html", "go_mem.html", "asm.html")
	xnet, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "golang.org/x/net").Output()
	if err != nil {
		t.Fatalf("go list golang.org/x/net: %v", err)
	}
	add(filepath.Join(strings.TrimSpace(string(xnet)), "html", "testdata"), "go1.html")
	// The annotated page of the annotations command's tests, whose
	// annotations count positions over this text.
	add(filepath.Join("..", "cmd", "citecheck", "testdata", "annotations"), "estuary.html")
	return pages
}

// TestBodyTextMatchesChromium loads every rule's document and the real
// pages in headless Chromium and compares document.body.textContent with
// BodyText, byte for byte. Pages are served as UTF-8 with scripts blocked
// by CSP: the parser still runs with scripting on (as BodyText does), but
// no script can change the tree before it is read.
func TestBodyTextMatchesChromium(t *testing.T) {
	ctx := chromium.Browser(t, 2*time.Minute)
	pages := realPages(t)
	for _, r := range rules {
		pages[r.name] = []byte(r.html)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		page, ok := pages[req.URL.Query().Get("p")]
		if !ok {
			http.NotFound(w, req)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "script-src 'none'; img-src 'none'; style-src 'none'; font-src 'none'")
		w.Write(page)
	}))
	defer srv.Close()

	for name, page := range pages {
		err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/?p="+url.QueryEscape(name)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.textContent : ""`))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, err := BodyText(page)
		if err != nil {
			t.Fatalf("%s: BodyText: %v", name, err)
		}
		if got != want {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s: Chromium and BodyText part at byte %d of %d/%d:\nchromium %q\nbodytext %q",
				name, i, len(got), len(want), excerpt(got, i), excerpt(want, i))
		}
	}
}

func excerpt(s string, i int) string { return s[max(0, i-40):min(len(s), i+40)] }
