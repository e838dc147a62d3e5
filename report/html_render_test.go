package report

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"
	"testing"
)

// TestHTMLScriptSource: the CSP source the page and its embedders allow is
// the hash of the page's one script.
func TestHTMLScriptSource(t *testing.T) {
	sum := sha256.Sum256([]byte(htmlJS))
	if want := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; HTMLScriptSource != want {
		t.Fatalf("HTMLScriptSource = %s, want %s (update the constant after editing html.js)", HTMLScriptSource, want)
	}
	page := string(AppendHTML(nil, &Page{Title: "t"}))
	if !strings.Contains(page, "script-src "+HTMLScriptSource+";") || !strings.Contains(page, "<script>"+htmlJS+"</script>") {
		t.Fatal("the page does not carry its script under its own hash")
	}
}
