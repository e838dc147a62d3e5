package quotes

import (
	"context"

	"github.com/citecheck/citecheck"
	"strings"
	"testing"
)

// manyShortQuotations is issue 34's report: about 1 MiB of 31,700 short
// unmarked quotations, each long enough to be checked.
func manyShortQuotations() []byte {
	var b strings.Builder
	for b.Len() < 1<<20-64 {
		b.WriteString("“the of and to in a is that” ")
	}
	return []byte(b.String())
}

// BenchmarkReadManyQuotations reads (Detect, then Read) issue 34's 1 MiB
// report of 31,700 quotations: the work a check does before its first
// quotation is checked.
func BenchmarkReadManyQuotations(b *testing.B) {
	in := manyShortQuotations()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		sh, err := Detect(in)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Read(in, sh); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadManyStructured(b *testing.B) {
	var s strings.Builder
	s.WriteString(`{"citations":[`)
	for s.Len() < 1<<20-64 {
		s.WriteString(`{"quote":"the of and to in a is that"},`)
	}
	s.WriteString(`{"quote":"x"}]}`)
	in := []byte(s.String())
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		sh, err := Detect(in)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Read(in, sh); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckReadsManyQuotations is what Check does of the same
// before its first check, with no bound on the count: Detect, then the
// reading that looks at its context.
func BenchmarkCheckReadsManyQuotations(b *testing.B) {
	in := manyShortQuotations()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		rd := &reading{ctx: context.Background(), max: citecheck.NoLimit}
		if _, err := rd.read(in); err != nil {
			b.Fatal(err)
		}
	}
}
