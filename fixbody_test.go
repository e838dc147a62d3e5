package citecheck

import (
	"bytes"
	"testing"
)

// TestApplyFixes: the fixed body differs from the input only in the
// fixed citations' numbers and added members; everything else, white
// space, member order and escapes included, is kept.
func TestApplyFixes(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"a position citation's numbers are replaced in place",
			`{"sources":[{"source_id":"s","version":"v1","text":"abcdefghijklmnopqrstuvwxyz"}],
 "citations":[ {"quote":"xyz", "selector":{"end":7,"type":"TextPositionSelector","start":4}, "citation_id":"c","source_id":"s","version":"v1"} ]}`,
			`{"sources":[{"source_id":"s","version":"v1","text":"abcdefghijklmnopqrstuvwxyz"}],
 "citations":[ {"quote":"xyz", "selector":{"end":26,"type":"TextPositionSelector","start":23}, "citation_id":"c","source_id":"s","version":"v1"} ]}`},
		{"an escaped member name is found and a citation without a fix is kept as it is",
			`{"citations":[{"citation_id":"ok","source_id":"s","version":"v1","selector":{"type":"TextQuoteSelector","exact":"ab"},"claimed_start":0},
{"citation_id":"c","source_id":"s","version":"v1","selector":{"type":"TextQuoteSelector","exact":"xyz"},"\u0063laimed_start":22.0}],
"sources":[{"source_id":"s","version":"v1","text":"abcdefghijklmnopqrstuvwxyz"}]}`,
			`{"citations":[{"citation_id":"ok","source_id":"s","version":"v1","selector":{"type":"TextQuoteSelector","exact":"ab"},"claimed_start":0},
{"citation_id":"c","source_id":"s","version":"v1","selector":{"type":"TextQuoteSelector","exact":"xyz"},"\u0063laimed_start":23}],
"sources":[{"source_id":"s","version":"v1","text":"abcdefghijklmnopqrstuvwxyz"}]}`},
		{"an added prefix goes after the selector's last member",
			`{"sources":[{"source_id":"s","version":"v1","text":"xa1-ana-xa2-ana-ya3"}],"citations":[
  {"citation_id":"c","source_id":"s","version":"v1","claimed_start":12,
   "selector":{"type":"TextQuoteSelector",
               "exact":"ana"
   }}]}`,
			`{"sources":[{"source_id":"s","version":"v1","text":"xa1-ana-xa2-ana-ya3"}],"citations":[
  {"citation_id":"c","source_id":"s","version":"v1","claimed_start":12,
   "selector":{"type":"TextQuoteSelector",
               "exact":"ana","prefix":"2-"
   }}]}`},
		{"an existing prefix is extended in place",
			`{"sources":[{"source_id":"s","version":"v1","text":"q.ab.z.ab.y.ab"}],"citations":[{"citation_id":"c","source_id":"s","version":"v1","selector":{"type":"TextQuoteSelector","prefix":".","exact":"ab"},"claimed_start":7}]}`,
			`{"sources":[{"source_id":"s","version":"v1","text":"q.ab.z.ab.y.ab"}],"citations":[{"citation_id":"c","source_id":"s","version":"v1","selector":{"type":"TextQuoteSelector","prefix":"z.","exact":"ab"},"claimed_start":7}]}`},
		{"a claimed_start in UTF-16 units is replaced by code points",
			`{"sources":[{"source_id":"s","version":"v1","text":"🙂 ana 🙂 ana"}],"citations":[{"citation_id":"c","source_id":"s","version":"v1","selector":{"type":"TextQuoteSelector","exact":"ana"},"claimed_start":10}]}`,
			`{"sources":[{"source_id":"s","version":"v1","text":"🙂 ana 🙂 ana"}],"citations":[{"citation_id":"c","source_id":"s","version":"v1","selector":{"type":"TextQuoteSelector","exact":"ana","prefix":" 🙂 "},"claimed_start":8}]}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := fixedBody(t, []byte(tc.body))
			if string(got) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// fixedBody explains body, applies the fixes and checks that every fixed
// citation now holds and every other keeps its outcome.
func fixedBody(t testing.TB, body []byte) []byte {
	t.Helper()
	req, e := Decode(body)
	if e != nil {
		t.Fatalf("decode: %v", e)
	}
	ex := Explain(req)
	out, err := ApplyFixes(body, ex)
	if err != nil {
		t.Fatalf("ApplyFixes: %v", err)
	}
	fixed, e := Decode(out)
	if e != nil {
		t.Fatalf("the fixed body is refused: %v\n%s", e, out)
	}
	after := CheckAll(fixed)
	anyFix := false
	for k, o := range after.Citations {
		before := ex.All.Citations[k]
		switch {
		case ex.Citations[k].Fix != nil:
			anyFix = true
			if !o.Valid() {
				t.Errorf("citation %d still fails after its fix: %s", k, o.Reason)
			}
		case string(o.AppendJSON(nil)) != string(before.AppendJSON(nil)):
			t.Errorf("citation %d without a fix changed outcome: %s, was %s", k, o.AppendJSON(nil), before.AppendJSON(nil))
		}
	}
	if !anyFix && !bytes.Equal(out, body) {
		t.Errorf("no fix, yet the body changed")
	}
	return out
}

// FuzzApplyFixes: for any request, the fixed body is accepted, its fixed
// citations hold and the others keep their outcomes.
func FuzzApplyFixes(f *testing.F) {
	f.Add([]byte(`{"sources":[{"source_id":"s","version":"v1","text":"abcdefghijklmnopqrstuvwxyz"}],"citations":[{"citation_id":"c","source_id":"s","version":"v1","selector":{"type":"TextPositionSelector","start":4,"end":7},"quote":"xyz"}]}`))
	f.Add([]byte(`{"sources":[{"source_id":"s","version":"v1","text":"xa1-ana-xa2-ana-ya3"}],"citations":[{"citation_id":"c","source_id":"s","version":"v1","selector":{"type":"TextQuoteSelector","exact":"ana"},"claimed_start":12},{"citation_id":"d","source_id":"s","version":"v1","selector":{"type":"TextQuoteSelector","exact":"a3"},"claimed_start":1}]}`))
	f.Add([]byte(`{"sources":[{"source_id":"s","version":"v1","text":"🙂 ana 🙂 ana"}],"citations":[{"citation_id":"c","source_id":"s","version":"v1","selector":{"type":"TextQuoteSelector","exact":"ana","prefix":""},"claimed_start":10}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if _, e := Decode(body); e != nil {
			return
		}
		fixedBody(t, body)
	})
}
