package sdk

import (
	"context"
	"fmt"
	"sync/atomic"

	"google.golang.org/protobuf/proto"
)

// State is an area's per-account state as its contract declares it: the
// Go type S, stored as the bytes of the contract's message (Call.State
// in, Result.State out), whichever program keeps it. The host's commands
// read it (host/area.StateCommand), the host checks every state a plugin
// returns against it (host/area.Decide), and a plugin reads and writes it
// with HandleState. Declare it once in the contract, beside S:
//
//	var Schema = sdk.NewState(Area, sdk.StructCodec[State](func() *coinflippb.State { return new(coinflippb.State) }),
//		func(s State) error { ... }) // what a state must satisfy
type State[S any] struct {
	area  Area
	codec Codec[S]
	check func(S) error
}

// NewState declares area's per-account state: codec reads and writes it
// (StructCodec or ProtoCodec: its message is what the host's commands
// print), check is what a decoded state must satisfy (nil: anything that
// decodes).
func NewState[S any](area Area, codec Codec[S], check func(S) error) *State[S] {
	if codec.Marshal == nil || codec.Unmarshal == nil {
		panic(fmt.Sprintf("sdk: the state of %s needs a codec", area))
	}
	return &State[S]{area: area, codec: codec, check: check}
}

// Area is the state's area.
func (st *State[S]) Area() Area { return st.area }

// Encode returns the state's bytes; the zero state of a message of
// scalars is no bytes.
func (st *State[S]) Encode(s S) ([]byte, error) { return st.codec.Marshal(s) }

// Decode reads a state's bytes; no bytes are the zero state. Bytes that
// are no state, or a state its check refuses, are an error wrapping
// ErrInvalidDecision: a plugin's result keeping such a state is refused.
func (st *State[S]) Decode(b []byte) (S, error) {
	s, err := st.codec.Unmarshal(b)
	if err == nil && st.check != nil {
		err = st.check(s)
	}
	if err != nil {
		var zero S
		return zero, fmt.Errorf("%w: %s state: %w", ErrInvalidDecision, st.area, err)
	}
	return s, nil
}

// Message returns the state's bytes as the contract's message, for a
// reader that prints it; nil when the codec has no message (a Codec
// written by hand).
func (st *State[S]) Message(b []byte) (proto.Message, error) {
	if _, err := st.Decode(b); err != nil {
		return nil, err
	}
	if st.codec.message == nil {
		return nil, nil
	}
	m := st.codec.message()
	if err := proto.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("%w: %s state: %w", ErrInvalidDecision, st.area, err)
	}
	return m, nil
}

// HandleState makes p serve decision d with fn, a rule on the facts and
// the account's state st: the host's bytes are decoded before fn (a state
// that does not decode fails the call, ErrInvalidFacts) and fn's next
// state is encoded after it. It is Handle for the common plugin that
// keeps its area's state.
func HandleState[F, D, S any](p *Plugin, d *Decision[F, D], st *State[S], fn func(ctx context.Context, facts F, state S) (D, S, error)) {
	Handle(p, d, func(ctx context.Context, c Call[F]) (Result[D], error) {
		s, err := st.Decode(c.State)
		if err != nil { // the host's input: invalid facts, as they cross the wire
			return Result[D]{}, fmt.Errorf("%w: %w", ErrInvalidFacts, err)
		}
		dec, next, err := fn(ctx, c.Facts, s)
		if err != nil {
			return Result[D]{}, err
		}
		b, err := st.Encode(next)
		if err != nil {
			return Result[D]{}, fmt.Errorf("%w: %s: encode state: %w", ErrPluginFailed, d.name, err)
		}
		return Result[D]{Decision: dec, State: b}, nil
	})
}

// Configured is a plugin's configuration of type C, adopted by
// Configure (DecodeConfig into a copy of the defaults) and read by its
// rules with Get, safely while a reconfiguration runs:
//
//	cfg := sdk.NewConfigured(DefaultConfig)
//	p := &sdk.Plugin{Name: "coinflip", Version: "1.0.0", Configure: cfg.Configure}
//	... cfg.Get().Odds ...
type Configured[C any] struct {
	defaults C
	cur      atomic.Pointer[C]
}

// NewConfigured returns the configuration, defaults in force until
// Configure adopts another.
func NewConfigured[C any](defaults C) *Configured[C] {
	c := &Configured[C]{defaults: defaults}
	c.cur.Store(&defaults)
	return c
}

// Get returns the configuration in force.
func (c *Configured[C]) Get() C { return *c.cur.Load() }

// Configure is a Plugin.Configure (ConfigureWith the defaults): the
// operator's table decoded strictly, checked by C's Validate when *C is a
// ConfigValidator, and adopted only when it has no problem.
func (c *Configured[C]) Configure(ctx context.Context, area Area, cfg map[string]any) []ConfigProblem {
	return ConfigureWith(c.defaults, func(v C) { c.cur.Store(&v) })(ctx, area, cfg)
}
