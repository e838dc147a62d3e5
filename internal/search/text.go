package search

// Text is one text the check searches many times: it keeps what one
// search learns about the text for the next ones (its byte ranks, where
// its rare bytes are, the sparse index once a scan shows it pays, the
// searcher of explain and hints). Not safe for concurrent use until Share.
type Text struct {
	text  string
	ranks *byteRanks // the text's own byte ranks for the matcher, built on first find
	many  *Searcher  // for explain's and hints' many questions, made on first use
	// sparse, once built, answers find where it costs less than a scan;
	// plan, until the first scan it is for, decides whether to build it
	// (see Plan). Both nil for a text scanned once.
	sparse *sparseIndex
	plan   *Plan
	rare   rareBytes // where its rare bytes are, once a scan has looked
}

// NewText returns text to be searched; plan is what the request will ask
// of it (see Plan), which decides whether the sparse index pays. A plan
// of fewer than two anchors, or for a text too short or too long to
// index (MayIndex), decides nothing.
func NewText(text string, plan Plan) *Text {
	x := &Text{text: text}
	if plan.anchors > 1 && MayIndex(len(text)) {
		x.plan = &plan
	}
	return x
}

// Find returns the occurrences of pattern in the text (byte offsets), with
// the prefilter tuned to this text's bytes, keeping up to cap(keep) offsets
// in keep's storage. Linear in text plus pattern; from the sparse index,
// when there is one and the pattern is long enough, linear in the probes
// and the candidates of the pattern's rarest grams.
func (x *Text) Find(pattern string, keep []int) Occurrences {
	if x.sparse != nil {
		if o, ok := x.sparse.find(x.text, pattern, keep); ok {
			return o
		}
	}
	if x.plan == nil || len(pattern) < sparseMinPattern {
		return findOccurrencesRanked(x.text, pattern, x, keep, nil)
	}
	// The first scan of the plan: what it did on this text scales the
	// estimates of the scans to come.
	var tr matchTrace
	o := findOccurrencesRanked(x.text, pattern, x, keep, &tr)
	x.decide(x.plan.measured(len(x.text), len(pattern), tr.work))
	return o
}

// decide builds the sparse index if plan pays for it, and drops the plan:
// the text is decided, and Find builds nothing more.
func (x *Text) decide(plan Plan) {
	if plan.pays(x.text) {
		x.sparse = newSparseIndex(x.text)
	}
	x.plan = nil
}

// Share makes the text safe for concurrent Finds, so that no Find writes
// but for the rare-byte lists, which are published atomically: it decides
// the plan unmeasured, and samples the byte ranks when finds (a text read
// only by position needs none).
func (x *Text) Share(finds bool) {
	if finds {
		x.byteRanks()
	}
	if x.plan != nil {
		x.decide(*x.plan)
	}
}

// Searcher returns the text's searcher, for explain and hints, which ask
// many questions of one text: it scans until its scans have done work
// worth a quarter of a scan of the text, then answers from an index of it.
func (x *Text) Searcher() *Searcher {
	if x.many == nil {
		x.many = &Searcher{text: x.text, ranks: x}
	}
	x.many.sparse = x.sparse // the check's, once it has built one
	return x.many
}

// byteRanks returns the text's own byte ranks, sampled on first use (by
// match, only once a scan reaches its rare-byte phase).
func (x *Text) byteRanks() *byteRanks {
	if x.ranks == nil {
		x.ranks = textRanks(x.text)
	}
	return x.ranks
}

func (x *Text) rareBytes() *rareBytes { return &x.rare }
