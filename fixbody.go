package citecheck

import (
	"bytes"
	"errors"
	"slices"
	"strconv"

	"github.com/citecheck/citecheck/internal/jsonenc"
	"github.com/go-json-experiment/json/jsontext"
)

// ApplyFixes returns body with every fix of ex applied, and nothing else
// changed: each fixed citation's changed members get their new values in
// place, and a claimed_start, prefix or suffix it lacked is added after
// its object's last member; every other byte (member order, white space,
// escapes, the citations without a fix) is kept. body must be the request
// ex explains. Linear in body.
func ApplyFixes(body []byte, ex *Explanation) ([]byte, error) {
	var edits []edit
	dec := jsontext.NewDecoder(bytes.NewReader(body))
	err := walkMembers(dec, func(name string) error {
		if name != "citations" {
			return dec.SkipValue()
		}
		if _, err := dec.ReadToken(); err != nil { // [
			return err
		}
		for k := 0; dec.PeekKind() != ']'; k++ {
			if k >= len(ex.Citations) {
				return errors.New("citecheck: ApplyFixes: body has more citations than the explanation")
			}
			fix := ex.Citations[k].Fix
			if fix == nil {
				if err := dec.SkipValue(); err != nil {
					return err
				}
				continue
			}
			if err := citationEdits(dec, fix, &edits); err != nil {
				return err
			}
		}
		_, err := dec.ReadToken() // ]
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(body)+64*len(edits))
	at := 0
	for _, e := range edits { // in input order
		out = append(out, body[at:e.from]...)
		out = append(out, e.text...)
		at = e.to
	}
	return append(out, body[at:]...), nil
}

// edit replaces body[from:to] with text (an insertion when from == to).
type edit struct {
	from, to int
	text     []byte
}

// walkMembers reads the object at dec's position, calling member with each
// name; member must consume the value.
func walkMembers(dec *jsontext.Decoder, member func(name string) error) error {
	if _, err := dec.ReadToken(); err != nil { // {
		return err
	}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if err := member(tok.String()); err != nil {
			return err
		}
	}
	_, err := dec.ReadToken() // }
	return err
}

// citationEdits reads the citation object at dec's position and records
// the edits that make it read as fix.
func citationEdits(dec *jsontext.Decoder, fix *Citation, edits *[]edit) error {
	// value reads the next value and returns its span in the body.
	value := func() (int, int, error) {
		v, err := dec.ReadValue()
		end := int(dec.InputOffset())
		return end - len(v), end, err
	}
	replace := func(text []byte) error {
		from, to, err := value()
		*edits = append(*edits, edit{from, to, text})
		return err
	}
	num := func(n int) []byte { return strconv.AppendInt(nil, int64(n), 10) }
	str := func(s string) []byte { return jsonenc.AppendString(nil, s) }
	// add appends a member after the object's last one, ending at end.
	add := func(end int, name string, v []byte) {
		text := append(append(append([]byte(`,"`), name...), `":`...), v...)
		*edits = append(*edits, edit{end, end, text})
	}
	sel := &fix.Selector
	hasClaimed, last := false, 0
	err := walkMembers(dec, func(name string) error {
		var err error
		switch name {
		case "selector":
			hasPrefix, hasSuffix, selLast := false, false, 0
			err = walkMembers(dec, func(name string) error {
				var err error
				switch {
				case name == "start" && sel.Type == PositionSelector:
					err = replace(num(sel.Start))
				case name == "end" && sel.Type == PositionSelector:
					err = replace(num(sel.End))
				case name == "prefix":
					hasPrefix, err = true, replace(str(sel.Prefix))
				case name == "suffix":
					hasSuffix, err = true, replace(str(sel.Suffix))
				default:
					_, _, err = value()
				}
				selLast = int(dec.InputOffset())
				return err
			})
			if sel.Prefix != "" && !hasPrefix {
				add(selLast, "prefix", str(sel.Prefix))
			}
			if sel.Suffix != "" && !hasSuffix {
				add(selLast, "suffix", str(sel.Suffix))
			}
		case "claimed_start":
			if fix.HasClaimedStart {
				hasClaimed, err = true, replace(num(fix.ClaimedStart))
			} else {
				_, _, err = value()
			}
		default:
			_, _, err = value()
		}
		last = int(dec.InputOffset())
		return err
	})
	if fix.HasClaimedStart && !hasClaimed {
		add(last, "claimed_start", num(fix.ClaimedStart))
	}
	// Edits inside one citation come in input order except the additions
	// to the selector, recorded after its members: sort them into place.
	slices.SortStableFunc(*edits, func(a, b edit) int { return a.from - b.from })
	return err
}
