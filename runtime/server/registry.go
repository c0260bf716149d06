package server

// registry keeps named items in registration order (TOOL-2: a stable order
// while the set is unchanged) with lookup by name.
type registry[T any] struct {
	names []string
	items map[string]T
}

func (r *registry[T]) len() int { return len(r.names) }

func (r *registry[T]) get(name string) (T, bool) {
	v, ok := r.items[name]
	return v, ok
}

// put adds or replaces name; a replaced item keeps its position.
func (r *registry[T]) put(name string, v T) {
	if r.items == nil {
		r.items = map[string]T{}
	}
	if _, ok := r.items[name]; !ok {
		r.names = append(r.names, name)
	}
	r.items[name] = v
}

// add adds name, or replaces it when replace is set (keeping its
// position); it reports false, changing nothing, when name is taken and
// replace is not set.
func (r *registry[T]) add(name string, v T, replace bool) bool {
	if _, taken := r.items[name]; taken && !replace {
		return false
	}
	r.put(name, v)
	return true
}

func (r *registry[T]) remove(name string) bool {
	if _, ok := r.items[name]; !ok {
		return false
	}
	delete(r.items, name)
	for i, n := range r.names {
		if n == name {
			r.names = append(r.names[:i:i], r.names[i+1:]...)
			break
		}
	}
	return true
}

// page returns the items at [offset, offset+size) and the next offset
// (-1 at the end).
func (r *registry[T]) page(offset, size int) ([]T, int) {
	if offset >= len(r.names) {
		return nil, -1
	}
	end := min(offset+size, len(r.names))
	out := make([]T, 0, end-offset)
	for _, n := range r.names[offset:end] {
		out = append(out, r.items[n])
	}
	if end == len(r.names) {
		return out, -1
	}
	return out, end
}
