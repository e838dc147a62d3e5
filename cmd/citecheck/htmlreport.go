package main

import (
	"github.com/citecheck/citecheck/annotation"
	reportpkg "github.com/citecheck/citecheck/report"
)

// The HTML report of `annotations` and `run` (docs/report-html.md): the
// items are gathered in memory as the run goes, O(items) (each item its
// texts and passages, each passage at most 2·report.ExcerptContext code
// points of its source), and rendered once, at the end, by
// report.AppendHTML. It is for people's batches; for millions, JSON lines.

// annotationsPage is the page of `annotations --format html` for the
// input named name ("-" for standard input).
func annotationsPage(name string, items []reportpkg.Item) []byte {
	return reportpkg.AppendHTML(nil, &reportpkg.Page{
		Title:    "citecheck annotations: " + name,
		Kind:     "annotations",
		Items:    items,
		Outcomes: annotation.HTMLOutcomes(),
	})
}

// runPage is the page of `run --format html` for the input named name.
func runPage(name string, items []reportpkg.Item) []byte {
	return reportpkg.AppendHTML(nil, &reportpkg.Page{
		Title:    "citecheck run: " + name,
		Kind:     "run",
		Items:    items,
		Outcomes: reportpkg.RunOutcomes(),
	})
}
