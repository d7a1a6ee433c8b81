package wire

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// MaxDepth is the deepest nesting of arrays that Marshal writes and
// Unmarshal reads. Replies of the service are a few levels deep; the
// limit turns a pointer cycle or a hostile input into an error instead of
// a stack overflow.
const MaxDepth = 64

// Errors returned by Marshal, matched with errors.Is.
var (
	// ErrUnsupportedType: a Go type with no PHP form (func, chan, complex,
	// a map whose key is neither a string nor an integer...).
	ErrUnsupportedType = errors.New("wire: unsupported type")
	// ErrUnsupportedValue: a value PHP cannot hold (an unsigned integer
	// above math.MaxInt64) or nesting deeper than MaxDepth.
	ErrUnsupportedValue = errors.New("wire: unsupported value")
	// ErrStructTag: a struct field without a php tag, a malformed tag, or
	// two fields with the same PHP key.
	ErrStructTag = errors.New("wire: bad struct tag")
)

// Marshaler is implemented by types that write their own serialized form.
// AppendPHP appends exactly one complete PHP value to dst.
type Marshaler interface {
	AppendPHP(dst []byte) ([]byte, error)
}

// Extras, embedded in a reply struct, adds the two trailing entries that most
// replies of the original service carry and clients ignore:
// "vested_threshold" => 5 and 0 => true. They are written where Extras is
// declared, so embed it as the last field. Marshal(Extras{}) alone gives
// an array of just those two entries.
type Extras struct{}

// extrasEntries is the serialized form of the two extras, without the array
// header; it counts for two entries.
const extrasEntries = `s:16:"vested_threshold";i:5;i:0;b:1;`

// Marshal returns the PHP serialize() form of v. See the package
// documentation for how Go values map to PHP values.
//
// The result is allocated once at its exact size: the value is encoded into
// a reused scratch buffer first, so a reply of a few hundred bytes does not
// cost the 128-, 256- and 512-byte buffers it would grow through.
func Marshal(v any) ([]byte, error) {
	sp := scratches.Get().(*[]byte)
	b, err := AppendMarshal((*sp)[:0], v)
	var out []byte
	if err == nil {
		out = append(make([]byte, 0, len(b)), b...)
	}
	if cap(b) <= maxScratch {
		*sp = b[:0]
		scratches.Put(sp)
	}
	return out, err
}

// maxScratch bounds the encoding buffers Marshal keeps for reuse, so one
// large reply does not pin its buffer.
const maxScratch = 64 << 10

var scratches = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// AppendMarshal appends the PHP serialize() form of v to dst and returns the
// extended buffer. On error the returned buffer is dst with unspecified bytes
// appended; callers should discard it.
func AppendMarshal(dst []byte, v any) ([]byte, error) {
	return appendAny(dst, v, 0)
}

// appendAny serves the common dynamic types (those found in *Array values)
// without going through reflection.
func appendAny(dst []byte, v any, depth int) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, "N;"...), nil
	case string:
		return appendString(dst, x), nil
	case int:
		return appendInt(dst, int64(x)), nil
	case int64:
		return appendInt(dst, x), nil
	case bool:
		return appendBool(dst, x), nil
	case float64:
		return appendFloat(dst, x, 64), nil
	case []byte:
		return appendBytes(dst, x), nil
	case *Array:
		if x == nil {
			return append(dst, "N;"...), nil
		}
		return x.appendPHP(dst, depth)
	case Marshaler:
		return appendMarshaler(dst, x)
	}
	return appendValue(dst, reflect.ValueOf(v), depth)
}

var (
	marshalerType = reflect.TypeFor[Marshaler]()
	arrayPtrType  = reflect.TypeFor[*Array]()
	arrayType     = reflect.TypeFor[Array]()
	extrasType    = reflect.TypeFor[Extras]()
)

func appendMarshaler(dst []byte, m Marshaler) ([]byte, error) {
	if rv := reflect.ValueOf(m); rv.Kind() == reflect.Pointer && rv.IsNil() {
		return append(dst, "N;"...), nil
	}
	return m.AppendPHP(dst)
}

