package detail_test

import (
	"errors"
	"fmt"

	"github.com/honmaster/masterserver/host/failure/detail"
)

// ErrBadGrant is a kind: callers match it with errors.Is.
var ErrBadGrant = errors.New("accounts: bad grant")

func Example() {
	err := detail.New(ErrBadGrant, "upgrade %q is not <type>.<name>", "nodot")
	err = fmt.Errorf("grant to bob: %w", err) // wrapped on its way up

	fmt.Println(errors.Is(err, ErrBadGrant))
	if d, ok := detail.Of(err, ErrBadGrant); ok {
		fmt.Println("grant refused, nothing changed: " + d)
	}
	// Output:
	// true
	// grant refused, nothing changed: upgrade "nodot" is not <type>.<name>
}
