package annotation

import (
	"testing"

	"github.com/citecheck/citecheck"
)

// TestPartialFindingSaysWhatWasNotSearched: a partial finding cut by the
// diagnosis's work budget says so and names the kinds not searched; its
// leading part is given only when it was searched (length above zero).
func TestPartialFindingSaysWhatWasNotSearched(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    citecheck.Finding
		want string
	}{
		{"leading part found", citecheck.Finding{Kind: citecheck.FindingPartial, Start: 3, End: 9, Length: 6},
			"partial: its first 6 code points stand at 3-9"},
		{"nothing searched", citecheck.Finding{Kind: citecheck.FindingPartial, NotSearched: []citecheck.FindingKind{citecheck.FindingNormalized, citecheck.FindingPartial}},
			"partial: the diagnosis's work budget ran out; not searched: normalized, partial"},
		{"leading part searched, the rest cut", citecheck.Finding{Kind: citecheck.FindingPartial, Start: 0, End: 4, Length: 4, NotSearched: []citecheck.FindingKind{citecheck.FindingNormalized}},
			"partial: its first 4 code points stand at 0-4; the diagnosis's work budget ran out; not searched: normalized"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := findingWords(&tc.f); got != tc.want {
				t.Errorf("findingWords = %q, want %q", got, tc.want)
			}
		})
	}
}