// How a type implements Marshaler: not at all, with its value (a
// non-interface type), or only with a pointer to it.
const (
	notMarshaler = iota
	byValue
	byPointer
)

// marshalers caches marshalerOf's answers by reflect.Type: Implements and
// PointerTo were a quarter of encoding a login reply's forty fields.
var marshalers sync.Map

// marshalerOf reports how t implements Marshaler.
func marshalerOf(t reflect.Type) int {
	if m, ok := marshalers.Load(t); ok {
		return m.(int)
	}
	m := notMarshaler
	switch {
	case t.Kind() != reflect.Interface && t.Implements(marshalerType):
		m = byValue
	case reflect.PointerTo(t).Implements(marshalerType):
		m = byPointer
	}
	marshalers.Store(t, m)
	return m
}

func appendValue(dst []byte, v reflect.Value, depth int) ([]byte, error) {
	return appendHop(dst, v, depth, 0)
}

// appendHop is appendValue of a value reached through hops pointers or
// interfaces in a row: they nest no array, so depth does not bound them,
// and a cycle made of them alone (var x any; x = &x) overflowed the stack,
// a crash no recover catches. At MaxDepth hops the value is refused.
func appendHop(dst []byte, v reflect.Value, depth, hops int) ([]byte, error) {
	if !v.IsValid() {
		return append(dst, "N;"...), nil
	}
	t := v.Type()
	switch t {
	case arrayPtrType:
		if v.IsNil() {
			return append(dst, "N;"...), nil
		}
		return v.Interface().(*Array).appendPHP(dst, depth)
	case arrayType:
		// An Array held by value (a field, an entry): its methods are
		// on the pointer, and its fields unexported, so it was written as
		// an empty struct, a:0:{}, with no error.
		if v.CanAddr() {
			return v.Addr().Interface().(*Array).appendPHP(dst, depth)
		}
		if v.CanInterface() {
			a := v.Interface().(Array)
			return a.appendPHP(dst, depth)
		}
	}
	// CanInterface is false only for values reached through unexported
	// fields, which are never encoded; checking keeps Interface from
	// panicking should one slip through.
	switch marshalerOf(t) {
	case byValue:
		if v.CanInterface() {
			if t.Kind() == reflect.Pointer && v.IsNil() {
				return append(dst, "N;"...), nil
			}
			return v.Interface().(Marshaler).AppendPHP(dst)
		}
	case byPointer:
		if v.CanAddr() && v.CanInterface() {
			return v.Addr().Interface().(Marshaler).AppendPHP(dst)
		}
	}

	switch v.Kind() {
	case reflect.Bool:
		return appendBool(dst, v.Bool()), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return appendInt(dst, v.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		u := v.Uint()
		if u > math.MaxInt64 {
			return dst, fmt.Errorf("%w: %d overflows a PHP integer", ErrUnsupportedValue, u)
		}
		return appendInt(dst, int64(u)), nil
	case reflect.Float32:
		return appendFloat(dst, v.Float(), 32), nil
	case reflect.Float64:
		return appendFloat(dst, v.Float(), 64), nil
	case reflect.String:
		return appendString(dst, v.String()), nil
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return append(dst, "N;"...), nil
		}
		if hops >= MaxDepth {
			return dst, fmt.Errorf("%w: %d pointers or interfaces in a row (a pointer cycle?)", ErrUnsupportedValue, hops)
		}
		return appendHop(dst, v.Elem(), depth, hops+1)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !t.Elem().Implements(marshalerType) {
			return appendBytes(dst, v.Bytes()), nil
		}
		return appendList(dst, v, depth)
	case reflect.Array:
		return appendList(dst, v, depth)
	case reflect.Map:
		return appendMap(dst, v, depth)
	case reflect.Struct:
		return appendStruct(dst, v, depth)
	}
	return dst, fmt.Errorf("%w: %s", ErrUnsupportedType, t)
}

