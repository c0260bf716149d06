package wireimpl

import "math/bits"

// Fit describes an object member of a union for structural matching: bit i
// stands for the i-th member name of the union's key list.
type Fit struct {
	Required uint64 // members the variant requires
	Declared uint64 // members the variant declares
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
