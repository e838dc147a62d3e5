// Package htmltext gives the text of an HTML document that annotation
// clients count positions over: what a browser's document.body.textContent
// returns.
package htmltext

import (
	"bytes"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// BodyText returns document.body.textContent of the HTML document src,
// which must be UTF-8 (a byte order mark is dropped, as a browser does).
// The document is parsed as the HTML standard says, with scripting on, as
// in the browser an annotation client runs in (so <noscript> holds text),
// and the data of every text node under the body element (or frameset) is
// joined in tree order. Comments are not text; a <template>'s content is
// not in the tree. Linear in the document.
func BodyText(src []byte) (string, error) {
	src = bytes.TrimPrefix(src, []byte("\uFEFF"))
	doc, err := html.ParseWithOptions(bytes.NewReader(src), html.ParseOptionEnableScripting(true))
	if err != nil {
		return "", err
	}
	body := find(doc)
	if body == nil {
		return "", nil
	}
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.TextNode:
				b.WriteString(c.Data)
			case c.Type == html.ElementNode && c.DataAtom == atom.Template && c.Namespace == "":
				// DOM: a template's children live in its content fragment.
			case c.Type == html.ElementNode:
				walk(c)
			}
		}
	}
	walk(body)
	return b.String(), nil
}

// find returns document.body: the html element's first body or frameset
// child.
func find(doc *html.Node) *html.Node {
	for h := doc.FirstChild; h != nil; h = h.NextSibling {
		if h.Type != html.ElementNode || h.DataAtom != atom.Html {
			continue
		}
		for c := h.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.DataAtom == atom.Body || c.DataAtom == atom.Frameset) {
				return c
			}
		}
	}
	return nil
}
