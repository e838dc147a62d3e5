package citecheck

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"reflect"
	"testing"
)

// conformanceCase is one line of testdata/conformance.jsonl (a copy of
// ../shared/conformance/cases.jsonl): a body and the answer it must get.
type conformanceCase struct {
	Name    string          `json:"name"`
	Body    *string         `json:"body"`
	BodyB64 string          `json:"body_b64"`
	Expect  json.RawMessage `json:"expect"`
}

type conformanceExpect struct {
	Result json.RawMessage `json:"result"`
	Error  *Error          `json:"error"`
}

// loadConformance reads every case; the file has lines over 1 MiB, so it is
// read with a json.Decoder, not a line scanner.
func loadConformance(t testing.TB) []conformanceCase {
	t.Helper()
	f, err := os.Open("testdata/conformance.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []conformanceCase
	dec := json.NewDecoder(f)
	for {
		var c conformanceCase
		if err := dec.Decode(&c); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, c)
	}
	return cases
}

func (c conformanceCase) body(t testing.TB) []byte {
	if c.Body != nil {
		return []byte(*c.Body)
	}
	b, err := base64.StdEncoding.DecodeString(c.BodyB64)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// compareAnswer checks one answer against a case's expectation as the
// conformance README says: results equal as parsed JSON, errors equal in
// code (and limit). It returns the answer's bytes for further checks.
func compareAnswer(t *testing.T, c conformanceCase, res *Result, cerr *Error) {
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
	for _, c := range loadConformance(t) {
		t.Run(c.Name, func(t *testing.T) {
			body := c.body(t)
			res, cerr := Run(body)
			compareAnswer(t, c, res, cerr)
			if res != nil { // the same input gives byte-identical output
				again, _ := Run(body)
				if !bytes.Equal(res.AppendJSON(nil), again.AppendJSON(nil)) {
					t.Fatal("two runs of the same body differ")
				}
			}
		})
	}
}
