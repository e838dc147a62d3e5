// Package conformance reads the public conformance cases
// (testdata/conformance.jsonl, a copy of ../shared/conformance/cases.jsonl)
// for the tests of every interface: the library, the CLI, HTTP and MCP.
package conformance

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Case is one conformance case: a request body and the answer it must get.
type Case struct {
	Name   string
	Body   []byte          // the exact bytes to send
	Expect json.RawMessage // {"result": …} or {"error": …}
}

// Load reads every case of the JSON Lines file at path. Some lines are over
// 1 MiB, so it reads with a json.Decoder, not a line scanner; bodies that
// are not valid UTF-8 are stored base64-encoded ("body_b64").
func Load(path string) ([]Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cases []Case
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
		c := Case{Name: line.Name, Expect: line.Expect}
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
