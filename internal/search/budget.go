package search

import "context"

// shareOfLeft: a citation may spend up to 1/shareOfLeft of what is left
// (see Begin).
const shareOfLeft = 8

// PollEvery is the work, in the budget's unit, between two looks at the
// context: ctx.Err() takes a lock, a few tens of nanoseconds, and 64 Ki
// units take tens of microseconds.
const PollEvery = 64 << 10

// Budget is what explaining one request may still spend on its
// questions, shared by the searchers of its sources (the texts, their
// folded readings, their skeletons). The citations draw on it in turn,
// each up to a share of what is left (share): a citation that has spent
// its share is refused its next question, and the citations after it
// still get theirs. A question is admitted while its citation is under
// its share, so the request never spends more than its pool plus one
// Step (maxStepWork) on its questions. The work done once for a source,
// linear in it (its folding, its skeleton, its indexes), is granted
// beside the pool (Grant): never refused, it leaves the pool whole for
// the questions, whose count is what can grow beyond linear.
type Budget struct {
	ctx      context.Context // nil: never cancelled
	pool     int             // the request's units
	spent    int             // charged to the pool so far
	granted  int             // charged by Grant so far
	share    int             // spent may reach this for the current citation
	nextPoll int             // spent at which ctx is next looked at
	err      error           // ctx.Err() once it is not nil
	cut      bool            // a question of the current citation was refused
}

// NewBudget returns a budget of units for one request, which looks at ctx
// every PollEvery units charged; a ctx that can never be done is never
// looked at.
func NewBudget(ctx context.Context, units int) *Budget {
	if ctx != nil && ctx.Done() == nil {
		ctx = nil
	}
	return &Budget{ctx: ctx, pool: units, nextPoll: PollEvery}
}

// Begin starts a citation's diagnosis with a share of what is left: its
// equal part (left ÷ citations, the citations still to explain, this one
// included), or 1/shareOfLeft of it when that is more, so that on a text
// where every question is a scan the first citations are explained to
// the end rather than every one cut, and the later ones still get part
// of what the first leave.
func (b *Budget) Begin(citations int) {
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

// Step starts another step of the current citation's diagnosis: what
// Refused reports from here on is of this step.
func (b *Budget) Step() {
	if b != nil {
		b.cut = false
	}
}

// Admit reports whether a question may be asked now; false marks the
// citation cut. A nil budget admits everything.
func (b *Budget) Admit() bool {
	if b == nil {
		return true
	}
	if b.err != nil || b.spent >= b.share {
		b.cut = true
		return false
	}
	return true
}

// Grant charges units of work about to be done once for a source of the
// request and linear in it (its folding, its skeleton, an index of one
// of its readings, a one-pass count of its short quotes), beside the
// pool: whatever the pool has left, so that no diagnosis is cut for
// want of a linear pass, and the pool is left to the questions. It
// reports false, charging nothing and marking the citation cut, only
// once the context is done. The caller bounds what it grants
// (docs/explain.md#the-bound).
func (b *Budget) Grant(units int) bool {
	if b == nil {
		return true
	}
	if b.err != nil {
		b.cut = true
		return false
	}
	b.granted += units
	b.polled()
	return true
}

// Charge counts units of work done, and looks at the context every
// PollEvery units.
func (b *Budget) Charge(units int) {
	if b == nil {
		return
	}
	b.spent += units
	b.polled()
}

// polled looks at the context when PollEvery units have been charged,
// granted ones included, since the last look.
func (b *Budget) polled() {
	if b.ctx != nil && b.spent+b.granted >= b.nextPoll {
		b.nextPoll = b.spent + b.granted + PollEvery
		b.Poll()
	}
}

// Poll looks at the context once; a context that is done refuses every
// question after.
func (b *Budget) Poll() {
	if b != nil && b.ctx != nil && b.err == nil {
		b.err = b.ctx.Err()
	}
}

// Refused reports whether a question of the current citation was
// refused: what it answered (nothing) is not sure.
func (b *Budget) Refused() bool { return b != nil && b.cut }

// Spent returns the units charged so far, granted ones included.
func (b *Budget) Spent() int { return b.spent + b.granted }

// Granted returns the units charged by Grant so far.
func (b *Budget) Granted() int { return b.granted }

// Pool returns the request's units.
func (b *Budget) Pool() int { return b.pool }

// Err returns the context's error once a look at it found it done.
func (b *Budget) Err() error {
	if b == nil {
		return nil
	}
	return b.err
}
