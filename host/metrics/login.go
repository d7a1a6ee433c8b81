package metrics

import (
	"github.com/honmaster/masterserver/host/failure"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/wire"
)

// loginFailureBody is the exact reply body of a login failure for r.
func loginFailureBody(r login.Reason) ([]byte, error) {
	return wire.Marshal(login.Failure(failure.New(r, nil)))
}
