package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
)

func TestVersionTextNamesModuleRevisionToolAndGo(t *testing.T) {
	for _, c := range []struct {
		name string
		bi   *debug.BuildInfo
		want []string
	}{
		{"tagged clean build", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.3"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-12-01T08:00:00Z"}, {Key: "vcs.modified", Value: "false"}}},
			[]string{"citecheck v1.2.3\n", "revision: 0123abcd (2026-12-01T08:00:00Z)\n", "go:       go1.26.0 "}},
		{"modified tree", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.modified", Value: "true"}}},
			[]string{"citecheck (devel)\n", "revision: 0123abcd (modified)\n"}},
		{"no VCS stamp", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, []string{"revision: unknown\n"}},
		{"no build info", nil, []string{"citecheck unknown\n", "revision: unknown\n"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := versionText(c.bi)
			for _, w := range append(c.want, "tool:     "+citecheck.ToolID+" "+citecheck.ToolVersion+"\n") {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
		})
	}
}

// TestVersionOfTheBuiltBinary: `version` and `--version` print the same
// text, exit 0, and name the revision the source is at (when the source
// is a git checkout with its own .git directory: linked worktrees are not
// stamped by the go command).
func TestVersionOfTheBuiltBinary(t *testing.T) {
	bin := builtBinary(t)
	var outs []string
	for _, arg := range []string{"version", "--version"} {
		out, err := exec.Command(bin, arg).Output()
		if err != nil {
			t.Fatalf("%s: %v", arg, err)
		}
		outs = append(outs, string(out))
	}
	if outs[0] != outs[1] {
		t.Errorf("version and --version differ:\n%s\n%s", outs[0], outs[1])
	}
	if runCLI(t, nil, "version", "extra").code != exitError {
		t.Error("version with an argument did not exit 2")
	}
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not a git checkout (%v): the revision is not checked", err)
	}
	if st, err := os.Stat(filepath.Join(strings.TrimSpace(string(root)), ".git")); err != nil || !st.IsDir() {
		t.Skip("a linked git worktree: the go command does not stamp its revision")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	if want := "revision: " + strings.TrimSpace(string(head)); !strings.Contains(outs[0], want) {
		t.Errorf("%q lacks %q", outs[0], want)
	}
}
