package wire

import (
	"fmt"
	"iter"
	"math"
	"reflect"
	"strconv"
)

// Array is a PHP array: an ordered map whose keys are int64 or string.
// Use it for replies whose keys are only known at run time (a buddy list
// keyed by account id) and as what Unmarshal returns for arrays.
//
// As in PHP, a string key that is a canonical decimal integer ("123",
// "-5", but not "0123", "-0", "+1" or " 1") is stored as that integer.
// The zero value is an empty array ready to use. An Array is not safe for
// concurrent mutation.
type Array struct {
	entries []arrayEntry
	// index is built once the array outgrows a linear scan.
	index map[arrayKey]int
	// next is the key Append uses: the largest integer key so far plus one.
	next   int64
	hasInt bool
}

// linearScanMax is the size up to which lookups scan entries instead of
// keeping an index map; most reply arrays are small.
const linearScanMax = 16

type arrayEntry struct {
	key   arrayKey
	value any
}

// arrayKey is a PHP array key after canonicalisation.
type arrayKey struct {
	isString bool
	i        int64
	s        string
}

func (k arrayKey) value() any {
	if k.isString {
		return k.s
	}
	return k.i
}

func (k arrayKey) String() string {
	if k.isString {
		return strconv.Quote(k.s)
	}
	return strconv.FormatInt(k.i, 10)
}

func (k arrayKey) appendPHP(dst []byte) []byte {
	if k.isString {
		return appendString(dst, k.s)
	}
	return appendInt(dst, k.i)
}

// stringKey canonicalises a string key the way PHP does for array keys.
func stringKey(s string) arrayKey {
	if n, ok := canonicalInt(s); ok {
		return arrayKey{i: n}
	}
	return arrayKey{isString: true, s: s}
}

// canonicalInt reports whether s is the canonical decimal text of an int64:
// an optional '-', no leading zeros, not "-0", within range. Only such
// strings become integer keys in PHP (ZEND_HANDLE_NUMERIC_STR).
func canonicalInt(s string) (int64, bool) {
	digits := s
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 19 {
		return 0, false
	}
	if digits[0] == '0' && len(s) > 1 {
		return 0, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, false
	}
	return n, true
}

// keyOf converts a Go key to a PHP key. It accepts strings and all integer
// kinds, including named types based on them.
func keyOf(key any) (arrayKey, bool) {
	switch k := key.(type) {
	case string:
		return stringKey(k), true
	case int:
		return arrayKey{i: int64(k)}, true
	case int64:
		return arrayKey{i: k}, true
	case int32:
		return arrayKey{i: int64(k)}, true
	}
	rv := reflect.ValueOf(key)
	switch rv.Kind() {
	case reflect.String:
		return stringKey(rv.String()), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return arrayKey{i: rv.Int()}, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if u := rv.Uint(); u <= math.MaxInt64 {
			return arrayKey{i: int64(u)}, true
		}
	}
	return arrayKey{}, false
}

// NewArray returns an empty Array.
func NewArray() *Array {
	return &Array{}
}

// Len returns the number of entries.
func (a *Array) Len() int {
	if a == nil {
		return 0
	}
	return len(a.entries)
}

func (a *Array) find(k arrayKey) int {
	if a.index != nil {
		if i, ok := a.index[k]; ok {
			return i
		}
		return -1
	}
	for i := range a.entries {
		if a.entries[i].key == k {
			return i
		}
	}
	return -1
}

// Set stores value under key and returns a for chaining. A new key goes at
// the end; an existing key keeps its position and gets the new value, as
// in PHP. key must be a string or an integer kind (an unsigned value must
// fit in int64); anything else is a programming error and panics, as a
// map with an unhashable key would.
func (a *Array) Set(key, value any) *Array {
	k, ok := keyOf(key)
	if !ok {
		panic(fmt.Sprintf("wire: Array key must be a string or an integer that fits int64, got %T", key))
	}
	a.set(k, value)
	return a
}

