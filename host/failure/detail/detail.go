// Package detail provides errors of a kind (a sentinel error) that carry
// the specifics a person reads: "grant refused, nothing changed" is the
// kind's sentence, "gold balance would go negative (it holds 1, the grant
// adds -2)" the detail. A command takes the detail with Of, by type, so
// that wrapping the error ("import: ...") cannot change what the operator
// reads, as cutting the kind's text off the error's text did.
//
// The package imports only the standard library (a test keeps it so):
// storage, the lowest layer of the module, uses it for its own kinds
// without depending on the rest of host.
package detail

import (
	"errors"
	"fmt"
)

// Error is an error of kind Kind with the specifics Detail. Its text is
// Kind's text, ": ", and Detail, like fmt.Errorf("%w: ...", Kind) made.
type Error struct {
	// Kind is the sentinel the error is of: errors.Is(err, Kind) holds.
	Kind error
	// Detail is the specifics, worded for a person.
	Detail string
	// Cause is what the detail wraps (a %w of New), reachable by
	// errors.Is and errors.As; nil when none.
	Cause error
}

func (e *Error) Error() string { return e.Kind.Error() + ": " + e.Detail }

// Unwrap returns the kind, then the cause if any.
func (e *Error) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Cause}
}

// New returns an error of kind whose detail is format's text. As with
// fmt.Errorf, a %w verb in format wraps its operand: it becomes the Cause.
func New(kind error, format string, args ...any) error {
	d := fmt.Errorf(format, args...)
	e := &Error{Kind: kind, Detail: d.Error()}
	switch d.(type) {
	case interface{ Unwrap() error }, interface{ Unwrap() []error }:
		e.Cause = d
	}
	return e
}

// Of returns the detail of the first *Error of kind in err's tree (the
// order errors.Is walks it), and whether there is one. Errors of other
// kinds on the way are passed over: one of kind A may wrap one of kind B,
// and Of(err, B) finds the inner one. A Kind that wraps kind counts as
// kind (errors.Is(Kind, kind)).
func Of(err, kind error) (string, bool) {
	if e := find(err, kind); e != nil {
		return e.Detail, true
	}
	return "", false
}

// find walks err's tree depth first, as errors.Is does.
func find(err, kind error) *Error {
	for err != nil {
		if e, ok := err.(*Error); ok && errors.Is(e.Kind, kind) {
			return e
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, next := range u.Unwrap() {
				if e := find(next, kind); e != nil {
					return e
				}
			}
			return nil
		default:
			return nil
		}
	}
	return nil
}
