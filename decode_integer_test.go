package citecheck

import "testing"

// Integer reads a number literal by the rule Decode reads an integer
// member with (spec §1): its exact value, within [0, 2^53−1].
func TestIntegerIsReadAsDecodeReadsAnIntegerMember(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		lit string
		n   int
		why string
	}{
		{"0", 0, ""},
		{"-0", 0, ""},
		{"4.0", 4, ""},
		{"4e0", 4, ""},
		{"40e-1", 4, ""},
		{"1e3", 1000, ""},
		{"9007199254740991", MaxSafeInteger, ""},
		{"9007199254740991.000", MaxSafeInteger, ""},
		{"9007199254740992", 0, "is outside ±(2^53−1)"},
		{"9223372036854775807", 0, "is outside ±(2^53−1)"},
		{"9223372036854775808", 0, "is outside ±(2^53−1)"},
		{"-9223372036854775808", 0, "is outside ±(2^53−1)"},
		{"1e400", 0, "is outside ±(2^53−1)"},
		{"1e99999999999999999999", 0, "is outside ±(2^53−1)"},
		{"4.5", 0, "is not an integer"},
		{"1e-400", 0, "is not an integer"},
		{"4.0000000000000001", 0, "is not an integer"},
		{"-1", 0, "is negative"},
		{"-1e0", 0, "is negative"},
	} {
		n, why := Integer([]byte(c.lit))
		if n != c.n || why != c.why {
			t.Errorf("Integer(%s) = %d, %q; want %d, %q", c.lit, n, why, c.n, c.why)
		}
	}
}
