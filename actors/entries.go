package actors

// areaState is what an account's actor keeps for the areas: the plugin
// states it knows to be stored and the areas' memos. It is allocated at
// the first one (an account that only logs in never needs it: 48 bytes
// less per live account) and dropped whenever the account is reloaded or
// a commit fails.
type areaState struct {
	plug  entries[[]byte]
	memos entries[any]
}

// known returns *p, allocating it first if it is nil.
func known(p **areaState) *areaState {
	if *p == nil {
		*p = new(areaState)
	}
	return *p
}

// entries is what an account's actor keeps by key for the areas: the
// plugin states it knows to be stored (Tx.PluginState) and the areas'
// memos (Tx.Memo). A slice, not a map: an account has a few of each.
type entries[V any] []entry[V]

type entry[V any] struct {
	key string
	v   V
}

func (e entries[V]) get(key string) (V, bool) {
	for _, x := range e {
		if x.key == key {
			return x.v, true
		}
	}
	var zero V
	return zero, false
}

func (e *entries[V]) set(key string, v V) {
	for i := range *e {
		if (*e)[i].key == key {
			(*e)[i].v = v
			return
		}
	}
	*e = append(*e, entry[V]{key, v})
}

// adopt keeps what a committed change set.
func (e *entries[V]) adopt(set entries[V]) {
	for _, x := range set {
		e.set(x.key, x.v)
	}
}
