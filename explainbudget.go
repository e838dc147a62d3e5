package citecheck

import "github.com/citecheck/citecheck/internal/search"

// Explaining a failing citation asks questions of its source: where the
// claim occurs, where its parts and its folded reading occur, how long a
// leading part of it occurs, which context leaves one match. On most
// texts an index answers them in about the pattern's length; on text
// whose grams repeat (a few letters, periodic text, a block that occurs
// twice) each is a scan of the source, and a claim that nearly occurs
// asks a dozen. So the questions of one request draw on one budget,
// counted in the matcher's unit (about one KMP byte step: see
// search.matchTrace), which bounds what they cost by the request's size
// whatever its text (docs/explain.md#the-bound).

// explainWorkPerKiB is the budget's units per KiB of the request's
// failing claims and of the source texts they cite: two a byte, so that
// the questions of a request cost at most about 3–4 ns a byte of the body
// that holds them (the unit is 1–2 ns), about 10× decoding it (0.3–0.7 ns
// a byte), which keeps explaining within 10× checking, decode included on
// both sides, on the hostile families (BenchmarkExplainHostile).
const explainWorkPerKiB = 2048

// explainWorkMin is the smallest budget, 256 Ki units, about 0.3–0.5 ms:
// a small request is explained to the end (a source of 64 KiB folded,
// a few dozen questions) for a tenth of what starting the process that
// checks it costs, and a request of 128 KiB or more has its pool from
// explainWorkPerKiB alone (docs/explain.md#the-bound).
const explainWorkMin = 256 << 10

// maxStepWork bounds what one admitted step charges to the pool, in the
// budget's unit, for a text of n bytes and a claim or pattern of m: a
// question (the matcher's scan is linear, at most about 2.2n + 1.4m +
// 3·1024 units, see search.match; the gram index's buckets n/16
// candidates and 2n bytes compared), a claim's folding (52m), a fold set
// compared over a span of the text and the claim (52(n+m)), an elided
// claim's split (elisionWorkPerByte·m), a leading part compared at its
// candidates (8m), an anchor's contexts read at its occurrences (two
// stretches of max_context_bytes at each of uniqueCandidates). Every
// charge to the pool comes right after its step's admission, and a step
// is admitted only while less than the pool is spent, so a request is
// charged at most its pool plus maxStepWork of its longest text and
// claim, plus what is granted beside the pool (search.Budget.Grant, at
// most sourceGrantWork of each source). The tests hold every request to
// it.
func maxStepWork(n, m int) int {
	return 56*(n+m) + 4096 + search.QuestionWork + 2*uniqueCandidates*(MaxContextBytes+1)
}

// sourceGrantWork bounds what explaining a request is granted
// (search.Budget.Grant) for one source of n bytes whose reading under
// every fold has f bytes: its folding (foldWorkOf: at most 52 units a
// byte), its skeleton (a quarter of that), and an index of each of its
// readings, the text, the folded one and the skeleton (at most n bytes):
// the gram index's 2 units a byte and the short index's
// shortIndexScans/IndexBytesPerStep, under 3; and the one pass that counts
// its short quotes (a unit a byte; and 64 a quote, which the caller
// adds). f is at most 11n (U+FDFA, 3 bytes, reads as 33 under NFKC),
// about n on real text. Once a source a request, or, for
// ExplainEachContext, a failing citation.
func sourceGrantWork(n, f int) int {
	return 52*n + 13*n + 5*(2*n+f) + n
}
