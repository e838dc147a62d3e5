// Package chromium starts the headless Chromium that browser tests drive
// (Debian's /usr/bin/chromium: apt-get install -y chromium; .ci/run
// installs it). Only tests import it.
package chromium

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Path is Debian's headless-capable Chromium.
const Path = "/usr/bin/chromium"

// Browser starts a headless Chromium for t, quiet on the network and with
// a profile of its own, and returns a chromedp context on one tab, which
// ends after timeout or with the test. It skips t when Chromium is absent,
// so that a machine without it still passes (CI has it), and under -short.
func Browser(t testing.TB, timeout time.Duration) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a headless Chromium")
	}
	if _, err := os.Stat(Path); err != nil {
		t.Skipf("skipping the browser test: %s is absent (apt-get install -y chromium)", Path)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(Path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelBrowser := chromedp.NewContext(actx)
	ctx, cancel := context.WithTimeout(bctx, timeout)
	t.Cleanup(func() { cancel(); cancelBrowser(); cancelAlloc() })
	return ctx
}
