package jsonwords

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/go-json-experiment/json/jsontext"
)

// whole describes the first fault in b's first value as a reader that
// holds the whole input and reads it token by token describes it (the
// quotes readers), or returns ok false when that value is JSON.
func whole(b []byte) (f Fault, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(b))
	var opens []int64
	for {
		tok, err := dec.ReadToken()
		if err == nil && dec.StackDepth() == 0 {
			return Fault{}, false
		}
		if err != nil {
			return Describe(err, Input{Dec: dec, Window: b, Whole: true, Opens: opens}), true
		}
		switch tok.Kind() {
		case '{', '[':
			opens = append(opens, dec.InputOffset()-1)
		case '}', ']':
			opens = opens[:len(opens)-1]
		}
	}
}

// streamed describes the first fault in b as a streaming reader does
// (the annotation scanner): reading a byte at a time, with only the
// decoder's unread buffer at hand, a whole value at a time when values
// is set (the fault may then be deep inside what it read), else token by
// token.
func streamed(b []byte, values bool) (f Fault, err error) {
	var r io.Reader = iotest.OneByteReader(bytes.NewReader(b))
	if len(b) > 1024 { // a byte a time costs a decoder's refill each; long inputs are read in halves
		r = iotest.HalfReader(bytes.NewReader(b))
	}
	dec := jsontext.NewDecoder(r, jsontext.AllowDuplicateNames(true))
	for {
		var err error
		if values {
			_, err = dec.ReadValue()
		} else {
			_, err = dec.ReadToken()
		}
		if err == io.EOF && dec.StackDepth() == 0 && dec.InputOffset() > 0 {
			return Fault{}, nil
		}
		if err != nil {
			return Describe(err, Input{Dec: dec, Window: dec.UnreadBuffer(), Start: dec.InputOffset()}), err
		}
	}
}

// sameFault tells whether the decoder found the same fault both ways: a
// whole value is read by other code than a token, which may stop at
// another byte (a number where a name should be is refused at once, or
// read to the input's end).
func sameFault(a, b error) bool {
	var x, y *jsontext.SyntacticError
	return errors.As(a, &x) && errors.As(b, &y) && x.ByteOffset == y.ByteOffset && errors.Is(x.Err, io.ErrUnexpectedEOF) == errors.Is(y.Err, io.ErrUnexpectedEOF)
}

// Each kind of fault has its words: what is wrong, in words that name
// no library and no Go type, at the byte a person would look at.
func TestEachSyntaxFaultHasItsWords(t *testing.T) {
	for _, c := range []struct {
		name, input string
		at          int64
		words       string
	}{
		{"a member twice", `{"a":1,"a":2}`, 7, `the member "a" appears twice in one object`},
		{"nothing but white space", " \n", 2, "the input ends before a value"},
		{"the end in a string", `{"a":"bc`, 8, `the input ends before the string that starts at byte 5 is closed by '"'`},
		{"the end in an array", `{"a":[1,`, 8, "the input ends before the array opened at byte 5 is closed"},
		{"the end after a member name", `{"a"`, 4, "the input ends before the object opened at byte 0 is closed"},
		{"the end in a literal", `tru`, 3, "the input ends before the value is complete"},
		{"a control character in a string", "[\"a\x01\"]", 3, `a string holds the control character U+0001; inside a string it must be written as an escape such as \n or \u0001`},
		{"a byte that is not UTF-8 in a string", "[\"a\xff\"]", 3, "a string holds the byte 0xFF, which is not UTF-8"},
		{"an escape JSON has not", `["\x"]`, 2, `a string holds \x, not an escape JSON has (\" \\ \/ \b \f \n \r \t \uXXXX)`},
		{"a backslash before a space", `["\ "]`, 2, `a string holds a backslash followed by the control character U+0020, not an escape JSON has`},
		{"a short \\u escape", `["\u12"]`, 2, `a \u escape must have four hexadecimal digits`},
		{"a lone high surrogate", `["\ud800x"]`, 2, `a string holds \uD800, the first half of a surrogate pair without the second: it is no character`},
		{"a lone low surrogate", `["\udc00"]`, 2, `a string holds \uDC00, the second half of a surrogate pair without the first: it is no character`},
		{"a leading zero", `[01]`, 1, "a number not written as JSON writes numbers (digits, with no leading zero, no '+' and no bare '.')"},
		{"a bare dot", `[.5]`, 1, "'.' cannot start a value"},
		{"a number cut short", `[1.]`, 1, "a number not written as JSON writes numbers"},
		{"a second fraction", `[1.5.5]`, 1, "a number not written as JSON writes numbers"},
		{"a literal that is not one", `[nul]`, 1, "a value that is not JSON (only true, false and null are written without quotes)"},
		{"a literal run into a digit", `[true1]`, 1, "a value that is not JSON (only true, false and null"},
		{"nesting past the bound", strings.Repeat("[", MaxNesting+1), MaxNesting, "objects and arrays nested deeper than 10000 levels"},
		{"a trailing comma in an array", `[1, ]`, 2, "a trailing comma: the array's last item is followed by ',' and then ']'"},
		{"a trailing comma in an object", `{"a":1,}`, 6, "a trailing comma: the object's last member is followed by ',' and then '}'"},
		{"a name without quotes", `{a:1}`, 1, "a member name must be a string in double quotes, not 'a'"},
		{"a name in single quotes", `{'a':1}`, 1, `a member name must be a string in double quotes, not "'"`},
		{"a number for a name", `{"a":1,2:3}`, 7, "a member name must be a string in double quotes, not '2'"},
		{"a missing colon", `{"a" 1}`, 5, `a ':' must follow the member name "a", not '1'`},
		{"a member without a value", `{"a":}`, 5, "'}' cannot start a value (a value is a string in double quotes, a number, true, false, null, an object or an array)"},
		{"a curly quote for a value", `["a",“b”]`, 5, "U+201C cannot start a value"},
		{"a byte order mark for a value", "[\uFEFF1]", 1, "the byte 0xEF where a value should start (if it begins a byte order mark, U+FEFF: only the input's first bytes may be one)"},
		{"a missing comma in an array", `[1 2]`, 3, "a ',' is missing between two items of an array"},
		{"a missing comma in an object", `{"a":1 "b":2}`, 7, "a ',' is missing between two members of an object"},
		{"a closer of the other kind", `[1}`, 2, "'}' follows an item; only ',' or ']' can"},
		{"a stray character after a member", `{"a":1 ;}`, 7, "';' follows a member; only ',' or '}' can"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, ok := whole([]byte(c.input))
			if !ok {
				t.Fatal("accepted")
			}
			if f.At != c.at || !strings.HasPrefix(f.Words, c.words) {
				t.Errorf("at byte %d: %q; want at byte %d: %q", f.At, f.Words, c.at, c.words)
			}
			noLibraryWords(t, f.Words)
		})
	}
}