func enter(depth int) (int, error) {
	depth++
	if depth > MaxDepth {
		return depth, fmt.Errorf("%w: nesting deeper than %d (a pointer cycle?)", ErrUnsupportedValue, MaxDepth)
	}
	return depth, nil
}

func appendBool(dst []byte, b bool) []byte {
	if b {
		return append(dst, "b:1;"...)
	}
	return append(dst, "b:0;"...)
}

func appendInt(dst []byte, n int64) []byte {
	dst = append(dst, "i:"...)
	dst = strconv.AppendInt(dst, n, 10)
	return append(dst, ';')
}

func appendString(dst []byte, s string) []byte {
	dst = append(dst, "s:"...)
	dst = strconv.AppendInt(dst, int64(len(s)), 10)
	dst = append(dst, ':', '"')
	dst = append(dst, s...)
	return append(dst, '"', ';')
}

func appendBytes(dst []byte, b []byte) []byte {
	dst = append(dst, "s:"...)
	dst = strconv.AppendInt(dst, int64(len(b)), 10)
	dst = append(dst, ':', '"')
	dst = append(dst, b...)
	return append(dst, '"', ';')
}

func appendArrayHeader(dst []byte, n int) []byte {
	dst = append(dst, "a:"...)
	dst = strconv.AppendInt(dst, int64(n), 10)
	return append(dst, ':', '{')
}

// appendFloat writes d:<x>; as PHP 8 does with serialize_precision=-1:
// the shortest digits that round-trip, in fixed notation while the decimal
// point position is within [-3, 17], otherwise as <d>.<ddd>E<sign><exp>
// (a lone digit gets ".0"). A float32 is written with the shortest digits
// that identify the float32, so float32(0.1) gives d:0.1; rather than the
// digits of its exact float64 widening.
func appendFloat(dst []byte, f float64, bits int) []byte {
	dst = append(dst, "d:"...)
	switch {
	case math.IsNaN(f):
		return append(dst, "NAN;"...)
	case math.IsInf(f, 1):
		return append(dst, "INF;"...)
	case math.IsInf(f, -1):
		return append(dst, "-INF;"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0;"...)
		}
		return append(dst, "0;"...)
	}
	if f < 0 {
		dst = append(dst, '-')
		f = -f
	}
	// 'e' with precision -1 gives the shortest round-trip digits as
	// d.ddddde±XX; PHP lays out the same digits differently.
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, bits)
	mark := slices.Index(e, 'e')
	mantissa, expText := e[:mark], e[mark+1:]
	exp, _ := strconv.Atoi(string(expText)) // always a valid small integer
	var digitBuf [24]byte
	digits := append(digitBuf[:0], mantissa[0])
	if len(mantissa) > 2 {
		digits = append(digits, mantissa[2:]...)
	}
	decpt := exp + 1 // position of the decimal point relative to digits

	switch {
	case decpt < -3 || decpt > 17:
		dst = append(dst, digits[0], '.')
		if len(digits) > 1 {
			dst = append(dst, digits[1:]...)
		} else {
			dst = append(dst, '0')
		}
		dst = append(dst, 'E')
		if exp < 0 {
			dst = append(dst, '-')
			exp = -exp
		} else {
			dst = append(dst, '+')
		}
		dst = strconv.AppendInt(dst, int64(exp), 10)
	case decpt <= 0:
		dst = append(dst, '0', '.')
		for range -decpt {
			dst = append(dst, '0')
		}
		dst = append(dst, digits...)
	case decpt >= len(digits):
		dst = append(dst, digits...)
		for range decpt - len(digits) {
			dst = append(dst, '0')
		}
	default:
		dst = append(dst, digits[:decpt]...)
		dst = append(dst, '.')
		dst = append(dst, digits[decpt:]...)
	}
	return append(dst, ';')
}

