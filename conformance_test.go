package citecheck

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/citecheck/citecheck/internal/testkit"
)

type conformanceExpect struct {
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
}

// compareAnswer checks one answer against a case's expectation as the
// conformance README says: results equal as parsed JSON, errors equal in
// code (and limit). It returns the answer's bytes for further checks.
func compareAnswer(t *testing.T, c testkit.ConformanceCase, res *Result, cerr *Error) {
	t.Helper()
	var want conformanceExpect
	if err := json.Unmarshal(c.Expect, &want); err != nil {
		t.Fatal(err)
	}
	if want.Error != nil {
		if cerr == nil {
			t.Fatalf("want error %s %s, got result %s", want.Error.Code, want.Error.Limit, res.AppendJSON(nil))
		}
		if cerr.Code != want.Error.Code || cerr.Limit != want.Error.Limit {
			t.Fatalf("want %s %s, got %s %s (%s)", want.Error.Code, want.Error.Limit, cerr.Code, cerr.Limit, cerr.Message)
		}
		if cerr.Path != want.Error.Path {
			t.Errorf("path %q, want %q (%s)", cerr.Path, want.Error.Path, cerr.Message)
		}
		return
	}
	if cerr != nil {
		t.Fatalf("want a result, got error %s: %s (path %q)", cerr.Code, cerr.Message, cerr.Path)
	}
	got := res.AppendJSON(nil)
	var a, b any
	if err := json.Unmarshal(want.Result, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &b); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, got)
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("result differs\n want %s\n  got %s", want.Result, got)
	}
}

// TestConformance runs every public conformance case through the library.
// Paths are advisory in the README; we hold ourselves to the preferred ones.
func TestConformance(t *testing.T) {
	t.Parallel()
	for _, c := range testkit.Conformance(t) {
		t.Run(c.Name, func(t *testing.T) {
			body := c.Body
			res, cerr := Run(body)
			compareAnswer(t, c, res, AsError(cerr))
			if res != nil { // the same input gives byte-identical output
				again, _ := Run(body)
				if !bytes.Equal(res.AppendJSON(nil), again.AppendJSON(nil)) {
					t.Fatal("two runs of the same body differ")
				}
			}
		})
	}
}
