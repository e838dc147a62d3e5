package citecheck

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// naiveCheck is what a Go user would write by hand for spec §2 with the
// standard library: a find-next loop around strings.Index for every
// occurrence (quadratic on periodic text), prefix and suffix checked at each
// occurrence, []rune conversions for code point positions. It is the
// baseline that BenchmarkCheckVsNaive measures Check against in one run.
func naiveCheck(req *Request) (Reason, int) {
	for k, c := range req.Citations {
		var text string
		found := false
		for _, s := range req.Sources {
			if s.SourceID == c.SourceID && s.Version == c.Version {
				text, found = s.Text, true
			}
		}
		if !found {
			return ReasonUnknownSource, k + 1 // (or version_mismatch; the workloads never get here)
		}
		sel := c.Selector
		if sel.Type == PositionSelector {
			runes := []rune(text)
			switch {
			case sel.Start > sel.End:
				return ReasonSpanReversed, k + 1
			case sel.End > len(runes):
				return ReasonSpanOutOfRange, k + 1
			case string(runes[sel.Start:sel.End]) != c.Quote:
				return ReasonQuoteMismatch, k + 1
			}
			continue
		}
		var oe, op, of []int
		for i := 0; i <= len(text); {
			j := strings.Index(text[i:], sel.Exact)
			if j < 0 {
				break
			}
			p := i + j
			oe = append(oe, p)
			if strings.HasSuffix(text[:p], sel.Prefix) {
				op = append(op, p)
				if strings.HasPrefix(text[p+len(sel.Exact):], sel.Suffix) {
					of = append(of, p)
				}
			}
			i = p + 1
		}
		switch {
		case len(oe) == 0:
			return ReasonExactNotFound, k + 1
		case len(op) == 0:
			return ReasonPrefixMismatch, k + 1
		case len(of) == 0:
			return ReasonSuffixMismatch, k + 1
		case len(of) > 1:
			return ReasonAmbiguousAnchor, k + 1
		case c.HasClaimedStart && utf8.RuneCountInString(text[:of[0]]) != c.ClaimedStart:
			return ReasonPositionMismatch, k + 1
		}
	}
	return ReasonNone, len(req.Citations)
}

// BenchmarkCheckVsNaive times Check and naiveCheck on each workload in the
// same run, so benchstat can show the ratio:
//
//	go test -run=^$ -bench=CheckVsNaive -count=6 . | benchstat -col /impl -
func BenchmarkCheckVsNaive(b *testing.B) {
	for _, w := range benchWorkloads() {
		req, err := Decode(w.body)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(w.name+"/impl=citecheck", func(b *testing.B) {
			b.SetBytes(int64(len(w.body)))
			b.ReportAllocs()
			for b.Loop() {
				if res := Check(req); !res.Valid {
					b.Fatalf("workload fails: %s", res.Reason)
				}
			}
		})
		b.Run(w.name+"/impl=naive-go", func(b *testing.B) {
			b.SetBytes(int64(len(w.body)))
			b.ReportAllocs()
			for b.Loop() {
				if reason, _ := naiveCheck(req); reason != ReasonNone {
					b.Fatalf("naive check disagrees: %s", reason)
				}
			}
		})
	}
}
