package console

// SetBeforePasswordCheck makes every sign-in call f just before its
// password check (tests hold sign-ins there to have them in flight
// together).
func (c *Console) SetBeforePasswordCheck(f func()) { c.beforeCheck = f }

// SignInKeys returns how many keys the sign-in limiters track, per address
// and per login.
func (c *Console) SignInKeys() (byAddr, byLogin int) {
	return c.signIns.byAddr.Len(), c.signIns.byLogin.Len()
}