// set reports whether k was new.
func (a *Array) set(k arrayKey, value any) bool {
	if i := a.find(k); i >= 0 {
		a.entries[i].value = value
		return false
	}
	a.entries = append(a.entries, arrayEntry{k, value})
	if a.index != nil {
		a.index[k] = len(a.entries) - 1
	} else if len(a.entries) > linearScanMax {
		a.index = make(map[arrayKey]int, 2*len(a.entries))
		for i, e := range a.entries {
			a.index[e.key] = i
		}
	}
	if !k.isString && (!a.hasInt || k.i >= a.next) {
		a.hasInt = true
		if k.i == math.MaxInt64 {
			a.next = math.MaxInt64 // Append will refuse, as PHP does
		} else {
			a.next = k.i + 1
		}
	}
	return true
}

// Append stores value under the next integer key, as PHP's $a[] = value
// does: the largest integer key used so far plus one, or 0 when there was
// none. It returns a for chaining. It panics if that key would overflow
// int64 (after a key of math.MaxInt64), where PHP fails too.
func (a *Array) Append(value any) *Array {
	k := arrayKey{}
	if a.hasInt {
		if a.next == math.MaxInt64 && a.find(arrayKey{i: math.MaxInt64}) >= 0 {
			panic("wire: Array.Append: next integer key would overflow int64")
		}
		k.i = a.next
	}
	a.set(k, value)
	return a
}

// Get returns the value under key. Keys are canonicalised as in Set, so
// Get("5") and Get(5) find the same entry.
func (a *Array) Get(key any) (any, bool) {
	if a == nil {
		return nil, false
	}
	k, ok := keyOf(key)
	if !ok {
		return nil, false
	}
	if i := a.find(k); i >= 0 {
		return a.entries[i].value, true
	}
	return nil, false
}

// Keys returns the keys in order; each is an int64 or a string.
func (a *Array) Keys() []any {
	if a == nil {
		return nil
	}
	keys := make([]any, len(a.entries))
	for i, e := range a.entries {
		keys[i] = e.key.value()
	}
	return keys
}

// All yields the entries in order; keys are int64 or string.
func (a *Array) All() iter.Seq2[any, any] {
	return func(yield func(any, any) bool) {
		if a == nil {
			return
		}
		for _, e := range a.entries {
			if !yield(e.key.value(), e.value) {
				return
			}
		}
	}
}

// String returns the string under key; ok is false when the key is absent
// or holds another type.
func (a *Array) String(key any) (string, bool) {
	v, _ := a.Get(key)
	s, ok := v.(string)
	return s, ok
}

// Int returns the integer under key (any Go integer kind that fits int64);
// ok is false when the key is absent or holds another type. Numeric
// strings are not converted: the wire type matters to clients.
func (a *Array) Int(key any) (int64, bool) {
	v, _ := a.Get(key)
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case nil, string, bool, float64, *Array:
		return 0, false
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if u := rv.Uint(); u <= math.MaxInt64 {
			return int64(u), true
		}
	}
	return 0, false
}

// Bool returns the boolean under key; ok is false when the key is absent
// or holds another type.
func (a *Array) Bool(key any) (bool, bool) {
	v, _ := a.Get(key)
	b, ok := v.(bool)
	return b, ok
}

// Array returns the nested array under key; ok is false when the key is
// absent or holds another type (including a nil *Array).
func (a *Array) Array(key any) (*Array, bool) {
	v, _ := a.Get(key)
	sub, ok := v.(*Array)
	return sub, ok && sub != nil
}

// AppendPHP implements Marshaler.
func (a *Array) AppendPHP(dst []byte) ([]byte, error) {
	if a == nil {
		return append(dst, "N;"...), nil
	}
	return a.appendPHP(dst, 0)
}

func (a *Array) appendPHP(dst []byte, depth int) ([]byte, error) {
	depth, err := enter(depth)
	if err != nil {
		return dst, err
	}
	dst = appendArrayHeader(dst, len(a.entries))
	for _, e := range a.entries {
		dst = e.key.appendPHP(dst)
		if dst, err = appendAny(dst, e.value, depth); err != nil {
			return dst, fmt.Errorf("key %s: %w", e.key, err)
		}
	}
	return append(dst, '}'), nil
}
