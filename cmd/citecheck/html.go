package main

import "github.com/citecheck/citecheck/htmltext"

// htmlBodyText is document.body.textContent of an HTML source.
func htmlBodyText(src []byte) (string, error) { return htmltext.BodyText(src) }
