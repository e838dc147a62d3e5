package main

import (
	"bufio"
	"go/build/constraint"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// platformTags are the build tags a file may carry: the systems and
// architectures the go command sets by itself, so that every file is in
// the build of some machine, and go vet ./... and go test ./... on that
// machine see it. Anything else (a feature tag, "ignore") would hide the
// file from them (spec §5.11: one binary, no build tags).
var platformTags = map[string]bool{
	"unix": true, "linux": true, "darwin": true, "windows": true, "freebsd": true, "netbsd": true, "openbsd": true,
	"dragonfly": true, "solaris": true, "illumos": true, "aix": true, "android": true, "ios": true, "plan9": true,
	"js": true, "wasip1": true,
	"amd64": true, "arm64": true, "386": true, "arm": true, "riscv64": true, "ppc64le": true, "s390x": true, "wasm": true,
}

func TestNoBuildTagButThePlatforms(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != root) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "package ") {
				break
			}
			if !constraint.IsGoBuild(line) {
				continue
			}
			expr, err := constraint.Parse(line)
			if err != nil {
				t.Errorf("%s: %v", path, err)
				continue
			}
			expr.Eval(func(tag string) bool {
				if !platformTags[tag] {
					rel, _ := filepath.Rel(root, path)
					t.Errorf("%s: build tag %q: go vet ./... and go test ./... do not see this file", rel, tag)
				}
				return true
			})
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestBuildTagCheckFindsAFeatureTag: the check above is live.
func TestBuildTagCheckFindsAFeatureTag(t *testing.T) {
	t.Parallel()
	for line, want := range map[string]bool{"//go:build load": false, "//go:build ignore": false, "//go:build !linux": true, "//go:build unix && !citecheck_server": false} {
		expr, err := constraint.Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		ok := true
		expr.Eval(func(tag string) bool { ok = ok && platformTags[tag]; return true })
		if ok != want {
			t.Errorf("%s: allowed %v, want %v", line, ok, want)
		}
	}
}
