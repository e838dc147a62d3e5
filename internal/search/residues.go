package search

import "slices"

// Both indexes sample a text at every step-th offset and answer a pattern
// the same way: an occurrence at p puts, for the residue r of p (p+r a
// multiple of step), the pattern's gram at offset i ≡ r a sampled offset
// p+i, so the bucket of any one such gram holds p. The lookup reads, for
// each residue, the smallest of those buckets, verifies its candidates,
// and sorts what holds. bestProbes and collect are its two halves that do
// not depend on how an index hashes and verifies.

// bestProbes sets at[r] and key[r], for each residue r < len(at) of an
// occurrence's start in a pattern of m bytes, to the offset i ≡ r whose
// gram's bucket is smallest and the key probe gave for it (its hash or
// bucket), trying at most maxProbes of the (m-gram-r)/step+1 offsets
// that fit, spread over them; it returns the sum of the chosen buckets'
// sizes, the candidates the lookup will read. probe(i) returns the key
// and the size of the bucket of the gram at i. O(len(at)·maxProbes).
func bestProbes[K any](at []int, key []K, m, gram, maxProbes int, probe func(i int) (K, int)) (total int) {
	step := len(at)
	for r := range step {
		probes := (m-gram-r)/step + 1
		best := -1
		for k := range min(probes, maxProbes) {
			i := r + spread(k, probes, maxProbes)*step
			if h, size := probe(i); best < 0 || size < best {
				at[r], key[r], best = i, h, size
			}
		}
		total += best
	}
	return total
}

// collect returns the occurrences at found, in any order, sorted and cut
// to the first limit (0: all), kept in keep's storage up to cap(keep).
// O(n log n) in the offsets found.
func collect(found, keep []int, limit int) Occurrences {
	slices.Sort(found)
	if limit > 0 {
		found = found[:min(len(found), limit)]
	}
	o := Occurrences{First: [2]int{-1, -1}, Kept: keep[:0]}
	for _, p := range found {
		o.add(p)
	}
	return o
}

// spread returns the k-th of min(n, limit) probes spread evenly over n
// positions, the first and the last included (limit at least 2).
func spread(k, n, limit int) int {
	if n > limit {
		return k * (n - 1) / (limit - 1)
	}
	return k
}
