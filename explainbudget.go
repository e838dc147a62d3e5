package citecheck

import "context"

// Explaining a failing citation asks questions of its source: where the
// claim occurs, where its parts and its folded reading occur, how long a
// leading part of it occurs, which context leaves one match. On most
// texts an index answers them in about the pattern's length; on text
// whose grams repeat (a few letters, periodic text, a block that occurs
// twice) each is a scan of the source, and a claim that nearly occurs
// asks a dozen. So the questions of one request draw on one budget,
// counted in the matcher's unit (about one KMP byte step: see
// matchTrace.work), which bounds what they cost by the request's size
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

// shareOfLeft: a citation may spend up to 1/shareOfLeft of what is left
// (see begin).
const shareOfLeft = 8

// pollEvery is the work, in the budget's unit, between two looks at the
// context: ctx.Err() takes a lock, a few tens of nanoseconds, and 64 Ki
// units take tens of microseconds.
const pollEvery = 64 << 10

// workBudget is what explaining one request may still spend on its
// questions, shared by the searchers of its sources (the texts, their
// folded readings, their skeletons). The citations draw on it in turn,
// each up to a share of what is left (share): a citation that has spent
// its share is refused its next question, and the citations after it
// still get theirs. A question is admitted while its citation is under
// its share, so the request never spends more than its pool plus one
// step (maxStepWork).
type workBudget struct {
	ctx      context.Context // nil: never cancelled
	pool     int             // the request's units
	spent    int             // charged so far
	share    int             // spent may reach this for the current citation
	nextPoll int             // spent at which ctx is next looked at
	err      error           // ctx.Err() once it is not nil
	cut      bool            // a question of the current citation was refused
}

func newWorkBudget(ctx context.Context, units int) *workBudget {
	return &workBudget{ctx: ctx, pool: units, nextPoll: pollEvery}
}

// begin starts a citation's diagnosis with a share of what is left: its
// equal part (left ÷ citations, the citations still to explain, this one
// included), or 1/shareOfLeft of it when that is more, so that on a text
// where every question is a scan the first citations are explained to
// the end rather than every one cut, and the later ones still get part
// of what the first leave.
func (b *workBudget) begin(citations int) {
	if b == nil {
		return
	}
	b.cut = false
	if left := b.pool - b.spent; left > 0 {
		b.share = b.spent + max(left/max(citations, 1), left/shareOfLeft)
	} else {
		b.share = b.spent
	}
}

// step starts another step of the current citation's diagnosis: what
// refused reports from here on is of this step.
func (b *workBudget) step() {
	if b != nil {
		b.cut = false
	}
}

// admit reports whether a question may be asked now; false marks the
// citation cut. A nil budget admits everything.
func (b *workBudget) admit() bool {
	if b == nil {
		return true
	}
	if b.err != nil || b.spent >= b.share {
		b.cut = true
		return false
	}
	return true
}

// afford charges units of work about to be done once for the request
// (the folding of a source, say) and reports true if the pool has them
// left, whatever the citation's share, which it leaves as it was; else
// it marks the citation cut and charges nothing.
func (b *workBudget) afford(units int) bool {
	if b == nil {
		return true
	}
	if b.err != nil || b.spent+units > b.pool {
		b.cut = true
		return false
	}
	b.charge(units)
	b.share += units // the request's, not the citation's
	return true
}

// has reports whether the pool has units left, for what a step may do
// on the way if it can (build an index) and else does without. A nil
// budget has everything.
func (b *workBudget) has(units int) bool { return b == nil || b.spent+units <= b.pool }

// charge counts units of work done, and looks at the context every
// pollEvery units.
func (b *workBudget) charge(units int) {
	if b == nil {
		return
	}
	b.spent += units
	if b.ctx != nil && b.spent >= b.nextPoll {
		b.nextPoll = b.spent + pollEvery
		b.poll()
	}
}

// poll looks at the context once; a context that is done refuses every
// question after.
func (b *workBudget) poll() {
	if b != nil && b.ctx != nil && b.err == nil {
		b.err = b.ctx.Err()
	}
}

// maxStepWork bounds what one admitted step charges, in the budget's
// unit, for a text of n bytes and a claim or pattern of m: a question
// (the matcher's scan is linear, at most about 2.2n + 1.4m + 3·1024
// units, see search; the gram index's buckets n/16 candidates and 2n
// bytes compared; building the gram index n and the short index
// shortIndexScans scans of n), a claim's folding (26m), a fold set
// compared over a span of the text and the claim (26(n+m)), an elided
// claim's split (elisionWorkPerByte·m), a leading part compared at its
// candidates (8m), an anchor's contexts read at its occurrences (two
// stretches of max_context_bytes at each of uniqueCandidates); the short
// index is built on the way only when the pool has what it costs left.
// Every
// charge comes right after its step's admission (admit, or afford for
// what is admitted whole within the pool), and a step is admitted only
// while less than the pool is spent, so a request is charged at most its
// pool plus maxStepWork of its longest text and claim. The tests hold
// every request to it.
func maxStepWork(n, m int) int {
	return 36*(n+m) + 4096 + questionWork + 2*uniqueCandidates*(MaxContextBytes+1)
}

// refused reports whether a question of the current citation was
// refused: what it answered (nothing) is not sure.
func (b *workBudget) refused() bool { return b != nil && b.cut }
