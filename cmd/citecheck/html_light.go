//go:build !citecheck_server

package main

import (
	"context"
	"io"
)

// htmlHere: the light build does not link golang.org/x/net/html, whose
// package initialisation (building its table of 2,231 character
// references) costs every process that links it about 0.35 ms and 30
// fresh pages, `run` included, which never reads HTML. `annotations` on
// HTML sources (a .html or .htm file, or --html) is handed, before any
// file is read, to the full build (delegate.go), which reads the same
// files and answers with the same streams and exit status.
const htmlHere = false

// htmlBodyText is never reached in this build (loadSources hands HTML
// sources over first); it refuses rather than read HTML as text.
func htmlBodyText([]byte) (string, error) { return "", errHTMLInFullBuild }

func annotationsInFullBuild(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runFull(ctx, append([]string{"annotations"}, args...), stdin, stdout, stderr)
}
