package citecheck

import (
	"strconv"
	"strings"
	"testing"

	"github.com/citecheck/citecheck/internal/testkit"
)

// A member name is the same name however it is written (spec §1 step 2:
// compared after unescaping), so a second of it is refused whether the
// walk finds the first or the second by its plain bytes (member's words)
// or through name (an escape, or a name the object's set lacks); and each
// body is answered exactly as the reference answers it.
func TestDuplicateMemberNamesAreRefusedHoweverWritten(t *testing.T) {
	const dup = "duplicate object member name"
	withBody := func(member string) string { // a member added to the body object
		return strings.Replace(dOK, `{"sources":`, `{`+member+`,"sources":`, 1)
	}
	cases := []struct {
		name string
		body string
		dup  bool
	}{
		{"citation member twice, plain", dBody(dSrc, dCite("p", dPosSel, `,"quote":"efg","quote":"efg"`)), true},
		{"citation member plain, then escaped", dBody(dSrc, dCite("p", dPosSel, `,"quote":"efg","\u0071uote":"efg"`)), true},
		{"citation member escaped, then plain", dBody(dSrc, dCite("p", dPosSel, `,"\u0071uote":"efg","quote":"efg"`)), true},
		{"citation member escaped once", dBody(dSrc, dCite("p", dPosSel, `,"quot\u0065":"efg"`)), false},
		{"selector member twice", dBody(dSrc, dCite("p", dPosSel+`,"start":4`, `,"quote":"efg"`)), true},
		{"selector member escaped, then plain", dBody(dSrc, dCite("p", `"typ\u0065":"TextPositionSelector","type":"x","start":4,"end":7`, `,"quote":"efg"`)), true},
		{"source member twice", dBody(`{"source_id":"s","version":"v1","text":"a","version":"v1"}`, dCite("p", dPosSel, `,"quote":"efg"`)), true},
		{"source member escaped, then plain", dBody(`{"source_id":"s","v\u0065rsion":"v1","text":"a","version":"v1"}`, dCite("p", dPosSel, `,"quote":"efg"`)), true},
		{"body member twice", withBody(`"citations":[]`), true},
		{"body member escaped, then plain", strings.Replace(dOK, `{"sources":`, `{"\u0073ources":[],"sources":`, 1), true},
		{"unknown member twice (refused for the duplicate, not as unknown)", dBody(dSrc, dCite("p", dPosSel, `,"quote":"efg","x":1,"x":2`)), true},
		{"unknown member once", dBody(dSrc, dCite("p", dPosSel, `,"quote":"efg","x":1`)), false},
		{"unknown name of sixteen bytes twice", withBody(`"abcdefghijklmnop":0,"abcdefghijklmnop":0`), true},
		{"unknown name of seventeen bytes twice", withBody(`"abcdefghijklmnopq":0,"abcdefghijklmnopq":0`), true},
		{"a known name with an escaped quote in it", dBody(dSrc, dCite("p", dPosSel, `,"quote":"efg","quote\"":"efg"`)), false},
		{"a known name's prefix", dBody(dSrc, dCite("p", dPosSel, `,"quote":"efg","quot":"efg"`)), false},
		{"a known name and more", dBody(dSrc, dCite("p", dPosSel, `,"quote":"efg","quotes":"efg"`)), false},
		{"the empty name twice", withBody(`"":0,"":0`), true},
		{"a bad surrogate after an escaped name (its pointer reads the name again)", dBody(dSrc, dCite("p", dPosSel, `,"\u0071uote":"\ud800"`)), false},
		{"a bad surrogate after a long unknown name", withBody(`"an unknown name, long":"\udc00"`), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if d := sameDecoding([]byte(c.body)); d != "" {
				t.Fatalf("%s\nbody %s", d, c.body)
			}
			_, err := Decode([]byte(c.body))
			if got := err != nil && strings.Contains(AsError(err).Message, dup); got != c.dup {
				t.Fatalf("refused as a duplicate: %v, want %v (%v)\nbody %s", got, c.dup, err, c.body)
			}
		})
	}
}

// A member set finds each of its names, by its plain bytes or its index,
// and nothing else: not a prefix, not a longer name, not one that differs
// in any one byte.
func TestMemberSetsFindTheirNamesOnly(t *testing.T) {
	for _, set := range []*memberSet{bodyMembers, sourceMembers, citationMembers, selectorMembers} {
		for i, name := range set.names {
			if got := set.index([]byte(name)); got != i {
				t.Fatalf("index(%q) = %d, want %d", name, got, i)
			}
			others := []string{name[:len(name)-1], name + "s", strings.ToUpper(name)}
			for j := range name {
				b := []byte(name)
				b[j] ^= 1
				others = append(others, string(b))
			}
			for _, o := range others {
				if got := set.index([]byte(o)); got >= 0 && set.names[got] != o {
					t.Fatalf("index(%q) = %d (%q)", o, got, set.names[got])
				}
			}
		}
	}
}

// A small integer read in one pass over its digits is the integer the
// general path reads, and any literal that is not such an integer (a
// leading zero, sixteen digits, a fraction, an exponent, a sign) is left to
// the general path, with its answer.
func TestSmallIntegersAreReadAsTheGeneralPathReadsThem(t *testing.T) {
	for _, lit := range []string{
		"0", "7", "10", "00", "01", "123456789012345", "999999999999999", "1234567890123456",
		"9007199254740991", "9007199254740992", "1.0", "1.5", "1e2", "1E2", "1e", "-0", "-1", "0.0", "4 ", "4\n",
	} {
		body := dBody(dSrc, dCite("p", `"type":"TextPositionSelector","start":`+lit+`,"end":7`, `,"quote":"efg"`))
		if d := sameDecoding([]byte(body)); d != "" {
			t.Fatalf("start %q: %s", lit, d)
		}
		body = dBody(dSrc, dCite("q", dQuoteSel, `,"claimed_start":`+lit))
		if d := sameDecoding([]byte(body)); d != "" {
			t.Fatalf("claimed_start %q: %s", lit, d)
		}
	}
	// The body's last bytes: a number cut by its end.
	body := dBody(dSrc, dCite("p", `"type":"TextPositionSelector","end":7,"start":4`, ""))
	for n := len(body) - 12; n < len(body); n++ {
		if d := sameDecoding([]byte(body[:n])); d != "" {
			t.Fatalf("%q: %s", body[:n], d)
		}
	}
}

// An idSet answers as a map of first items does, across its growth, sized
// first or not.
func TestIDSetAnswersAsAMapOfFirstItems(t *testing.T) {
	rng := testkit.NewRand(12)
	for _, sized := range []int{0, 3, 40, 1000} {
		var set idSet[string]
		set.sized(sized)
		want := map[string]int{}
		for i := range 3000 {
			key := strconv.Itoa(rng.IntN(1200))
			j, added := set.add(key, hashString(key), i)
			w, had := want[key]
			if !had {
				want[key], w = i, i
			}
			if added == had || j != w {
				t.Fatalf("sized %d: add(%q, %d) = %d, %v; want %d, %v", sized, key, i, j, added, w, !had)
			}
		}
		for k := range 1300 {
			key := strconv.Itoa(k)
			j, ok := set.find(key, hashString(key))
			if w, had := want[key]; ok != had || ok && j != w {
				t.Fatalf("sized %d: find(%q) = %d, %v; want %d, %v", sized, key, j, ok, w, had)
			}
		}
	}
}
