package wireimpl

import "math/bits"

// Fit describes an object member of a union for structural matching: bit i
// stands for the i-th member name of the union's key list.
type Fit struct {
	Required uint64 // members the variant requires
	Declared uint64 // members the variant declares
	// Forbidden: members whose presence rules the variant out although its
	// schema allows them (a JSON-RPC notification has no id, MSG-5).
	Forbidden uint64
}

// BestFit narrows mask (bit i = union member i) to the members that fit an
// object whose present member names are present: fewest required members
// missing, then fewest members the variant does not declare, then the most
// required members matched. Ties are all kept.
func BestFit(present uint64, fits []Fit, mask uint64) uint64 {
	var best uint64
	bestMissing, bestUnknown, bestReq := 65, 65, -1
	for m := mask; m != 0; m &= m - 1 {
		i := bits.TrailingZeros64(m)
		if i >= len(fits) {
			continue
		}
		f := fits[i]
		missing := bits.OnesCount64(f.Required &^ present)
		unknown := bits.OnesCount64(present &^ f.Declared)
		req := bits.OnesCount64(f.Required)
		switch {
		case missing < bestMissing,
			missing == bestMissing && unknown < bestUnknown,
			missing == bestMissing && unknown == bestUnknown && req > bestReq:
			best, bestMissing, bestUnknown, bestReq = 1<<uint(i), missing, unknown, req
		case missing == bestMissing && unknown == bestUnknown && req == bestReq:
			best |= 1 << uint(i)
		}
	}
	return best
}

// Choose orders the union members in mask for an object whose present
// member names are present. best is the best fit (BestFit) among the
// members no forbidden member rules out (among all of mask when it rules
// out every one, so that the error names the closest member); others are
// the remaining members that may accept the object too: none of their
// required members missing, none of their forbidden ones present.
//
// A decoder tries best first and others only when best fails to decode or
// to validate: anyOf holds when any member holds, so an object is
// rejected only when no member accepts it (a StringSchema with an extra
// "oneOf" member is not a TitledSingleSelectEnumSchema, but it is a
// StringSchema). When others is empty, as for nearly every message, best
// is decoded once, without trying.
func Choose(present uint64, fits []Fit, mask uint64) (best, others uint64) {
	var allowed, viable uint64
	for m := mask; m != 0; m &= m - 1 {
		i := bits.TrailingZeros64(m)
		if i >= len(fits) || fits[i].Forbidden&present != 0 {
			continue
		}
		allowed |= 1 << uint(i)
		if fits[i].Required&^present == 0 {
			viable |= 1 << uint(i)
		}
	}
	if allowed == 0 {
		allowed = mask
	}
	best = BestFit(present, fits, allowed)
	return best, viable &^ best
}

// KeySet returns, for the object ahead, a bit set of which of keys it has,
// without consuming it.
func (d *Decoder) KeySet(keys []string) (uint64, error) {
	var set uint64
	err := d.Peek(func() error {
		return d.Obj(func(k []byte) error {
			for i, key := range keys {
				if key == string(k) {
					set |= 1 << uint(i)
					break
				}
			}
			return d.skipMember(k)
		})
	})
	return set, err
}
