package console

import "github.com/honmaster/masterserver/actors"

// forgetAccount is the console's actors.DeleteHook: once an account's
// deletion committed, its console sessions end (the operator role is
// checked at sign-in only, so a deleted operator would otherwise keep the
// console until the session expired).
func (c *Console) forgetAccount(tx *actors.Tx) (func(), error) {
	id := tx.ID()
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for k, s := range c.sessions {
			if s.id == id {
				delete(c.sessions, k)
			}
		}
	}, nil
}
