package wire

// Opt is an optional value: Set reports whether the member was present.
//
// Generated types use Opt for optional scalar members so that an absent
// member stays absent after a round trip while a present zero value
// (0, false, "") stays present, without a heap allocation per member.
type Opt[T any] struct {
	Value T
	Set   bool
}

// Some returns a present Opt holding v.
func Some[T any](v T) Opt[T] { return Opt[T]{Value: v, Set: true} }

// Get returns the value and whether it is present.
func (o Opt[T]) Get() (T, bool) { return o.Value, o.Set }

// Or returns the value when present and def otherwise.
func (o Opt[T]) Or(def T) T {
	if o.Set {
		return o.Value
	}
	return def
}
