package annotation

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// syntaxWords says in plain words why the input is not JSON at the byte
// where the JSON reader stopped: what, by the reader's own account
// (reason, its message with the library's prefix removed), went wrong;
// fault is the input from that byte on, as far as it is still buffered
// (possibly empty). The words name no library and no Go type; the caller
// adds the byte, line and value. The wording is the quotes readers'
// (quotes/jsonsyntax.go), so a fault reads alike in both commands.
func syntaxWords(reason string, fault []byte) string {
	var c byte
	if len(fault) > 0 {
		c = fault[0]
	}
	switch {
	case strings.Contains(reason, "max depth"):
		return "objects and arrays nested deeper than 10000 levels"
	case strings.Contains(reason, "invalid UTF-8") && len(fault) > 0:
		return "a string holds " + charWords(fault) + ", which is not UTF-8"
	case strings.Contains(reason, "invalid UTF-8"):
		return "bytes that are not UTF-8"
	case len(fault) == 0:
		return "the input is not JSON"
	case strings.Contains(reason, "in string") && c == '\\':
		return badEscapeWords(fault)
	case strings.Contains(reason, "in string") && c < ' ':
		return "a string holds " + charWords(fault) + "; inside a string it must be written as an escape such as \\n or \\u00" + strconv.FormatUint(uint64(c>>4), 16) + strconv.FormatUint(uint64(c&15), 16)
	case strings.Contains(reason, "in number"):
		return "a number not written as JSON writes numbers (digits, with no leading zero, no '+' and no bare '.')"
	case strings.Contains(reason, "in literal"):
		return "a value that is not JSON (only true, false and null are written without quotes)"
	case c == ',' && closesNext(fault[1:]):
		return "a trailing comma: the last item or member is followed by ',' and then " + charWords(fault[1+spaces(fault[1:]):])
	case strings.Contains(reason, "at start of string"):
		return "a member name must be a string in double quotes, not " + charWords(fault)
	case strings.Contains(reason, "after object name"):
		return "a ':' must follow a member name, not " + charWords(fault)
	case strings.Contains(reason, "after object value") && c >= '0' && c <= '9':
		return charWords(fault) + " follows a member's value; only ',' or '}' can (a number has no leading zero)"
	case strings.Contains(reason, "after object value"):
		return charWords(fault) + " follows a member; only ',' or '}' can"
	case strings.Contains(reason, "after array element"), strings.Contains(reason, "after array value"):
		return charWords(fault) + " follows an item; only ',' or ']' can"
	case c == 0xEF && strings.Contains(reason, "at start of value"):
		return "the byte 0xEF where a value should start (if it begins a byte order mark, U+FEFF: only the input's first bytes may be one)"
	case strings.Contains(reason, "at start of value"):
		return charWords(fault) + " cannot start a value (a value is a string in double quotes, a number, true, false, null, an object or an array)"
	}
	return charWords(fault) + " is not JSON here"
}

// badEscapeWords says what is wrong with the escape fault starts with.
func badEscapeWords(fault []byte) string {
	if len(fault) < 2 {
		return "a string ends in a backslash"
	}
	if c := fault[1]; c != 'u' {
		what := "\\" + string(c)
		if c <= ' ' || c >= utf8.RuneSelf {
			what = "a backslash followed by " + charWords(fault[1:])
		}
		return "a string holds " + what + ", not an escape JSON has (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)"
	}
	return "a \\u escape must have four hexadecimal digits"
}

// charWords names the character fault starts with for a message.
func charWords(fault []byte) string {
	if len(fault) == 0 {
		return "the end of the input"
	}
	c := fault[0]
	switch {
	case c == '\'':
		return `"'"`
	case c > ' ' && c < utf8.RuneSelf:
		return "'" + string(c) + "'"
	case c < utf8.RuneSelf:
		return "the control character U+00" + strings.ToUpper(strconv.FormatUint(uint64(c>>4), 16)+strconv.FormatUint(uint64(c&15), 16))
	}
	// Only the byte itself: what follows it may not be buffered yet, and
	// the words must not depend on how the input was read.
	return "the byte 0x" + strings.ToUpper(strconv.FormatUint(uint64(c), 16))
}

func spaces(b []byte) int {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// closesNext tells whether b, after white space, closes an object or array.
func closesNext(b []byte) bool {
	i := spaces(b)
	return i < len(b) && (b[i] == ']' || b[i] == '}')
}
