package report

import (
	"strings"

	"github.com/citecheck/citecheck"
)

// AppendExplanation appends the report of every failing citation of ex, as
// [AppendAll] does, each block closed by its findings in words and, when
// there is one, the fix as the JSON citation to paste in its place.
func AppendExplanation(dst []byte, req *citecheck.Request, ex *citecheck.Explanation, o Options) []byte {
	r := newRenderer(dst, req, o)
	r.explain = ex
	return r.all(ex.All)
}

// unitsWords says what counting in units means, for a sentence.
var unitsWords = map[citecheck.Units]string{
	citecheck.UnitsUTF16: "UTF-16 code units (as JavaScript counts)",
	citecheck.UnitsUTF8:  "UTF-8 bytes",
}

// foldWords says what each fold ignores, for a sentence, in the folds' order.
var foldWords = []struct {
	fold  citecheck.Folds
	words string
}{
	{citecheck.FoldWhitespace, "white space"},
	{citecheck.FoldNFC, "Unicode composition (NFC)"},
	{citecheck.FoldNFKC, "compatibility forms (NFKC)"},
	{citecheck.FoldTypography, "typography (quotes, dashes, ellipses, ligatures, soft hyphens)"},
	{citecheck.FoldCase, "case"},
}

// ignoredWords says what the folds f ignore, for a sentence.
func ignoredWords(f citecheck.Folds) string {
	var ignored []string
	for _, fw := range foldWords {
		if f&fw.fold != 0 {
			ignored = append(ignored, fw.words)
		}
	}
	return strings.Join(ignored, " and ")
}

// explained draws citation k's findings and fix, when the report explains.
func (r *renderer) explained(k int) {
	if r.explain == nil {
		return
	}
	ce := &r.explain.Citations[k]
	cit := &r.req.Citations[k]
	what := "quote"
	if cit.Selector.Type == citecheck.QuoteSelector {
		what = "anchor"
	}
	reason := r.explain.All.Citations[k].Reason
	if len(ce.Findings) == 0 && reason != citecheck.ReasonUnknownSource && reason != citecheck.ReasonVersionMismatch {
		r.line("finding", "none: the %s holds under no reading citecheck knows", what)
	}
	for i := range ce.Findings {
		f := &ce.Findings[i]
		at := span(f.Start, f.End)
		switch f.Kind {
		case citecheck.FindingElsewhere:
			r.line("finding", "elsewhere: the %s occurs exactly at %s (%s in all)", what, at, times(f.Occurrences))
		case citecheck.FindingOffsetUnits:
			r.line("finding", "offset_units: the citation's numbers are right counted in %s; in code points they are %s", unitsWords[f.Units], at)
		case citecheck.FindingNormalized:
			r.line("finding", "normalized: the %s holds at %s ignoring %s; the source has %s", what, at, ignoredWords(f.Folds), quote(f.SourceText, quotedCols))
		case citecheck.FindingElided:
			parts := make([]string, len(f.Parts))
			for i, p := range f.Parts {
				parts[i] = span(p.Start, p.End)
			}
			ignoring := ""
			if f.Folds != 0 {
				ignoring = " ignoring " + ignoredWords(f.Folds)
			}
			r.line("finding", "elided: the %d passages around the ellipses occur in order at %s%s; the source there has %s", len(f.Parts), strings.Join(parts, ", "), ignoring, quote(f.SourceText, quotedCols))
		case citecheck.FindingDisambiguate:
			if f.Prefix != nil {
				r.line("finding", "disambiguate: prefix %s leaves only the match at %s", quote(*f.Prefix, quotedCols), at)
			} else {
				r.line("finding", "disambiguate: suffix %s leaves only the match at %s", quote(*f.Suffix, quotedCols), at)
			}
		case citecheck.FindingPartial:
			if f.NotSearched != nil {
				kinds := make([]string, len(f.NotSearched))
				for i, k := range f.NotSearched {
					kinds[i] = k.String()
				}
				r.line("finding", "partial: the diagnosis's work budget ran out; not searched: %s", strings.Join(kinds, ", "))
				break
			}
			r.line("finding", "partial: only the first %d code points of the %s occur, at %s", f.Length, what, at)
		}
	}
	if ce.Fix != nil && !r.quoted && !r.words {
		r.line("fix", "%s", ce.Fix.AppendJSON(nil))
	}
}
