package actors

// PluginState returns the state area's plugin keeps for this account (nil
// when none): the bytes its last applied decision returned.
func (t *Tx) PluginState(area string) ([]byte, error) {
	return t.db.PluginState(t.id, area)
}

// SetPluginState stores area's plugin state for this account in the Tx's
// batch: it is committed with the decision's effects, or not at all. Empty
// state deletes it.
func (t *Tx) SetPluginState(area string, state []byte) {
	t.batch.PutPluginState(t.id, area, state)
}
