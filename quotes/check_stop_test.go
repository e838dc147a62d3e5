package quotes

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
)

// endsAt is a context that ends once end reports true: an end defined by
// the work done, not by time.
type endsAt struct {
	context.Context
	end func() bool
}

func (c *endsAt) Err() error {
	if c.end() {
		return context.Canceled
	}
	return nil
}

// A check reads a report looking at its context at least every
// pollSteps steps (a byte is at least one), so that a check whose caller
// has gone reads at most 64 KiB more: counted in quotations read after
// the context ends, for ends at the start, inside and near the end of
// issue 34's 1 MiB of 31,700 quotations (each of at least 20 bytes).
func TestReadingStopsWithinAPollOfItsContext(t *testing.T) {
	t.Parallel()
	in := manyShortQuotations()
	total := len(Extract(in))
	for _, at := range []int{0, 1, 1000, total / 2, total - 10} {
		rd := &reading{max: citecheck.NoLimit}
		rd.ctx = &endsAt{Context: context.Background(), end: func() bool { return len(rd.qs) >= at }}
		_, err := rd.read(in)
		var ce *citecheck.Error
		if !errorsAs(err, &ce) || ce.Code != citecheck.CodeOverloaded {
			t.Fatalf("ended at %d: error %v, want overloaded", at, err)
		}
		if after := len(rd.qs) - at; after > pollSteps/MinUnmarkedCodePoints+1 {
			t.Errorf("ended at quotation %d of %d: %d more read", at, total, after)
		}
	}
}

// A check whose context has ended reads nothing: it allocates no more
// than a few KiB, where reading issue 34's 1 MiB report allocates 16 MB.
func TestStoppedCheckReadsNothing(t *testing.T) {
	// Not parallel: it counts the process's allocations.
	in := manyShortQuotations()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before := totalAlloc()
	_, err := Check(ctx, in, tinySources(), Options{})
	if alloc := totalAlloc() - before; alloc > 16<<10 {
		t.Errorf("%d bytes allocated after the end", alloc)
	}
	var ce *citecheck.Error
	if !errorsAs(err, &ce) || ce.Code != citecheck.CodeOverloaded {
		t.Fatalf("error %v, want overloaded", err)
	}
}

// More quotations than max_citations are refused as soon as the first
// over the bound is read (spec §5.13): actual is the bound plus one, and
// reading the rest of issue 34's 31,700 is not paid for, counted in
// quotations read and in bytes allocated (less than reading 1,000 of
// them takes).
func TestTooManyQuotationsAreRefusedAtTheFirstOver(t *testing.T) {
	// Not parallel: it counts the process's allocations.
	in := manyShortQuotations()
	rd := &reading{ctx: context.Background(), max: citecheck.MaxCitations}
	_, err := rd.read(in)
	var ce *citecheck.Error
	if !errorsAs(err, &ce) || ce.Code != citecheck.CodeLimitExceeded || ce.Limit != citecheck.LimitCitations ||
		ce.Max != citecheck.MaxCitations || ce.Actual != citecheck.MaxCitations+1 || len(rd.qs) != citecheck.MaxCitations {
		t.Fatalf("error %v, %d read", err, len(rd.qs))
	}
	if !strings.Contains(ce.Message, "more than 256 quotations") {
		t.Errorf("message %q", ce.Message)
	}
	before := totalAlloc()
	_, err = Check(context.Background(), in, tinySources(), Options{})
	alloc := totalAlloc() - before
	if !errorsAs(err, &ce) || ce.Code != citecheck.CodeLimitExceeded || ce.Actual != citecheck.MaxCitations+1 {
		t.Fatalf("Check: error %v", err)
	}
	before = totalAlloc()
	Extract(in[:1000*len("“the of and to in a is that” ")])
	if thousand := totalAlloc() - before; alloc > thousand {
		t.Errorf("refusing allocated %d bytes, reading 1,000 quotations %d", alloc, thousand)
	}
}

// The reading a check does, looking at its context, reads a report's
// quotations exactly as Read does: the extraction seeds, with a byte
// order mark and without, and issue 34's 1 MiB report.
func TestCheckReadsAsRead(t *testing.T) {
	t.Parallel()
	inputs := [][]byte{manyShortQuotations()}
	for _, s := range extractSeeds {
		inputs = append(inputs, []byte(s), []byte("\uFEFF"+s))
	}
	for _, in := range inputs {
		if _, err := Detect(in); err != nil {
			continue // a check refuses it before reading: not UTF-8
		}
		want, err := Read(in, Report)
		if err != nil {
			t.Fatal(err)
		}
		rd := &reading{ctx: context.Background(), max: citecheck.NoLimit}
		if _, err := rd.read(in); err != nil || !slices.Equal(rd.qs, want) {
			t.Fatalf("%.80q: %v, %d quotations, want %d", in, err, len(rd.qs), len(want))
		}
	}
}

