package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/citecheck/citecheck"
)

// stampedVersion is the release version the release build stamps in
// (build/citecheck.sh: -ldflags -X main.stampedVersion=$CITECHECK_VERSION);
// empty otherwise, and then the module version the go command stamped
// (the tag of `go install …@v1.2.0`, a pseudo-version, or (devel)) stands.
var stampedVersion string

// versionCommand is `citecheck version`.
func versionCommand() *command {
	return newCommand("version", "citecheck version",
		"Prints the version of this build (the release, the module version or (devel)), its VCS revision,\n"+
			"the tool it runs and the Go release it was built with.")
}

// cmdVersion is `citecheck version` (and --version): which build this
// is, from the build info the Go toolchain stamps into the binary, so a
// bug report or a fleet inventory names the exact source.
func cmdVersion(args []string, stdout, stderr io.Writer) int {
	if code, done := versionCommand().noArguments(args, stdout, stderr); done {
		return code
	}
	bi, _ := debug.ReadBuildInfo()
	if bi != nil && stampedVersion != "" {
		stamped := *bi
		stamped.Main.Version = stampedVersion
		bi = &stamped
	}
	io.WriteString(stdout, versionText(bi))
	return exitValid
}

// versionText describes a build: the module version (a tag, a
// pseudo-version, or "(devel)"), the VCS revision with its commit time and
// whether the tree had changes, the tool it runs, and the Go release. A
// build without build info (or without VCS stamping, -buildvcs=false)
// says "unknown" rather than guess.
func versionText(bi *debug.BuildInfo) string {
	version, goVersion := "unknown", runtime.Version()
	vcs := map[string]string{}
	if bi != nil {
		version = bi.Main.Version
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
		for _, s := range bi.Settings {
			vcs[s.Key] = s.Value
		}
	}
	if version == "" {
		version = "unknown"
	}
	revision := "unknown"
	if r := vcs["vcs.revision"]; r != "" {
		var notes []string
		if t := vcs["vcs.time"]; t != "" {
			notes = append(notes, t)
		}
		if vcs["vcs.modified"] == "true" {
			notes = append(notes, "modified")
		}
		revision = r
		if len(notes) > 0 {
			revision += " (" + strings.Join(notes, ", ") + ")"
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "citecheck %s\n", version)
	fmt.Fprintf(&b, "revision: %s\n", revision)
	fmt.Fprintf(&b, "tool:     %s %s\n", citecheck.ToolID, citecheck.ToolVersion)
	fmt.Fprintf(&b, "go:       %s %s/%s\n", goVersion, runtime.GOOS, runtime.GOARCH)
	return b.String()
}
