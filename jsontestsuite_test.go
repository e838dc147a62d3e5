package citecheck

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// jsonTestSuiteDir is JSONTestSuite's test_parsing, vendored under its MIT
// licence (testdata/jsontestsuite/README.md says where from).
const jsonTestSuiteDir = "testdata/jsontestsuite/test_parsing"

// TestJSONTestSuiteFilesAreInvalidInput: no file of JSONTestSuite is a
// request (the y_ files are valid JSON but not request objects; the n_ files
// are not JSON; the i_ files are not I-JSON or not requests), so each must
// end in invalid_input: never a result, a limit or a panic.
func TestJSONTestSuiteFilesAreInvalidInput(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(jsonTestSuiteDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 300 { // upstream has 318; never pass by reading nothing
		t.Fatalf("%s holds %d files; the suite is missing", jsonTestSuiteDir, len(files))
	}
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			res, cerr := runRecovered(t, body)
			if res != nil {
				t.Fatalf("got a result: %s", res.AppendJSON(nil))
			}
			if cerr == nil || cerr.Code != CodeInvalidInput {
				t.Fatalf("want invalid_input, got %+v", cerr)
			}
			checkError(t, body, cerr)
			// A y_ file is valid JSON; unless it also breaks I-JSON (a
			// duplicate member name), it must be the schema step that
			// refuses it, not the I-JSON step. Our I-JSON failures, and only
			// they, say "not I-JSON" (the one schema failure that does, an
			// integer beyond 2^53−1 where an integer is expected, cannot
			// occur at the top level of a non-request).
			if strings.HasPrefix(name, "y_") {
				iJSON := utf8.Valid(body) && !hasDuplicateNames(t, body)
				if saysIJSON := strings.Contains(cerr.Message, "not I-JSON"); saysIJSON == iJSON {
					t.Errorf("I-JSON=%v, but the error is %q", iJSON, cerr.Message)
				}
			}
		})
	}
}

func runRecovered(t *testing.T, body []byte) (res *Result, cerr *Error) {
	defer func() {
		if p := recover(); p != nil {
			t.Fatalf("panic: %v", p)
		}
	}()
	res, err := Run(body)
	return res, AsError(err)
}

// hasDuplicateNames reports whether some object of JSON text body has two
// members whose names are equal after unescaping (encoding/json's tokens,
// independent of the engine's decoder).
func hasDuplicateNames(t *testing.T, body []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // 1e400 is JSON, not a float64
	type frame struct {
		names   map[string]bool
		wantKey bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return false
		}
		if err != nil {
			t.Fatalf("not JSON to encoding/json: %v", err)
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.names != nil && top.wantKey {
			if d, ok := tok.(json.Delim); !ok || d != '}' {
				name := tok.(string)
				if top.names[name] {
					return true
				}
				top.names[name] = true
				top.wantKey = false
				continue
			}
		}
		if top != nil && top.names != nil {
			top.wantKey = true // the value is read; a name comes next
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{names: map[string]bool{}, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].names != nil {
				stack[len(stack)-1].wantKey = true
			}
		}
	}
}
