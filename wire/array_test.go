package wire

import (
	"math"
	"reflect"
	"testing"
)

func TestCanonicalInt(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"123", 123, true},
		{"-5", -5, true},
		{"9223372036854775807", math.MaxInt64, true},
		{"-9223372036854775808", math.MinInt64, true},
		{"9223372036854775808", 0, false},
		{"-9223372036854775809", 0, false},
		{"0123", 0, false},
		{"00", 0, false},
		{"-0", 0, false},
		{"-01", 0, false},
		{"+1", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"1.0", 0, false},
		{"1e3", 0, false},
		{"", 0, false},
		{"-", 0, false},
		{"0x1", 0, false},
		{"١", 0, false}, // Arabic-Indic digit one: not ASCII
	}
	for _, tt := range tests {
		got, ok := canonicalInt(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("canonicalInt(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestArraySetKeepsFirstPosition(t *testing.T) {
	a := NewArray().Set("x", 1).Set("y", 2).Set("x", 3)
	if got, want := a.Keys(), []any{"x", "y"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("Keys = %v, want %v", got, want)
	}
	if v, ok := a.Get("x"); !ok || v != 3 {
		t.Fatalf("Get(x) = %v, %v; want 3", v, ok)
	}
}

func TestArrayKeyCanonicalisation(t *testing.T) {
	type accountID int32
	type heroName string
	a := NewArray().
		Set("5", "string five").
		Set(uint8(7), "seven").
		Set(accountID(9), "nine").
		Set(heroName("Hero_Pyromancer"), "hero").
		Set("05", "not five").
		Set("-0", "not zero")
	wantKeys := []any{int64(5), int64(7), int64(9), "Hero_Pyromancer", "05", "-0"}
	if got := a.Keys(); !reflect.DeepEqual(got, wantKeys) {
		t.Fatalf("Keys = %#v, want %#v", got, wantKeys)
	}
	for _, key := range []any{5, int64(5), "5", uint(5), accountID(5)} {
		if v, ok := a.Get(key); !ok || v != "string five" {
			t.Errorf("Get(%T %v) = %v, %v", key, key, v, ok)
		}
	}
	if _, ok := a.Get(5.0); ok {
		t.Error("Get with a float key found something")
	}
	a.Set(5, "int five")
	if a.Len() != 6 {
		t.Fatalf("Len = %d after re-setting key 5, want 6", a.Len())
	}
	if s, _ := a.String("5"); s != "int five" {
		t.Fatalf("String(\"5\") = %q", s)
	}
}

func TestArrayAppend(t *testing.T) {
	tests := []struct {
		name  string
		build func() *Array
		want  []any
	}{
		{"empty starts at 0", func() *Array { return NewArray().Append("a").Append("b") },
			[]any{int64(0), int64(1)}},
		{"string keys do not count", func() *Array { return NewArray().Set("k", 1).Append("a") },
			[]any{"k", int64(0)}},
		{"after largest", func() *Array { return NewArray().Set(10, 1).Set(3, 2).Append("a") },
			[]any{int64(10), int64(3), int64(11)}},
		{"numeric string counts", func() *Array { return NewArray().Set("41", 1).Append("a") },
			[]any{int64(41), int64(42)}},
		{"negative key", func() *Array { return NewArray().Set(-5, 1).Append("a") },
			[]any{int64(-5), int64(-4)}},
		{"zero value array", func() *Array { var a Array; return a.Append(1) },
			[]any{int64(0)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.build().Keys(); !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Keys = %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestArrayAppendOverflowPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Append after key MaxInt64 did not panic")
		}
	}()
	NewArray().Set(int64(math.MaxInt64), 1).Append(2)
}

func TestArraySetBadKeyPanics(t *testing.T) {
	for _, key := range []any{1.5, true, nil, uint64(math.MaxUint64), []byte("k")} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Set(%T) did not panic", key)
				}
			}()
			NewArray().Set(key, 1)
		}()
	}
}

func TestArrayLargeUsesIndex(t *testing.T) {
	a := NewArray()
	for i := range 100 {
		a.Set(int64(i*2), i)
	}
	a.Set(int64(10), "replaced")
	if a.Len() != 100 {
		t.Fatalf("Len = %d", a.Len())
	}
	for i := range 100 {
		v, ok := a.Get(i * 2)
		want := any(i)
		if i == 5 {
			want = "replaced"
		}
		if !ok || v != want {
			t.Fatalf("Get(%d) = %v, %v", i*2, v, ok)
		}
	}
	if _, ok := a.Get(3); ok {
		t.Fatal("Get(3) found a missing key")
	}
	if got := a.Keys()[5]; got != int64(10) {
		t.Fatalf("key 10 moved to %v", got)
	}
}

func TestArrayTypedGetters(t *testing.T) {
	type level int16
	sub := NewArray()
	a := NewArray().
		Set("s", "text").
		Set("i", int64(3)).
		Set("small", level(4)).
		Set("u", uint32(5)).
		Set("b", true).
		Set("a", sub).
		Set("nilarr", (*Array)(nil)).
		Set("num", "12")
	if v, ok := a.String("s"); !ok || v != "text" {
		t.Errorf("String(s) = %q, %v", v, ok)
	}
	if _, ok := a.String("i"); ok {
		t.Error("String(i) ok for an int")
	}
	for key, want := range map[string]int64{"i": 3, "small": 4, "u": 5} {
		if v, ok := a.Int(key); !ok || v != want {
			t.Errorf("Int(%s) = %d, %v", key, v, ok)
		}
	}
	if _, ok := a.Int("num"); ok {
		t.Error("Int(num) converted a numeric string")
	}
	if v, ok := a.Bool("b"); !ok || !v {
		t.Errorf("Bool(b) = %v, %v", v, ok)
	}
	if _, ok := a.Bool("missing"); ok {
		t.Error("Bool(missing) ok")
	}
	if v, ok := a.Array("a"); !ok || v != sub {
		t.Errorf("Array(a) = %v, %v", v, ok)
	}
	if _, ok := a.Array("nilarr"); ok {
		t.Error("Array(nilarr) ok for a nil *Array")
	}
	var nilArr *Array
	if _, ok := nilArr.String("x"); ok || nilArr.Len() != 0 || nilArr.Keys() != nil {
		t.Error("nil *Array getters should report absence")
	}
}

func TestArrayAllStopsEarly(t *testing.T) {
	a := NewArray().Append(1).Append(2).Append(3)
	var seen []any
	for k, v := range a.All() {
		seen = append(seen, k, v)
		if len(seen) == 4 {
			break
		}
	}
	if want := []any{int64(0), 1, int64(1), 2}; !reflect.DeepEqual(seen, want) {
		t.Fatalf("All yielded %v, want %v", seen, want)
	}
}
