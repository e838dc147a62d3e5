package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestWasmLinksNeitherNetNorServer: the module is the engine and its
// adapter; net/http, the server and encoding/json would add to every
// page's download what it never runs (docs/javascript.md, "Size").
func TestWasmLinksNeitherNetNorServer(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", ".")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list found only %q", deps)
	}
	for _, d := range deps {
		if d == "net" || strings.HasPrefix(d, "net/") || d == "github.com/citecheck/citecheck/server" || d == "encoding/json" {
			t.Errorf("the wasm links %s", d)
		}
	}
}