// manyJSONCitations are about size bytes of short citations (itemBytes
// each, at least), as a structured answer and as an Anthropic response.
func manyJSONCitations(size int) (structured, anthropic []byte, itemBytes int) {
	var s, a strings.Builder
	s.WriteString(`{"citations":[`)
	a.WriteString(`{"type":"message","content":[{"type":"text","text":"x","citations":[`)
	for i := 0; s.Len() < size; i++ {
		if i > 0 {
			s.WriteByte(',')
			a.WriteByte(',')
		}
		s.WriteString(`{"quote":"the of and to in a is that"}`)
		a.WriteString(`{"type":"char_location","cited_text":"the of and to in a is that","document_index":0,"start_char_index":0,"end_char_index":1}`)
	}
	s.WriteString("]}")
	a.WriteString("]}]}")
	return []byte(s.String()), []byte(a.String()), len(`{"quote":"the of and to in a is that"}`)
}

// A check reads a JSON input as a report, looking at its context at
// least every pollSteps bytes (and the citation being read): a check
// whose caller has gone reads at most 64 KiB more of it, counted in
// citations read after the context ends. Before, a JSON input was read
// whole, the context looked at only before and after.
func TestReadingAJSONInputStopsWithinAPollOfItsContext(t *testing.T) {
	t.Parallel()
	st, an, item := manyJSONCitations(1 << 20)
	for name, in := range map[string][]byte{"structured": st, "anthropic": an} {
		total, _ := Read(in, Structured)
		if name == "anthropic" {
			total, _ = Read(in, Anthropic)
		}
		for _, at := range []int{0, 1, 1000, len(total) / 2, len(total) - 10} {
			rd := &reading{max: citecheck.NoLimit}
			rd.ctx = &endsAt{Context: context.Background(), end: func() bool { return len(rd.qs) >= at }}
			_, err := rd.read(in)
			var ce *citecheck.Error
			if !errorsAs(err, &ce) || ce.Code != citecheck.CodeOverloaded {
				t.Fatalf("%s ended at %d: error %v, want overloaded", name, at, err)
			}
			if after := len(rd.qs) - at; after > pollSteps/item+1 {
				t.Errorf("%s ended at citation %d of %d: %d more read", name, at, len(total), after)
			}
		}
	}
}

// A JSON input of more citations than max_citations is refused at the
// first over the bound, as a report is: actual is the bound plus one,
// and the rest are not read, counted in citations and in bytes allocated
// (less than reading 1,000 of them takes).
func TestTooManyJSONCitationsAreRefusedAtTheFirstOver(t *testing.T) {
	// Not parallel: it counts the process's allocations.
	st, an, _ := manyJSONCitations(1 << 20)
	st1k, an1k, _ := manyJSONCitations(1000 * len(`{"quote":"the of and to in a is that"},`))
	for name, in := range map[string][]byte{"structured": st, "anthropic": an} {
		rd := &reading{ctx: context.Background(), max: citecheck.MaxCitations}
		_, err := rd.read(in)
		var ce *citecheck.Error
		if !errorsAs(err, &ce) || ce.Code != citecheck.CodeLimitExceeded || ce.Actual != citecheck.MaxCitations+1 ||
			len(rd.qs) != citecheck.MaxCitations || !strings.Contains(ce.Message, "more than 256 quotations") {
			t.Fatalf("%s: error %v, %d read", name, err, len(rd.qs))
		}
		before := totalAlloc()
		_, err = Check(context.Background(), in, tinySources(), Options{})
		alloc := totalAlloc() - before
		if !errorsAs(err, &ce) || ce.Actual != citecheck.MaxCitations+1 {
			t.Fatalf("%s: Check: error %v", name, err)
		}
		sh := Structured
		if name == "anthropic" {
			sh = Anthropic
		}
		thousand := st1k
		if sh == Anthropic {
			thousand = an1k
		}
		before = totalAlloc()
		if qs, err := Read(thousand, sh); err != nil || len(qs) < 1000 {
			t.Fatalf("%s: %d read, %v", name, len(qs), err)
		}
		if thousand := totalAlloc() - before; alloc > thousand {
			t.Errorf("%s: refusing allocated %d bytes, reading about 1,000 citations %d", name, alloc, thousand)
		}
	}
}
