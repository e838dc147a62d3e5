package citecheck

// Units names a way of counting positions other than code points, under
// which a citation's numbers can be read (an `offset_units` finding). The
// values are a closed list in this order.
type Units uint8

const (
	UnitsUTF16 Units = iota // UTF-16 code units, as JavaScript, Java and browsers count
	UnitsUTF8               // UTF-8 bytes, as byte-oriented pipelines count
	unitsCount
)

var unitsNames = [unitsCount]string{"utf16", "utf8"}

// String returns the units' name: "utf16" or "utf8".
func (u Units) String() string {
	if u < unitsCount {
		return unitsNames[u]
	}
	return "units(invalid)"
}
