package actors

// PluginState returns the state area's plugin keeps for this account (nil
// when none): the bytes its last applied decision returned. The actor keeps
// the states it has read or committed, so only the first call after the
// account is loaded reads storage (a Pebble read per drop was a tenth of a
// drop's CPU). The slice is the caller's own.
func (t *Tx) PluginState(area string) ([]byte, error) {
	if s, ok := t.plugSet.get(area); ok { // set earlier in this change
		return clone(s), nil
	}
	if ar := *t.areas; ar != nil {
		if s, ok := ar.plug.get(area); ok {
			return clone(s), nil
		}
	}
	s, err := t.db.PluginState(t.id, area)
	if err != nil {
		return nil, err
	}
	known(t.areas).plug.set(area, s) // what storage holds: true whatever this change does
	return clone(s), nil
}

// SetPluginState stores area's plugin state for this account in the Tx's
// batch: it is committed with the decision's effects, or not at all. Empty
// state deletes it.
func (t *Tx) SetPluginState(area string, state []byte) {
	state = clone(state)
	t.batch.PutPluginState(t.id, area, state)
	t.plugSet.set(area, state)
}

func clone(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return append([]byte(nil), b...)
}
