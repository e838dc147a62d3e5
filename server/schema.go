package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// schema is the part of JSON Schema the contract uses, read so that the
// tool page can describe the input and output from the contract itself
// rather than from a hand-written copy that could drift.
type schema struct {
	Type                 json.RawMessage   `json:"type"` // a string or an array of strings
	Const                json.RawMessage   `json:"const"`
	Enum                 []json.RawMessage `json:"enum"`
	Required             []string          `json:"required"`
	Properties           properties        `json:"properties"`
	Items                *schema           `json:"items"`
	AnyOf                []*schema         `json:"anyOf"`
	AdditionalProperties *bool             `json:"additionalProperties"`
	MinItems             *int64            `json:"minItems"`
	MaxItems             *int64            `json:"maxItems"`
	MinLength            *int64            `json:"minLength"`
	Minimum              *json.Number      `json:"minimum"`
}

// properties keeps the schema's member order: the page lists fields as the
// contract does, and the output in the order results are written.
type properties []property

type property struct {
	Name   string
	Schema *schema
}

func (p *properties) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("properties: not an object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		var s schema
		if err := dec.Decode(&s); err != nil {
			return err
		}
		*p = append(*p, property{Name: tok.(string), Schema: &s})
	}
	return nil
}

// field is one line of the page's input or output description.
type field struct {
	Name         string
	Type         string // "array of object", `one of null, "a"`, …
	Required     bool
	Constraints  []string // "min items 1", …
	Children     []field  // an object's members (or an array's items')
	Alternatives []alternative
}

// alternative is one shape of an anyOf (selector, detail).
type alternative struct {
	Label    string
	Children []field
}

func (s *schema) types() []string {
	var one string
	if json.Unmarshal(s.Type, &one) == nil {
		return []string{one}
	}
	var many []string
	json.Unmarshal(s.Type, &many)
	return many
}

// typeText names a schema's type the way the published tool page does.
func (s *schema) typeText() string {
	switch {
	case s.Const != nil:
		return "constant " + string(s.Const)
	case len(s.Enum) > 0:
		vals := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			vals[i] = string(v)
		}
		return "one of " + strings.Join(vals, ", ")
	case len(s.AnyOf) > 0:
		labels := make([]string, len(s.AnyOf))
		for i, a := range s.AnyOf {
			labels[i] = alternativeLabel(s.AnyOf, a)
		}
		return "one of: " + strings.Join(labels, "; ")
	}
	ts := s.types()
	for i, t := range ts {
		if t == "array" && s.Items != nil {
			ts[i] = "array of " + s.Items.typeText()
		}
	}
	return strings.Join(ts, " or ")
}

func (s *schema) constraints() []string {
	var c []string
	add := func(name string, v *int64) {
		if v != nil {
			c = append(c, fmt.Sprintf("%s %d", name, *v))
		}
	}
	add("min length", s.MinLength)
	add("min items", s.MinItems)
	add("max items", s.MaxItems)
	if s.Minimum != nil {
		c = append(c, "min "+s.Minimum.String())
	}
	if s.Items != nil && s.Items.MinLength != nil {
		c = append(c, fmt.Sprintf("items min length %d", *s.Items.MinLength))
	}
	return c
}

// alternativeLabel names one shape of an anyOf: by the constant that tells
// it apart (a selector's type), else by the members only it has.
func alternativeLabel(all []*schema, a *schema) string {
	for _, p := range a.Properties {
		if p.Schema.Const != nil {
			return p.Name + " " + string(p.Schema.Const)
		}
	}
	var own []string
	for _, p := range a.Properties {
		shared := true
		for _, b := range all {
			if !b.has(p.Name) {
				shared = false
			}
		}
		if !shared {
			own = append(own, p.Name)
		}
	}
	if len(own) > 3 {
		own = append(own[:3], "…")
	}
	return "object with " + strings.Join(own, ", ")
}

func (s *schema) has(name string) bool {
	for _, p := range s.Properties {
		if p.Name == name {
			return true
		}
	}
	return false
}

// fields describes an object schema's members, recursively.
func (s *schema) fields() []field {
	var out []field
	for _, p := range s.Properties {
		out = append(out, p.Schema.describe(p.Name, contains(s.Required, p.Name)))
	}
	return out
}

func (s *schema) describe(name string, required bool) field {
	f := field{Name: name, Type: s.typeText(), Required: required, Constraints: s.constraints()}
	switch {
	case len(s.Properties) > 0:
		f.Children = s.fields()
	case s.Items != nil && len(s.Items.Properties) > 0:
		f.Children = s.Items.fields()
	}
	for _, a := range s.AnyOf {
		f.Alternatives = append(f.Alternatives, alternative{Label: alternativeLabel(s.AnyOf, a), Children: a.fields()})
	}
	return f
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// schemaFields parses a raw schema and describes its top-level members.
func schemaFields(raw []byte) ([]field, error) {
	var s schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	return s.fields(), nil
}

// limit is one of the contract's limits, in its order.
type limit struct {
	Name, Label string
	Value       json.Number
}

func orderedLimits(raw []byte) ([]limit, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("limits: not an object")
	}
	var out []limit
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.Number
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		name := tok.(string)
		out = append(out, limit{Name: name, Label: strings.ReplaceAll(name, "_", " "), Value: v})
	}
	return out, nil
}
