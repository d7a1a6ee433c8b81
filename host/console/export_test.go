package console

// SetBeforePasswordCheck makes every sign-in call f just before its
// password check (tests hold sign-ins there to have them in flight
// together).
func (c *Console) SetBeforePasswordCheck(f func()) { c.beforeCheck = f }
