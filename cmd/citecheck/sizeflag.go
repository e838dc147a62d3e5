package main

import (
	"errors"
	"strconv"
	"strings"
)

// byteSize is a flag of a number of bytes, written plain ("65536") or with
// a binary unit ("64KiB", "64MiB", "1GiB").
type byteSize struct{ n *int64 }

var sizeUnits = []struct {
	suffix string
	mult   int64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}

func (b byteSize) String() string {
	if b.n == nil || *b.n == 0 {
		return "0"
	}
	for _, u := range sizeUnits {
		if *b.n%u.mult == 0 {
			return strconv.FormatInt(*b.n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(*b.n, 10)
}

func (b byteSize) Set(s string) error {
	num, mult := s, int64(1)
	for _, u := range sizeUnits {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			num, mult = v, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return errors.New("want a positive number of bytes, like 65536, 64KiB or 64MiB")
	}
	*b.n = n * mult
	return nil
}
