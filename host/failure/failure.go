// Package failure provides the error type areas use for a failed call: a
// reason the client is told (one table of messages per area) and a cause
// that only reaches the logs.
package failure

import "errors"

// Reason is an area's failure reason: comparable, with its client-facing
// message and the area's name (prefixed to error texts in logs).
type Reason interface {
	comparable
	Message() string
	Area() string
}

// Error is a failure with its reason; the cause, if any, is for logs only.
type Error[R Reason] struct {
	Reason R
	Cause  error
}

func (e *Error[R]) Error() string {
	if e.Cause != nil {
		return e.Reason.Area() + ": " + e.Reason.Message() + ": " + e.Cause.Error()
	}
	return e.Reason.Area() + ": " + e.Reason.Message()
}

func (e *Error[R]) Unwrap() error { return e.Cause }

// Is matches a target of the same reason without a cause, so that a sentinel
// like &Error[R]{Reason: r} matches every failure for reason r.
func (e *Error[R]) Is(target error) bool {
	t, ok := target.(*Error[R])
	return ok && t.Cause == nil && t.Reason == e.Reason
}

// New returns a failure for reason r caused by cause (which may be nil).
func New[R Reason](r R, cause error) error { return &Error[R]{Reason: r, Cause: cause} }

// ReasonOf returns the reason of err when it is a failure of this area, and
// fallback otherwise.
func ReasonOf[R Reason](err error, fallback R) R {
	var e *Error[R]
	if errors.As(err, &e) {
		return e.Reason
	}
	return fallback
}
