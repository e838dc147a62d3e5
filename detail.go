package citecheck

// AppendJSON appends the detail object exactly as the contract's
// first_discrepancy carries it for a citation of selector type shape, for
// tools that report a citation's detail in an output of their own (the
// annotations command does, per selector).
func (d *Detail) AppendJSON(dst []byte, shape SelectorType) []byte { return d.appendJSON(dst, shape) }
