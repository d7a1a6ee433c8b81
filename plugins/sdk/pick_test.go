package sdk

import (
	"fmt"

	"google.golang.org/protobuf/types/known/wrapperspb"
)

// The SDK's tests run on an area of their own, as any area's contract
// would be declared (the SDK knows no real area): "test", with one
// decision "test.pick" that picks one of the facts' options. Its messages
// are protobuf's well-known wrappers, so the cross-language test can serve
// it with generated code only. Exported for the external tests.

// PickArea is the tests' area.
var PickArea = RegisterArea("test")

// PickFacts are the options to pick from, one byte each.
type PickFacts struct {
	Options []byte
}

// PickDecision is the index of the picked option.
type PickDecision struct {
	Index int
}

// Pick is the tests' decision. Facts with no option are malformed; a
// decision must index an option.
var Pick = NewDecision(DecisionDef[PickFacts, PickDecision]{
	Area: PickArea, Name: "pick", Version: 1,
	Facts: ProtoCodec(
		func(f PickFacts) *wrapperspb.BytesValue { return wrapperspb.Bytes(f.Options) },
		func(m *wrapperspb.BytesValue) (PickFacts, error) { return PickFacts{Options: m.GetValue()}, nil },
		func() *wrapperspb.BytesValue { return &wrapperspb.BytesValue{} }),
	Result: ProtoCodec(
		func(d PickDecision) *wrapperspb.Int64Value { return wrapperspb.Int64(int64(d.Index)) },
		func(m *wrapperspb.Int64Value) (PickDecision, error) {
			return PickDecision{Index: int(m.GetValue())}, nil
		},
		func() *wrapperspb.Int64Value { return &wrapperspb.Int64Value{} }),
	CheckFacts: func(f PickFacts) error {
		if len(f.Options) == 0 {
			return fmt.Errorf("%w: no option to pick", ErrInvalidFacts)
		}
		return nil
	},
	Check: func(f PickFacts, d PickDecision) error {
		if d.Index < 0 || d.Index >= len(f.Options) {
			return fmt.Errorf("%w: index %d of %d options", ErrInvalidDecision, d.Index, len(f.Options))
		}
		return nil
	},
})
