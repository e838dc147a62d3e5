package citecheck

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/citecheck/citecheck/internal/testkit"
)

// Every JSON value of the API marshals the same way whichever function a
// caller uses: encoding/json (through MarshalJSON or MarshalText) and the
// Append functions write the same JSON value, so no caller ever sees a Go
// field name where the contract spells a member. (Values, not bytes:
// encoding/json also escapes <, > and & for HTML.)
func TestEveryValueMarshalsAsItsAppendJSON(t *testing.T) {
	t.Parallel()
	for _, c := range testkit.Conformance(t) {
		res, cerr := Run(c.Body)
		var got, want []byte
		var err error
		if cerr != nil {
			got, err = json.Marshal(cerr)
			want = AsError(cerr).AppendJSON(nil)
		} else {
			req, _ := Decode(c.Body)
			all := CheckAll(req)
			for k := range all.Citations {
				o := &all.Citations[k]
				g, e := json.Marshal(o)
				if e != nil || !sameJSON(g, o.AppendJSON(nil)) {
					t.Fatalf("%s: CitationOutcome: json.Marshal %s (%v), AppendJSON %s", c.Name, g, e, o.AppendJSON(nil))
				}
			}
			got, err = json.Marshal(res)
			want = res.AppendJSON(nil)
			if d := res.FirstDiscrepancy; d != nil {
				g, e := json.Marshal(d)
				if e != nil || !sameJSON(g, d.AppendJSON(nil)) {
					t.Fatalf("%s: Discrepancy: json.Marshal %s (%v), AppendJSON %s", c.Name, g, e, d.AppendJSON(nil))
				}
			}
		}
		if err != nil || !sameJSON(got, want) {
			t.Fatalf("%s: json.Marshal %s (%v), AppendJSON %s", c.Name, got, err, want)
		}
	}
}

// The enums marshal as the contract spells them.
func TestEnumsMarshalAsContractNames(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(map[string]any{"r": ReasonAmbiguousAnchor, "t": QuoteSelector})
	if err != nil || string(b) != `{"r":"ambiguous_anchor","t":"TextQuoteSelector"}` {
		t.Fatalf("%s (%v)", b, err)
	}
}

// The embedded contract cannot be changed by a caller: what one caller does
// to its copy, the next caller does not see.
func TestContractJSONCannotBeChangedByACaller(t *testing.T) {
	t.Parallel()
	a := ContractJSON()
	want := string(a)
	for i := range a {
		a[i] = 'x'
	}
	if string(ContractJSON()) != want {
		t.Fatal("a caller's write reached the embedded contract")
	}
}

func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}
