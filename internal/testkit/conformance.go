package testkit

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// ConformanceCase is one public conformance case: a request body and the
// answer every interface must give it.
type ConformanceCase struct {
	Name   string
	Body   []byte          // the exact bytes to send
	Expect json.RawMessage // {"result": …} or {"error": …}
}

// Testdata is the path of the module's testdata/<elem…>, found from this
// file's own location, so it is right from any package's test directory.
func Testdata(elem ...string) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("testkit: no caller information to find the module root")
	}
	root := filepath.Join(filepath.Dir(file), "..", "..")
	return filepath.Join(append([]string{root, "testdata"}, elem...)...)
}

var conformanceOnce = sync.OnceValues(func() ([]ConformanceCase, error) {
	return LoadConformance(Testdata("conformance.jsonl"))
})

// Conformance is every case of testdata/conformance.jsonl, read once per
// test binary (the file is 3.5 MB); t fails if it cannot be read. The cases
// are shared between tests: read them, never modify them.
func Conformance(t testing.TB) []ConformanceCase {
	t.Helper()
	cases, err := conformanceOnce()
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// LoadConformance reads every case of the JSON Lines file at path. Some
// lines are over 1 MiB, so it reads with a json.Decoder, not a line
// scanner; bodies that are not valid UTF-8 are stored base64-encoded
// ("body_b64").
func LoadConformance(path string) ([]ConformanceCase, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cases []ConformanceCase
	dec := json.NewDecoder(f)
	for {
		var line struct {
			Name    string          `json:"name"`
			Body    *string         `json:"body"`
			BodyB64 string          `json:"body_b64"`
			Expect  json.RawMessage `json:"expect"`
		}
		if err := dec.Decode(&line); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("%s: case %d: %w", path, len(cases)+1, err)
		}
		c := ConformanceCase{Name: line.Name, Expect: line.Expect}
		if line.Body != nil {
			c.Body = []byte(*line.Body)
		} else if c.Body, err = base64.StdEncoding.DecodeString(line.BodyB64); err != nil {
			return nil, fmt.Errorf("%s: case %q: body_b64: %w", path, line.Name, err)
		}
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: no cases", path)
	}
	return cases, nil
}
