//go:build citecheck_server

package main

import (
	"context"
	"io"

	"github.com/citecheck/citecheck/htmltext"
)

// htmlHere: the full build reads HTML sources itself (html_light.go says
// why the light one does not).
const htmlHere = true

// htmlBodyText is document.body.textContent of an HTML source.
func htmlBodyText(src []byte) (string, error) { return htmltext.BodyText(src) }

// annotationsInFullBuild runs the command here: this is the full build
// (errHTMLInFullBuild, the only way here, is the light build's).
func annotationsInFullBuild(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return cmdAnnotations(ctx, args, stdin, stdout, stderr)
}
