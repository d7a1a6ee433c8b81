package sdk

import (
	"bytes"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

type stamp struct {
	Seconds int64
	Nanos   int32
}

type tally int32 // a named type of a scalar kind

// TestStructCodecRoundTrips: the codec's bytes are the message's, and read
// back to the same value, for each scalar kind (the well-known types
// serve as messages).
func TestStructCodecRoundTrips(t *testing.T) {
	c := StructCodec[stamp](func() *timestamppb.Timestamp { return new(timestamppb.Timestamp) })
	b, err := c.Marshal(stamp{Seconds: -5, Nanos: 7})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := proto.Marshal(&timestamppb.Timestamp{Seconds: -5, Nanos: 7})
	if !bytes.Equal(b, want) {
		t.Errorf("bytes %x, want the message's %x", b, want)
	}
	if got, err := c.Unmarshal(b); err != nil || got != (stamp{Seconds: -5, Nanos: 7}) {
		t.Errorf("read back %+v, %v", got, err)
	}
	if _, err := c.Unmarshal([]byte{0xff}); err == nil {
		t.Error("garbage read without an error")
	}

	roundTrip(t, StructCodec[struct{ Value bool }](func() *wrapperspb.BoolValue { return new(wrapperspb.BoolValue) }), struct{ Value bool }{true})
	roundTrip(t, StructCodec[struct{ Value tally }](func() *wrapperspb.Int32Value { return new(wrapperspb.Int32Value) }), struct{ Value tally }{-3})
	roundTrip(t, StructCodec[struct{ Value uint32 }](func() *wrapperspb.UInt32Value { return new(wrapperspb.UInt32Value) }), struct{ Value uint32 }{9})
	roundTrip(t, StructCodec[struct{ Value uint64 }](func() *wrapperspb.UInt64Value { return new(wrapperspb.UInt64Value) }), struct{ Value uint64 }{1 << 40})
	roundTrip(t, StructCodec[struct{ Value float32 }](func() *wrapperspb.FloatValue { return new(wrapperspb.FloatValue) }), struct{ Value float32 }{0.5})
	roundTrip(t, StructCodec[struct{ Value float64 }](func() *wrapperspb.DoubleValue { return new(wrapperspb.DoubleValue) }), struct{ Value float64 }{0.25})
	roundTrip(t, StructCodec[struct{ Value string }](func() *wrapperspb.StringValue { return new(wrapperspb.StringValue) }), struct{ Value string }{"héllo"})
	b2 := StructCodec[struct{ Value []byte }](func() *wrapperspb.BytesValue { return new(wrapperspb.BytesValue) })
	if enc, err := b2.Marshal(struct{ Value []byte }{[]byte{1, 2}}); err != nil {
		t.Error(err)
	} else if got, err := b2.Unmarshal(enc); err != nil || !bytes.Equal(got.Value, []byte{1, 2}) {
		t.Errorf("bytes read back %v, %v", got, err)
	}
}

func roundTrip[T comparable](t *testing.T, c Codec[T], v T) {
	t.Helper()
	b, err := c.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := c.Unmarshal(b); err != nil || got != v {
		t.Errorf("%T: %+v read back as %+v, %v", v, v, got, err)
	}
}

// TestStructCodecRefusesWhatDoesNotMirror: a struct that is not the
// message's mirror panics when the codec is made, naming the field.
func TestStructCodecRefusesWhatDoesNotMirror(t *testing.T) {
	newTS := func() *timestamppb.Timestamp { return new(timestamppb.Timestamp) }
	for name, tc := range map[string]struct {
		make func()
		want string
	}{
		"missing field": {func() { StructCodec[struct{ Seconds int64 }](newTS) }, "field nanos has no field"},
		"extra field": {func() {
			StructCodec[struct {
				Seconds, Extra int64
				Nanos          int32
			}](newTS)
		}, "field Extra has no field of the message"},
		"other kind": {func() {
			StructCodec[struct {
				Seconds string
				Nanos   int32
			}](newTS)
		}, "field Seconds (string) does not match seconds (int64)"},
		"unexported": {func() {
			StructCodec[struct {
				seconds int64
				Nanos   int32
			}](newTS)
		}, "field seconds is unexported"},
		"not a struct": {func() { StructCodec[int](newTS) }, "int is not a struct"},
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(r.(string), tc.want) {
					t.Errorf("panic %v, want one saying %q", r, tc.want)
				}
			}()
			tc.make()
		})
	}
}
