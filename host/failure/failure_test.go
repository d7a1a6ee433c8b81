package failure

import (
	"errors"
	"fmt"
	"testing"
)

type testReason int

const (
	reasonInternal testReason = iota
	reasonBad
)

func (r testReason) Message() string { return [...]string{"internal", "bad input"}[r] }
func (testReason) Area() string      { return "test" }

func TestFailure(t *testing.T) {
	cause := errors.New("field x")
	err := fmt.Errorf("wrapped: %w", New(reasonBad, cause))
	if got := ReasonOf(err, reasonInternal); got != reasonBad {
		t.Errorf("ReasonOf = %v", got)
	}
	if got := ReasonOf(errors.New("other"), reasonInternal); got != reasonInternal {
		t.Errorf("ReasonOf(other) = %v", got)
	}
	if !errors.Is(err, &Error[testReason]{Reason: reasonBad}) || errors.Is(err, &Error[testReason]{Reason: reasonInternal}) {
		t.Error("Is does not match by reason")
	}
	if !errors.Is(err, cause) {
		t.Error("cause not unwrapped")
	}
	if want := "wrapped: test: bad input: field x"; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	if got := New(reasonInternal, nil).Error(); got != "test: internal" {
		t.Errorf("Error() without cause = %q", got)
	}
}
