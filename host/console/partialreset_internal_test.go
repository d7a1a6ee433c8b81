package console

import (
	"fmt"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/failure"
	"github.com/honmaster/masterserver/host/login"
)

// A reset that happened, its sessions of the main account's other accounts
// then failing to end, was worded by that failure: "nothing was changed,
// try again". It says the password was reset. (From a second review.)
func TestAResetThatHappenedSaysSo(t *testing.T) {
	for _, cause := range []error{actors.ErrExpired, actors.ErrStopped} {
		err := &login.PartialReset{Ended: 1, Err: failure.New(login.ReasonInternal, fmt.Errorf("end sessions: %w", cause))}
		msg := operatorError(fmt.Errorf("reset: %w", err))
		if !strings.HasPrefix(msg, "the password was reset and 1 game sessions ended") {
			t.Errorf("a reset that happened, then %v: the operator reads %q", cause, msg)
		}
	}
}
