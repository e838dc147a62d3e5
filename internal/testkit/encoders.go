package testkit

import (
	"bytes"
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// The encoders our users' clients write bodies with, for the decoder's
// benchmark classes and tests: a body is only as fast to decode as the
// escapes its encoder chooses.

// PythonDumps rewrites the JSON text body as Python's json.dumps writes
// the same value with its defaults (ensure_ascii=True, separators ", "
// and ": ", no indent): every string's '"', '\\', \b, \f, \n, \r and \t
// as two-byte escapes, every other byte below 0x20, DEL (0x7F) and every
// non-ASCII code point as a lowercase \uXXXX, astral ones as a surrogate
// pair; numbers and literals as written (json.dumps would write a
// float's own way: these bodies hold integers). TestPythonDumpsIsPython
// holds it
// to python3 itself. body must be valid JSON of valid UTF-8.
func PythonDumps(body []byte) []byte {
	dec := jsontext.NewDecoder(bytes.NewReader(body))
	out, err := appendPythonValue(nil, dec)
	if err != nil {
		panic("testkit: PythonDumps of invalid JSON: " + err.Error())
	}
	return out
}

// appendPythonValue appends the next value of dec as json.dumps writes it.
func appendPythonValue(b []byte, dec *jsontext.Decoder) ([]byte, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return b, err
	}
	switch k := tok.Kind(); k {
	case '"':
		return appendPythonString(b, tok.String()), nil
	case '{', '[':
		b = append(b, byte(k))
		for i := 0; dec.PeekKind() != '}' && dec.PeekKind() != ']'; i++ {
			if i > 0 {
				b = append(b, ',', ' ')
			}
			if b, err = appendPythonValue(b, dec); err != nil {
				return b, err
			}
			if k == '{' {
				b = append(b, ':', ' ')
				if b, err = appendPythonValue(b, dec); err != nil {
					return b, err
				}
			}
		}
		tok, err = dec.ReadToken()
		return append(b, tok.String()...), err
	default:
		return append(b, tok.String()...), nil
	}
}

// EscapeNonASCII rewrites a JSON text with every non-ASCII code point
// (which can only be in a string) as a lowercase \uXXXX, astral ones as a
// surrogate pair, and every other byte as it is: json.dumps's escapes
// with compact separators.
func EscapeNonASCII(body []byte) []byte {
	var b []byte
	for _, r := range string(body) {
		if r < utf8.RuneSelf {
			b = append(b, byte(r))
		} else {
			b = appendU(b, r)
		}
	}
	return b
}

// appendU appends r as \uXXXX in lowercase hex, an astral r as a
// surrogate pair of them.
func appendU(b []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	if r > 0xFFFF {
		hi, lo := utf16.EncodeRune(r)
		return appendU(appendU(b, hi), lo)
	}
	return append(b, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
}

// appendPythonString appends s as json.dumps quotes it (py_encode_basestring_ascii).
func appendPythonString(b []byte, s string) []byte {
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r == '\b':
			b = append(b, '\\', 'b')
		case r == '\f':
			b = append(b, '\\', 'f')
		case r == '\n':
			b = append(b, '\\', 'n')
		case r == '\r':
			b = append(b, '\\', 'r')
		case r == '\t':
			b = append(b, '\\', 't')
		case r >= ' ' && r <= '~':
			b = append(b, byte(r))
		default:
			b = appendU(b, r)
		}
	}
	return append(b, '"')
}

// GoMarshal is v as Go's encoding/json writes it by default: compact, with
// '<', '>' and '&' as \u003c, \u003e and \u0026 and U+2028 and U+2029 as
// \u2028 and \u2029 (HTML-safe), every other character as it is but for
// the escapes RFC 8259 needs.
func GoMarshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("testkit: GoMarshal: " + err.Error())
	}
	return b
}