// A streaming reader's words name only the fault's byte (a character by
// its first byte, no earlier offset): what it holds depends on how the
// input was read, and the words must not.
func TestStreamedFaultsNameOnlyTheirByte(t *testing.T) {
	for _, c := range []struct {
		name, input string
		at          int64
		words       string
	}{
		{"the end in a string", `{"a":"bc`, 8, `the input ends before a string is closed by '"'`},
		{"the end in an object", `{"a":1`, 6, "the input ends before an object is closed"},
		{"a curly quote for a value", `["a",“b”]`, 5, "the byte 0xE2 cannot start a value"},
		{"a leading zero, read whole", `{"a":01}`, 6, "'1' follows a member's value directly: a ',' is missing, or a number has a leading zero"},
		{"a leading zero, read token by token", `[01]`, 2, "'1' follows an item's value directly: a ',' is missing, or a number has a leading zero"},
		{"a literal cut short", `[nul]`, 4, "a value that is not JSON"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := streamed([]byte(c.input), false)
			if err == nil {
				t.Fatal("accepted")
			}
			if f.At != c.at || !strings.HasPrefix(f.Words, c.words) {
				t.Errorf("at byte %d: %q; want at byte %d: %q", f.At, f.Words, c.at, c.words)
			}
		})
	}
}

// noLibraryWords fails words that name the library, a Go type or the
// parser's state. A word the input itself holds may be its echo (a member
// named "[]"), so with the input given, only the words it does not hold
// count.
func noLibraryWords(t *testing.T, words string, input ...[]byte) {
	t.Helper()
	for _, w := range []string{"jsontext", "invalid character", "expecting", "max depth", "Go ", "[]", "struct", "EOF"} {
		if strings.Contains(words, w) && (len(input) == 0 || !bytes.Contains(input[0], []byte(w))) {
			t.Errorf("%q says %q", words, w)
		}
	}
}

// Every fault over every input of up to 4 bytes (3 with -short; 5 would
// take 20 s, each input being read three ways) of an
// alphabet that makes each kind is described at a byte of the input in
// specific words, never a fallback; and a reader that read a whole
// value since its decoder's last token (the fault somewhere inside it)
// gets the words and byte a reader token by token gets: the replay finds
// the state at the fault.
func TestEveryFaultIsDescribedAlikeHoweverItWasRead(t *testing.T) {
	alphabet := []byte(`{}[]",:1-0.e\u t` + "\xff")
	n := 4
	if testing.Short() {
		n = 3
	}
	var sweep func(b []byte)
	sweep = func(b []byte) {
		f, ok := whole(b)
		if ok && jsontext.Value(b).IsValid() {
			t.Fatalf("%q is JSON, but %+v", b, f)
		}
		if ok {
			if f.At < 0 || f.At > int64(len(b)) || strings.HasSuffix(f.Words, "is not JSON") || strings.Contains(f.Words, "a string that is not JSON") {
				t.Fatalf("%q: %+v", b, f)
			}
			noLibraryWords(t, f.Words)
			tokens, terr := streamed(b, false)
			values, verr := streamed(b, true)
			if sameFault(terr, verr) && (tokens.At != values.At || tokens.Words != values.Words && !heldWhole(values.Words, tokens.Words)) {
				t.Fatalf("%q: token by token %+v, value by value %+v", b, tokens, values)
			}
		}
		if len(b) < n {
			for _, c := range alphabet {
				sweep(append(b, c))
			}
		}
	}
	sweep(nil)
}

// heldWhole tells whether values is the words for a value a reader of
// whole values holds, where one token by token no longer does and names
// both faults it can be.
func heldWhole(values, tokens string) bool {
	return strings.Contains(tokens, "value directly: a ',' is missing, or ") &&
		(values == badNumber || values == badLiteral || strings.HasPrefix(values, "a ',' is missing") || strings.Contains(values, " can"))
}

func TestDescribeWithoutASyntacticError(t *testing.T) {
	dec := jsontext.NewDecoder(strings.NewReader(""))
	_, err := dec.ReadToken()
	if f := Describe(err, Input{Dec: dec}); f.Words != "the input ends before a value" {
		t.Errorf("io.EOF: %+v", f)
	}
	if f := Describe(io.ErrUnexpectedEOF, Input{Dec: dec}); f.Words != "the input ends before the value is complete" {
		t.Errorf("io.ErrUnexpectedEOF: %+v", f)
	}
	if f := Describe(errors.New("x"), Input{Dec: dec}); f.Words != "the input ends before a value" {
		t.Errorf("another error: %+v", f)
	}
}
