package testkit

import "github.com/go-json-experiment/json/jsontext"

// AppendJSONString appends s as a JSON string literal with the minimal
// escaping RFC 8259 needs (no HTML escaping of <, > and &, unlike
// encoding/json): the form the engine itself writes, so that two results
// written this way are equal exactly when their bytes are. s must be valid
// UTF-8; a test that wants invalid UTF-8 in a body writes it raw. Linear in
// len(s).
func AppendJSONString(b []byte, s string) []byte {
	out, err := jsontext.AppendQuote(b, s)
	if err != nil {
		panic("testkit: a JSON string of invalid UTF-8: " + err.Error())
	}
	return out
}

// JSONString is s as a JSON string literal, written as AppendJSONString does.
func JSONString(s string) string { return string(AppendJSONString(nil, s)) }
