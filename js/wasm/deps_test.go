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

// TestWasmLinksNoFmtPrinting: no function the module can reach prints
// with fmt. fmt's printer, with the reflection it walks values by, is
// about 85 KB of the module gzipped (docs/javascript.md, "Size and
// speed"), so the engine and the annotation reader build their messages
// with strconv. fmt is still imported (golang.org/x/text/unicode/norm
// imports it, and Echo implements fmt.Formatter), which costs only its
// package initialisation. The linker's dependency dump (-dumpdep) lists
// every symbol the module keeps, by the symbol that keeps it.
func TestWasmLinksNoFmtPrinting(t *testing.T) {
	if testing.Short() {
		t.Skip("links the module: a few seconds")
	}
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-trimpath", "-ldflags=-dumpdep", "-o", t.TempDir()+"/m.wasm", ".")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	kept := 0
	for l := range strings.Lines(string(out)) {
		from, to, ok := strings.Cut(strings.TrimSpace(l), " -> ")
		if !ok {
			continue
		}
		kept++
		if strings.HasPrefix(to, "fmt.") && !strings.HasPrefix(from, "fmt.") && printer(to) {
			t.Errorf("%s keeps %s", from, to)
		}
	}
	if kept < 1000 {
		t.Fatalf("the dump lists only %d dependencies", kept)
	}
}

// printer says whether a fmt symbol is one of its printing or scanning
// functions: not its init, a type descriptor, or a function's stack or
// argument map (which the linker shares between functions whose maps
// are alike, so that an engine function seems to keep one of fmt's).
func printer(sym string) bool {
	if i := strings.LastIndexByte(sym, '.'); strings.HasPrefix(sym[i:], ".stkobj") || strings.HasPrefix(sym[i:], ".arginfo") ||
		strings.HasPrefix(sym[i:], ".argliveinfo") || strings.HasPrefix(sym[i:], ".opendefer") {
		return false
	}
	name := strings.TrimPrefix(sym, "fmt.")
	return strings.HasPrefix(name, "Sprint") || strings.HasPrefix(name, "Fprint") || strings.HasPrefix(name, "Print") ||
		strings.HasPrefix(name, "Errorf") || strings.HasPrefix(name, "Append") || strings.HasPrefix(name, "(*pp)") || strings.HasPrefix(name, "Sscan")
}
