package sdk

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Sentinel errors. They survive the process boundary: a plugin's error is
// sent as a gRPC status code (see toStatus) and the host side maps the code
// back to the sentinel (see fromStatus), so callers use errors.Is and never
// look at the text.
var (
	// ErrInvalidFacts: the facts given to a decider are malformed (negative
	// counts, unknown currency, ...). Sent as codes.InvalidArgument.
	ErrInvalidFacts = errors.New("plugin: invalid facts")
	// ErrInvalidDecision: a decider returned a decision that breaks the
	// contract for the given facts. The host must not apply it.
	ErrInvalidDecision = errors.New("plugin: invalid decision")
	// ErrUnavailable: the plugin is dead, restarting, unreachable or did not
	// answer in time. Sent as codes.Unavailable; a transport failure also
	// maps here.
	ErrUnavailable = errors.New("plugin: unavailable")
	// ErrNotRunning: no plugin was running (dead, restarting, not yet
	// started), so the call was never made; it comes with ErrUnavailable.
	// A caller that charges a budget for what a plugin is asked may give
	// the charge back.
	ErrNotRunning = errors.New("plugin: not running")
	// ErrPluginFailed: the plugin failed while deciding (a bug or an
	// unexpected condition inside the plugin). Sent as codes.Internal.
	ErrPluginFailed = errors.New("plugin: internal failure")
)

// toStatus converts an error returned by an implementation into a gRPC
// status error for the wire.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	code := codes.Internal
	switch {
	case errors.Is(err, ErrInvalidFacts):
		code = codes.InvalidArgument
	case errors.Is(err, ErrUnavailable):
		code = codes.Unavailable
	case errors.Is(err, context.DeadlineExceeded):
		code = codes.DeadlineExceeded
	case errors.Is(err, context.Canceled):
		code = codes.Canceled
	}
	return status.Error(code, err.Error())
}

// fromStatus converts an error from a gRPC call made with ctx into an error
// wrapping the matching sentinel. The status message is kept for humans.
func fromStatus(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		// Not from gRPC: a client-side conversion error or a context error.
		if errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		return err
	}
	msg := st.Message()
	switch st.Code() {
	case codes.InvalidArgument:
		return fmt.Errorf("%w: %s", ErrInvalidFacts, msg)
	case codes.Unavailable:
		return fmt.Errorf("%w: %s", ErrUnavailable, msg)
	case codes.DeadlineExceeded:
		return fmt.Errorf("%w: %w: %s", ErrUnavailable, context.DeadlineExceeded, msg)
	case codes.Canceled:
		if ctx.Err() == nil {
			// The caller did not cancel: the connection was closed under
			// the call (the host is tearing down a dead plugin).
			return fmt.Errorf("%w: %s", ErrUnavailable, msg)
		}
		return fmt.Errorf("%w: %s", context.Canceled, msg)
	default:
		return fmt.Errorf("%w: %s: %s", ErrPluginFailed, st.Code(), msg)
	}
}
