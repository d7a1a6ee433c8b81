package sdk

import (
	"fmt"
	"reflect"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// StructCodec is a Codec between a plain Go struct T and the protobuf
// message M that mirrors it, field for field, so that a contract writes
// no converters:
//
//	Facts: sdk.StructCodec[FlipFacts](func() *coinflippb.FlipFacts { return new(coinflippb.FlipFacts) }),
//
// Each exported field of T is the message's field of the same name,
// compared without case and underscores (AccountID is account_id), and of
// the same scalar kind: bool; int32 (int32, sint32, sfixed32); int64 or
// int (int64, sint64, sfixed64); uint32 (uint32, fixed32); uint64
// (uint64, fixed64); float32 (float); float64 (double); string; []byte
// (bytes). A named Go type of one of those kinds is accepted. T and M must
// mirror each other exactly, both ways: a field of either without its
// match, of another kind, an unexported field of T, or a repeated, map or
// message field of M panics when StructCodec is called, at package
// initialisation (a programming error any test of the contract catches).
// An area whose Go types differ from its messages (a list, a nested
// message, a check while converting) writes its converters with
// ProtoCodec.
func StructCodec[T any, M proto.Message](newM func() M) Codec[T] {
	t := reflect.TypeFor[T]()
	md := newM().ProtoReflect().Descriptor()
	fail := func(format string, args ...any) {
		panic(fmt.Sprintf("sdk: StructCodec[%s, %s]: %s", t, md.FullName(), fmt.Sprintf(format, args...)))
	}
	if t.Kind() != reflect.Struct {
		fail("%s is not a struct", t)
	}
	type pair struct {
		index int
		fd    protoreflect.FieldDescriptor
	}
	fold := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "")) }
	byName := map[string]protoreflect.FieldDescriptor{}
	for i := 0; i < md.Fields().Len(); i++ {
		fd := md.Fields().Get(i)
		byName[fold(string(fd.Name()))] = fd
	}
	var pairs []pair
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		fd, ok := byName[fold(f.Name)]
		switch {
		case !f.IsExported():
			fail("field %s is unexported", f.Name)
		case !ok:
			fail("field %s has no field of the message", f.Name)
		case fd.Cardinality() == protoreflect.Repeated || fd.IsMap() || !sameKind(f.Type, fd.Kind()):
			fail("field %s (%s) does not match %s (%s)", f.Name, f.Type, fd.Name(), fd.Kind())
		}
		delete(byName, fold(f.Name))
		pairs = append(pairs, pair{i, fd})
	}
	for _, fd := range byName {
		fail("the message's field %s has no field of %s", fd.Name(), t)
	}
	return Codec[T]{
		Marshal: func(v T) ([]byte, error) {
			m := newM()
			r, rv := m.ProtoReflect(), reflect.ValueOf(v)
			for _, p := range pairs {
				r.Set(p.fd, toProtoValue(rv.Field(p.index)))
			}
			return proto.Marshal(m)
		},
		Unmarshal: func(b []byte) (T, error) {
			var v T
			m := newM()
			if err := proto.Unmarshal(b, m); err != nil {
				return v, err
			}
			r, rv := m.ProtoReflect(), reflect.ValueOf(&v).Elem()
			for _, p := range pairs {
				fromProtoValue(rv.Field(p.index), r.Get(p.fd))
			}
			return v, nil
		},
		message: func() proto.Message { return newM() },
	}
}

// sameKind reports whether a Go field of type t holds a message field of
// kind k (see StructCodec).
func sameKind(t reflect.Type, k protoreflect.Kind) bool {
	switch t.Kind() {
	case reflect.Bool:
		return k == protoreflect.BoolKind
	case reflect.Int32:
		return k == protoreflect.Int32Kind || k == protoreflect.Sint32Kind || k == protoreflect.Sfixed32Kind
	case reflect.Int64, reflect.Int:
		return k == protoreflect.Int64Kind || k == protoreflect.Sint64Kind || k == protoreflect.Sfixed64Kind
	case reflect.Uint32:
		return k == protoreflect.Uint32Kind || k == protoreflect.Fixed32Kind
	case reflect.Uint64:
		return k == protoreflect.Uint64Kind || k == protoreflect.Fixed64Kind
	case reflect.Float32:
		return k == protoreflect.FloatKind
	case reflect.Float64:
		return k == protoreflect.DoubleKind
	case reflect.String:
		return k == protoreflect.StringKind
	case reflect.Slice:
		return t.Elem().Kind() == reflect.Uint8 && k == protoreflect.BytesKind
	}
	return false
}

func toProtoValue(f reflect.Value) protoreflect.Value {
	switch f.Kind() {
	case reflect.Bool:
		return protoreflect.ValueOfBool(f.Bool())
	case reflect.Int32:
		return protoreflect.ValueOfInt32(int32(f.Int()))
	case reflect.Int64, reflect.Int:
		return protoreflect.ValueOfInt64(f.Int())
	case reflect.Uint32:
		return protoreflect.ValueOfUint32(uint32(f.Uint()))
	case reflect.Uint64:
		return protoreflect.ValueOfUint64(f.Uint())
	case reflect.Float32:
		return protoreflect.ValueOfFloat32(float32(f.Float()))
	case reflect.Float64:
		return protoreflect.ValueOfFloat64(f.Float())
	case reflect.String:
		return protoreflect.ValueOfString(f.String())
	}
	return protoreflect.ValueOfBytes(f.Bytes())
}

func fromProtoValue(f reflect.Value, v protoreflect.Value) {
	switch f.Kind() {
	case reflect.Bool:
		f.SetBool(v.Bool())
	case reflect.Int32, reflect.Int64, reflect.Int:
		f.SetInt(v.Int())
	case reflect.Uint32, reflect.Uint64:
		f.SetUint(v.Uint())
	case reflect.Float32, reflect.Float64:
		f.SetFloat(v.Float())
	case reflect.String:
		f.SetString(v.String())
	default:
		if b := v.Bytes(); len(b) > 0 {
			f.SetBytes(append([]byte(nil), b...))
		}
	}
}
