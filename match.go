package citecheck

import "strings"

// occurrences summarises where a pattern occurs in a text: how many times,
// overlapping occurrences included, and the byte offsets of the first two
// (-1 where there are fewer).
type occurrences struct {
	count int
	first [2]int
}

// findOccurrences counts every occurrence of pattern in text.
// TEMPORARY naive version: quadratic in the worst case; replaced by the
// linear matcher.
func findOccurrences(text, pattern string) occurrences {
	o := occurrences{first: [2]int{-1, -1}}
	for i := 0; ; {
		j := strings.Index(text[i:], pattern)
		if j < 0 {
			return o
		}
		if o.count < 2 {
			o.first[o.count] = i + j
		}
		o.count++
		i += j + 1
		if i > len(text) {
			return o
		}
	}
}
