package testkit

import (
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
