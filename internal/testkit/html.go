package testkit

import (
	"regexp"
	"strings"

	"golang.org/x/net/html"
)

// PageItem is an element of an HTML report that carries an outcome.
type PageItem struct{ ID, Outcome string }

// PageItems are the elements of an HTML page that have a data-outcome
// attribute, in document order, as an HTML5 parser reads the page: how
// the tests read an HTML report's items (docs/report-html.md).
func PageItems(page string) ([]PageItem, error) {
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		return nil, err
	}
	var out []PageItem
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		var it PageItem
		has := false
		for _, a := range n.Attr {
			switch a.Key {
			case "data-outcome":
				it.Outcome, has = a.Val, true
			case "id":
				it.ID = a.Val
			}
		}
		if has {
			out = append(out, it)
		}
	}
	return out, nil
}

// DataOutcomes is the outcome of each of PageItems(page).
func DataOutcomes(page string) ([]string, error) {
	items, err := PageItems(page)
	var out []string
	for _, it := range items {
		out = append(out, it.Outcome)
	}
	return out, err
}

// pageOwnParts matches an HTML report's own parts, the same on every
// page: its style sheet, its script and the policy naming the script's
// hash.
var pageOwnParts = regexp.MustCompile(`(?s)(<style>).*?(</style>)|(<script>).*?(</script>)|(script-src )'sha256-[^']*'()`)

// WithoutPageOwnParts is page with its style sheet, script and script
// hash each replaced by "…": what a golden file of a page holds, so that
// a change of style rewrites one golden page (report's own), not every
// one.
func WithoutPageOwnParts(page []byte) []byte {
	return pageOwnParts.ReplaceAll(page, []byte("${1}${3}${5}…${2}${4}${6}"))
}
