//go:build !citecheck_server

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain builds the full citecheck (the citecheck_server tag) once, so
// that the tests of serve, mcp and run --base-url run through the light
// build's hand-over exactly as users' commands do (delegate.go); a
// $CITECHECK_SERVER already set is used as it is.
func TestMain(m *testing.M) {
	if os.Getenv("CITECHECK_SERVER") != "" {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "citecheck-server-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	bin := filepath.Join(dir, serverBinary)
	if out, err := exec.Command("go", "build", "-tags", "citecheck_server", "-o", bin, ".").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building the full citecheck: %v\n%s", err, out)
		os.Exit(2)
	}
	os.Setenv("CITECHECK_SERVER", bin)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestLightBuildLinksNoServiceDependency(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, heavy := range []string{"net/http", "github.com/prometheus/client_golang/prometheus", "github.com/modelcontextprotocol/go-sdk/mcp", "html/template", "golang.org/x/net/html"} {
		for _, line := range strings.Split(string(out), "\n") {
			if line == heavy {
				t.Errorf("the light build links %s: every run pays its start-up", heavy)
			}
		}
	}
}
