package storage

import "errors"

// Plugin state: the opaque bytes a plugin keeps per (area, account), stored
// by the host (plugins are stateless processes). One key family, apart from
// the others:
//
//	pluginstate/<area>/<id:4>   the bytes as the plugin returned them
//
// The prefix is longer than the one-byte prefixes of keys.go and never
// shares their "<byte>/" start, so scans of either never meet.
const prefixPluginState = "pluginstate/"

func pluginStateKey(area string, id AccountID) []byte {
	k := append([]byte(prefixPluginState), area...)
	return appendID(append(k, '/'), id)
}

// PluginState reads the state of area's plugin for account id; nil when
// there is none.
func (db *DB) PluginState(id AccountID, area string) ([]byte, error) {
	b, err := db.get(pluginStateKey(area, id))
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	return b, err
}

// PutPluginState writes the state of area's plugin for account id; empty
// state deletes it.
func (b *Batch) PutPluginState(id AccountID, area string, state []byte) {
	if b.err != nil {
		return
	}
	if len(state) == 0 {
		b.err = b.eb.del(pluginStateKey(area, id))
		return
	}
	b.set(pluginStateKey(area, id), state, nil)
}
