// Package testkit is the one place where the tests of every package build
// their data: request bodies (Request, PositionCitation, QuoteCitation, and
// RawBody for malformed input), deterministic text (Corpus), citations
// picked out of a text so that they hold (PickSpan, PickAnchor), the
// public conformance cases (Conformance), and the small readers the I/O
// tests need.
//
// It imports nothing of citecheck, so the root package's own tests (package
// citecheck) can use it without an import cycle.
package testkit
