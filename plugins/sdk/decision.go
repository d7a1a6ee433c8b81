package sdk

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/proto"
)

// Codec converts a plain Go value to and from its wire bytes (a serialized
// protobuf message of the area's .proto file). Unmarshal checks shape
// (lengths, ranges) so a malformed message never becomes a Go value.
type Codec[T any] struct {
	Marshal   func(T) ([]byte, error)
	Unmarshal func([]byte) (T, error)

	message func() proto.Message // the message T travels as (nil: unknown), for State.Message
}

// ProtoCodec builds a Codec from an area's converters between T and its
// protobuf message M. newM returns an empty message.
func ProtoCodec[T any, M proto.Message](to func(T) M, from func(M) (T, error), newM func() M) Codec[T] {
	return Codec[T]{
		Marshal: func(v T) ([]byte, error) { return proto.Marshal(to(v)) },
		Unmarshal: func(b []byte) (T, error) {
			m := newM()
			if err := proto.Unmarshal(b, m); err != nil {
				var zero T
				return zero, err
			}
			return from(m)
		},
		message: func() proto.Message { return newM() },
	}
}

// DecisionDef declares one decision of an area. F is the plain Go type of
// its facts and D of its decision.
type DecisionDef[F, D any] struct {
	Area    Area
	Name    string // short name; the full name is "<area>.<name>"
	Version uint32 // bump on an incompatible change of F or D
	Facts   Codec[F]
	Result  Codec[D]
	// CheckFacts reports malformed facts (an error wrapping
	// ErrInvalidFacts); nil accepts any. Both sides run it.
	CheckFacts func(F) error
	// Check is the host's check of a decision against its facts (an error
	// wrapping ErrInvalidDecision). The host never applies a decision that
	// fails it, and never alters one that passes.
	Check func(F, D) error
}

// Decision is a registered decision: what both sides use to call it.
type Decision[F, D any] struct {
	def  DecisionDef[F, D]
	name string
}

// NewDecision registers a decision of a registered area. Call it once, in a
// package-level var next to F and D.
func NewDecision[F, D any](def DecisionDef[F, D]) *Decision[F, D] {
	if def.Facts.Marshal == nil || def.Result.Marshal == nil || def.Check == nil {
		panic("sdk: decision " + def.Name + " needs codecs and a Check")
	}
	return &Decision[F, D]{def: def, name: registerDecision(def.Area, def.Name, def.Version)}
}

// Name is the full decision name, "<area>.<name>".
func (d *Decision[F, D]) Name() string { return d.name }

// Area is the decision's area.
func (d *Decision[F, D]) Area() Area { return d.def.Area }

// Call is what a plugin gets for one decision: the facts and the plugin's
// own state for this (area, account), nil before the first applied decision.
type Call[F any] struct {
	Facts F
	State []byte
}

// Result is a plugin's answer: the decision and the new state, which
// replaces the stored one when the host applies the decision (empty clears
// it; a stateless plugin returns none).
type Result[D any] struct {
	Decision D
	State    []byte
}

// RawResult is a Result on the wire.
type RawResult struct {
	Decision, State []byte
}

// Caller carries one decision to a plugin: the supervisor (a running plugin
// process), a *Client (a gRPC connection), or a *Plugin itself (in process,
// for tests). Errors wrap ErrInvalidFacts, ErrUnavailable or
// ErrPluginFailed.
type Caller interface {
	Decide(ctx context.Context, decision string, facts, state []byte) (RawResult, error)
}

// MaxStateBytes bounds the state a plugin may keep per (area, account); a
// larger state refuses the decision.
const MaxStateBytes = 64 << 10

// Decide asks c for a decision on call, bounded by ctx, and checks it. A
// returned decision passed Check and is to be applied exactly as given, or
// refused; the returned error wraps one of the sentinel errors.
func (d *Decision[F, D]) Decide(ctx context.Context, c Caller, call Call[F]) (Result[D], error) {
	var zero Result[D]
	if c == nil {
		return zero, fmt.Errorf("%w: no plugin for %s", ErrUnavailable, d.name)
	}
	if d.def.CheckFacts != nil {
		if err := d.def.CheckFacts(call.Facts); err != nil {
			return zero, err
		}
	}
	facts, err := d.def.Facts.Marshal(call.Facts)
	if err != nil {
		return zero, fmt.Errorf("%w: %s: %w", ErrInvalidFacts, d.name, err)
	}
	raw, err := c.Decide(ctx, d.name, facts, call.State)
	if err != nil {
		return zero, err
	}
	if len(raw.State) > MaxStateBytes {
		return zero, fmt.Errorf("%w: %s: state of %d bytes, at most %d", ErrInvalidDecision, d.name, len(raw.State), MaxStateBytes)
	}
	dec, err := d.def.Result.Unmarshal(raw.Decision)
	if err != nil {
		return zero, fmt.Errorf("%w: %s: %w", ErrInvalidDecision, d.name, err)
	}
	if err := d.def.Check(call.Facts, dec); err != nil {
		return zero, fmt.Errorf("%s: %w", d.name, err)
	}
	return Result[D]{Decision: dec, State: raw.State}, nil
}

// handler is the plugin side of one decision: bytes in, bytes out.
type handler struct {
	version uint32
	fn      func(ctx context.Context, facts, state []byte) (RawResult, error)
}

// Handle makes p serve decision d with fn. fn gets facts that passed
// CheckFacts; its errors should wrap a sentinel (ErrInvalidFacts,
// ErrUnavailable); any other error reaches the host as ErrPluginFailed.
func Handle[F, D any](p *Plugin, d *Decision[F, D], fn func(ctx context.Context, c Call[F]) (Result[D], error)) {
	if p.handlers == nil {
		p.handlers = map[string]handler{}
	}
	p.handlers[d.name] = handler{version: d.def.Version, fn: func(ctx context.Context, facts, state []byte) (RawResult, error) {
		f, err := d.def.Facts.Unmarshal(facts)
		if err != nil {
			return RawResult{}, fmt.Errorf("%w: %s: %w", ErrInvalidFacts, d.name, err)
		}
		if d.def.CheckFacts != nil {
			if err := d.def.CheckFacts(f); err != nil {
				return RawResult{}, err
			}
		}
		res, err := fn(ctx, Call[F]{Facts: f, State: state})
		if err != nil {
			return RawResult{}, err
		}
		b, err := d.def.Result.Marshal(res.Decision)
		if err != nil {
			return RawResult{}, fmt.Errorf("%w: %s: encode decision: %w", ErrPluginFailed, d.name, err)
		}
		return RawResult{Decision: b, State: res.State}, nil
	}}
}