func appendList(dst []byte, v reflect.Value, depth int) ([]byte, error) {
	depth, err := enter(depth)
	if err != nil {
		return dst, err
	}
	n := v.Len()
	dst = appendArrayHeader(dst, n)
	for i := range n {
		dst = appendInt(dst, int64(i))
		if dst, err = appendValue(dst, v.Index(i), depth); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// mapEntry is one map entry with its key in PHP form, for sorting; at is
// the entry's position in the copied values.
type mapEntry struct {
	key arrayKey
	at  int
}

// appendMap writes a Go map with its entries sorted (integer keys ascending,
// then string keys bytewise) because Go map order is random and replies
// must be reproducible byte for byte. String keys that PHP would turn into
// integers count as integers.
func appendMap(dst []byte, v reflect.Value, depth int) ([]byte, error) {
	depth, err := enter(depth)
	if err != nil {
		return dst, err
	}
	t := v.Type()
	kt := t.Key()
	switch kt.Kind() {
	case reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
	default:
		return dst, fmt.Errorf("%w: map key type %s", ErrUnsupportedType, kt)
	}
	n := v.Len()
	if n == 0 {
		return append(dst, "a:0:{}"...), nil
	}
	// Keys and values are copied into one reusable key holder and one
	// slice: MapIter.Key and Value would allocate for every entry.
	k := reflect.New(kt).Elem()
	values := reflect.MakeSlice(reflect.SliceOf(t.Elem()), n, n)
	entries := make([]mapEntry, 0, n)
	iter := v.MapRange()
	for iter.Next() {
		if len(entries) == n {
			break // the map grew during iteration; it is not ours to lock
		}
		k.SetIterKey(iter)
		var key arrayKey
		switch kt.Kind() {
		case reflect.String:
			key = stringKey(k.String())
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			key = arrayKey{i: k.Int()}
		default:
			u := k.Uint()
			if u > math.MaxInt64 {
				return dst, fmt.Errorf("%w: map key %d overflows a PHP integer", ErrUnsupportedValue, u)
			}
			key = arrayKey{i: int64(u)}
		}
		values.Index(len(entries)).SetIterValue(iter)
		entries = append(entries, mapEntry{key, len(entries)})
	}
	slices.SortFunc(entries, func(a, b mapEntry) int { return compareKeys(a.key, b.key) })
	dst = appendArrayHeader(dst, len(entries))
	for _, e := range entries {
		dst = e.key.appendPHP(dst)
		if dst, err = appendValue(dst, values.Index(e.at), depth); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

func compareKeys(a, b arrayKey) int {
	switch {
	case a.isString != b.isString:
		if a.isString {
			return 1
		}
		return -1
	case a.isString:
		return strings.Compare(a.s, b.s)
	case a.i < b.i:
		return -1
	case a.i > b.i:
		return 1
	}
	return 0
}

// structField is one PHP array entry produced by a struct field.
type structField struct {
	goName    string // dotted Go path, for error messages
	index     []int  // path through embedded structs
	phpKey    arrayKey
	key       []byte // phpKey serialized
	omitEmpty bool
	// constant, when set, is written verbatim instead of key and value;
	// it is how Extras contributes its two entries.
	constant []byte
	entries  int // entries contributed: 1, or 2 for Extras
}

// structInfo is the cached encoding plan of one struct type.
type structInfo struct {
	fields      []structField
	staticCount int  // entries when nothing is omitted
	anyOmit     bool // whether the count must be computed per value
}

var structCache sync.Map // reflect.Type -> *structInfo or error

func structInfoFor(t reflect.Type) (*structInfo, error) {
	if cached, ok := structCache.Load(t); ok {
		if err, isErr := cached.(error); isErr {
			return nil, err
		}
		return cached.(*structInfo), nil
	}
	info, err := buildStructInfo(t)
	if err != nil {
		structCache.Store(t, err)
		return nil, err
	}
	actual, _ := structCache.LoadOrStore(t, info)
	return actual.(*structInfo), nil
}

func buildStructInfo(t reflect.Type) (*structInfo, error) {
	info := &structInfo{}
	if err := collectFields(info, t, nil, ""); err != nil {
		return nil, err
	}
	seen := make(map[arrayKey]string, len(info.fields)+1)
	claim := func(k arrayKey, goName string) error {
		if prev, dup := seen[k]; dup {
			return fmt.Errorf("%w: %s: fields %s and %s both use key %s", ErrStructTag, t, prev, goName, k)
		}
		seen[k] = goName
		return nil
	}
	for _, f := range info.fields {
		info.staticCount += f.entries
		info.anyOmit = info.anyOmit || f.omitEmpty
		if f.constant != nil {
			if err := claim(stringKey("vested_threshold"), f.goName); err != nil {
				return nil, err
			}
			if err := claim(arrayKey{i: 0}, f.goName); err != nil {
				return nil, err
			}
			continue
		}
		if err := claim(f.phpKey, f.goName); err != nil {
			return nil, err
		}
	}
	return info, nil
}

func collectFields(info *structInfo, t reflect.Type, prefix []int, goPrefix string) error {
	if t == extrasType {
		info.fields = append(info.fields, structField{
			goName:   goPrefix + "Extras",
			index:    slices.Clone(prefix),
			constant: []byte(extrasEntries),
			entries:  2,
		})
		return nil
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		index := append(slices.Clone(prefix), i)
		goName := goPrefix + sf.Name
		tag, hasTag := sf.Tag.Lookup("php")
		if tag == "-" {
			continue
		}
		if sf.Anonymous && !hasTag {
			ft := sf.Type
			if ft.Kind() == reflect.Struct {
				// Embedded structs are flattened in place, so shared reply
				// parts (status fields, Extras) can be reused.
				if err := collectFields(info, ft, index, goName+"."); err != nil {
					return err
				}
				continue
			}
			if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
				// A nil pointer would make the entry count depend on the
				// value; refuse rather than guess.
				return fmt.Errorf("%w: %s: embedded pointer %s cannot be flattened; embed the struct value or name it with a php tag", ErrStructTag, t, goName)
			}
			if !sf.IsExported() {
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if !hasTag {
			return fmt.Errorf("%w: %s: field %s has no php tag (use php:\"name\" or php:\"-\")", ErrStructTag, t, goName)
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			return fmt.Errorf("%w: %s: field %s has an empty php key", ErrStructTag, t, goName)
		}
		k := stringKey(name)
		f := structField{goName: goName, index: index, entries: 1, phpKey: k, key: k.appendPHP(nil)}
		for opt := range strings.SplitSeq(opts, ",") {
			switch opt {
			case "":
			case "omitempty":
				f.omitEmpty = true
			default:
				return fmt.Errorf("%w: %s: field %s has unknown php tag option %q", ErrStructTag, t, goName, opt)
			}
		}
		info.fields = append(info.fields, f)
	}
	return nil
}

func appendStruct(dst []byte, v reflect.Value, depth int) ([]byte, error) {
	info, err := structInfoFor(v.Type())
	if err != nil {
		return dst, err
	}
	if depth, err = enter(depth); err != nil {
		return dst, err
	}
	count := info.staticCount
	if info.anyOmit {
		for i := range info.fields {
			f := &info.fields[i]
			if f.omitEmpty && isEmptyValue(fieldByIndex(v, f.index)) {
				count--
			}
		}
	}
	dst = appendArrayHeader(dst, count)
	for i := range info.fields {
		f := &info.fields[i]
		if f.constant != nil {
			dst = append(dst, f.constant...)
			continue
		}
		fv := fieldByIndex(v, f.index)
		if f.omitEmpty && isEmptyValue(fv) {
			continue
		}
		dst = append(dst, f.key...)
		if dst, err = appendValue(dst, fv, depth); err != nil {
			return dst, fmt.Errorf("field %s: %w", f.goName, err)
		}
	}
	return append(dst, '}'), nil
}

// fieldByIndex follows an index path; embedded fields are always struct
// values (pointers are refused when the plan is built), so it cannot fail.
func fieldByIndex(v reflect.Value, index []int) reflect.Value {
	for _, i := range index {
		v = v.Field(i)
	}
	return v
}

// isEmptyValue decides omitempty: false, 0, "", nil pointers and
// interfaces, empty slices, maps and arrays, and all-zero structs.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	}
	return v.IsZero()
}
