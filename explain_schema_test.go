package citecheck

import (
	"bytes"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var explainSchemaOnce = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(ExplainSchemaJSON()))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	const url = "https://citecheck.invalid/explain.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
})

// TestExplainOutputMatchesItsSchema: what explain answers, over random
// requests with every kind of finding and over refusals, validates against
// ExplainSchemaJSON, the schema MCP's explain tool declares.
func TestExplainOutputMatchesItsSchema(t *testing.T) {
	sch, err := explainSchemaOnce()
	if err != nil {
		t.Fatal(err)
	}
	validate := func(out []byte) {
		t.Helper()
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("not JSON: %v\n%s", err, out)
		}
		if err := sch.Validate(v); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		text := explainText(r, 5+r.IntN(40))
		req := &Request{Sources: []Source{{SourceID: "s", Version: "v1", Text: text}}}
		for k := range 6 {
			req.Citations = append(req.Citations, randomCitation(r, "c"+string(rune('a'+k)), text))
		}
		validate(AppendExplainEnvelope(nil, Explain(req), nil))
	}
	_, e := RunExplain([]byte(`{"sources":[],"citations":[]}`))
	validate(AppendExplainEnvelope(nil, nil, e))
}
