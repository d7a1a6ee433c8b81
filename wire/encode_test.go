package wire

import (
	"errors"
	"math"
	"strings"
	"testing"
)

type preAuthReply struct {
	Salt  string `php:"salt"`
	Salt2 string `php:"salt2"`
	B     string `php:"B"`
	Extras
}

type guideStatus struct {
	Errors  string `php:"errors"`
	Success int    `php:"success"`
}

type guideSetReply struct {
	guideStatus
	Set      int    `php:"set"`
	HostTime string `php:"hosttime"`
	Extras
}

type omitting struct {
	Name  string         `php:"name,omitempty"`
	N     int            `php:"n,omitempty"`
	P     *int           `php:"p,omitempty"`
	L     []string       `php:"l,omitempty"`
	M     map[string]int `php:"m,omitempty"`
	B     bool           `php:"b,omitempty"`
	Kept  string         `php:"kept"`
	Skip  string         `php:"-"`
	inner string
}

// hexID writes itself as an integer; it checks that Marshaler wins over
// the underlying kind.
type hexID string

func (h hexID) AppendPHP(dst []byte) ([]byte, error) {
	return appendInt(dst, int64(len(h))), nil
}

// ptrMarshaler has a pointer receiver: it is used when the value is
// addressable (a struct field reached through a pointer).
type ptrMarshaler struct{}

func (p *ptrMarshaler) AppendPHP(dst []byte) ([]byte, error) {
	return appendString(dst, "custom"), nil
}

type withID struct {
	ID hexID `php:"id"`
}

type numericKeys struct {
	Zero  bool   `php:"0"`
	Neg   int    `php:"-5"`
	Lead  string `php:"0123"`
	Plus  string `php:"+1"`
	Space string `php:" 1"`
	Dec   string `php:"1.0"`
}

func TestMarshal(t *testing.T) {
	seven := 7
	var nilPtr *int
	var nilArray *Array
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"nil", nil, `N;`},
		{"nil pointer", nilPtr, `N;`},
		{"nil *Array", nilArray, `N;`},
		{"true", true, `b:1;`},
		{"false", false, `b:0;`},
		{"int", 42, `i:42;`},
		{"negative int8", int8(-128), `i:-128;`},
		{"uint16", uint16(65535), `i:65535;`},
		{"int64 min", int64(math.MinInt64), `i:-9223372036854775808;`},
		{"int64 max", int64(math.MaxInt64), `i:9223372036854775807;`},
		{"uint64 max int64", uint64(math.MaxInt64), `i:9223372036854775807;`},
		{"pointer", &seven, `i:7;`},
		{"pointer to pointer", func() **int { p := &seven; return &p }(), `i:7;`},
		{"string", "OK", `s:2:"OK";`},
		{"empty string", "", `s:0:"";`},
		{"utf8 counts bytes", "héllo→", `s:9:"héllo→";`},
		{"quotes pass raw", `a"b;c`, `s:5:"a"b;c";`},
		{"bytes", []byte("zip\x00"), "s:4:\"zip\x00\";"},
		{"nil bytes", []byte(nil), `s:0:"";`},
		{"float", 0.1, `d:0.1;`},
		{"float32 shortest", float32(0.1), `d:0.1;`},
		{"float one", 1.0, `d:1;`},
		{"slice", []string{"a", "b"}, `a:2:{i:0;s:1:"a";i:1;s:1:"b";}`},
		{"nil slice", []int(nil), `a:0:{}`},
		{"array", [2]int{3, 4}, `a:2:{i:0;i:3;i:1;i:4;}`},
		{"interface slice", []any{nil, 1, "x", true}, `a:4:{i:0;N;i:1;i:1;i:2;s:1:"x";i:3;b:1;}`},
		{"map sorted", map[string]int{"b": 2, "a": 1, "10": 10, "9": 9, "09": 0},
			`a:5:{i:9;i:9;i:10;i:10;s:2:"09";i:0;s:1:"a";i:1;s:1:"b";i:2;}`},
		{"int map", map[int64]string{3: "c", -1: "z", 0: "a"}, `a:3:{i:-1;s:1:"z";i:0;s:1:"a";i:3;s:1:"c";}`},
		{"nil map", map[string]int(nil), `a:0:{}`},
		{"pre_auth", preAuthReply{Salt: "ab", Salt2: "cd", B: "ef"},
			`a:5:{s:4:"salt";s:2:"ab";s:5:"salt2";s:2:"cd";s:1:"B";s:2:"ef";s:16:"vested_threshold";i:5;i:0;b:1;}`},
		{"pre_auth pointer", &preAuthReply{}, `a:5:{s:4:"salt";s:0:"";s:5:"salt2";s:0:"";s:1:"B";s:0:"";s:16:"vested_threshold";i:5;i:0;b:1;}`},
		{"embedded flattened", guideSetReply{guideStatus: guideStatus{"", 1}, Set: 1, HostTime: "123"},
			`a:6:{s:6:"errors";s:0:"";s:7:"success";i:1;s:3:"set";i:1;s:8:"hosttime";s:3:"123";s:16:"vested_threshold";i:5;i:0;b:1;}`},
		{"extras alone", Extras{}, `a:2:{s:16:"vested_threshold";i:5;i:0;b:1;}`},
		{"omitempty all empty", omitting{L: []string{}, M: map[string]int{}}, `a:1:{s:4:"kept";s:0:"";}`},
		{"omitempty all set", omitting{Name: "n", N: 1, P: &seven, L: []string{"x"}, M: map[string]int{"k": 1}, B: true, Kept: "k", Skip: "s", inner: "i"},
			`a:7:{s:4:"name";s:1:"n";s:1:"n";i:1;s:1:"p";i:7;s:1:"l";a:1:{i:0;s:1:"x";}s:1:"m";a:1:{s:1:"k";i:1;}s:1:"b";b:1;s:4:"kept";s:1:"k";}`},
		{"numeric tag keys", numericKeys{},
			`a:6:{i:0;b:0;i:-5;i:0;s:4:"0123";s:0:"";s:2:"+1";s:0:"";s:2:" 1";s:0:"";s:3:"1.0";s:0:"";}`},
		{"marshaler value", hexID("abc"), `i:3;`},
		{"marshaler in struct", struct {
			ID hexID `php:"id"`
		}{"abcd"}, `a:1:{s:2:"id";i:4;}`},
		{"pointer receiver marshaler", &struct {
			M ptrMarshaler `php:"m"`
		}{}, `a:1:{s:1:"m";s:6:"custom";}`},
		{"nil marshaler pointer", (*ptrMarshaler)(nil), `N;`},
		{"marshaler promoted from unexported embedded struct", struct {
			withID
		}{withID{"ab"}}, `a:1:{s:2:"id";i:2;}`},
		{"array keeps order", NewArray().Set("b", 1).Set(5, "five").Set("a", nil).Append(true),
			`a:4:{s:1:"b";i:1;i:5;s:4:"five";s:1:"a";N;i:6;b:1;}`},
		{"array in struct", struct {
			Buddies *Array `php:"buddy_list"`
		}{NewArray().Set("42", NewArray())}, `a:1:{s:10:"buddy_list";a:1:{i:42;a:0:{}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.in)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if string(got) != tt.want {
				t.Errorf("Marshal\n got %s\nwant %s", got, tt.want)
			}
			prefix := []byte("prefix")
			got, err = AppendMarshal(prefix, tt.in)
			if err != nil || string(got) != "prefix"+tt.want {
				t.Errorf("AppendMarshal = %q, %v", got, err)
			}
		})
	}
}

func TestMarshalFloat(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0.1, "d:0.1;"},
		{1, "d:1;"},
		{-2.5, "d:-2.5;"},
		{100, "d:100;"},
		{1e25, "d:1.0E+25;"},
		{1.5e-7, "d:1.5E-7;"},
		{-1.5e-7, "d:-1.5E-7;"},
		{math.NaN(), "d:NAN;"},
		{math.Inf(1), "d:INF;"},
		{math.Inf(-1), "d:-INF;"},
		{math.Copysign(0, -1), "d:-0;"},
		{0, "d:0;"},
		// Fixed notation holds while the decimal point is within [-3, 17].
		{0.0001, "d:0.0001;"},
		{0.00012345, "d:0.00012345;"},
		{0.00001, "d:1.0E-5;"},
		{9.999e-5, "d:9.999E-5;"},
		{1e15, "d:1000000000000000;"},
		{1e16, "d:10000000000000000;"},
		{1.5e16, "d:15000000000000000;"},
		{12345678901234567, "d:12345678901234568;"},
		{1e17, "d:1.0E+17;"},
		{1.2345678901234568e17, "d:1.2345678901234568E+17;"},
		{5e-324, "d:5.0E-324;"},
		{math.MaxFloat64, "d:1.7976931348623157E+308;"},
	}
	for _, tt := range tests {
		got, err := Marshal(tt.in)
		if err != nil || string(got) != tt.want {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

type cyclic struct {
	Next *cyclic `php:"next"`
}

func TestMarshalErrors(t *testing.T) {
	loop := &cyclic{}
	loop.Next = loop
	tests := []struct {
		name string
		in   any
		want error
	}{
		{"untagged field", struct{ Name string }{}, ErrStructTag},
		{"empty key", struct {
			Name string `php:",omitempty"`
		}{}, ErrStructTag},
		{"unknown option", struct {
			Name string `php:"name,sometimes"`
		}{}, ErrStructTag},
		{"duplicate key", struct {
			A string `php:"a"`
			B string `php:"a"`
		}{}, ErrStructTag},
		{"duplicate after canonicalisation", struct {
			A string `php:"0"`
			Extras
		}{}, ErrStructTag},
		{"duplicate vested_threshold", struct {
			V int `php:"vested_threshold"`
			Extras
		}{}, ErrStructTag},
		{"embedded pointer", struct {
			*guideStatus
		}{}, ErrStructTag},
		{"func", func() {}, ErrUnsupportedType},
		{"chan in slice", []any{make(chan int)}, ErrUnsupportedType},
		{"complex", complex(1, 2), ErrUnsupportedType},
		{"bool map key", map[bool]int{true: 1}, ErrUnsupportedType},
		{"uint64 overflow", uint64(math.MaxInt64) + 1, ErrUnsupportedValue},
		{"uint map key overflow", map[uint64]int{math.MaxUint64: 1}, ErrUnsupportedValue},
		{"pointer cycle", loop, ErrUnsupportedValue},
		{"array in array cycle", func() *Array { a := NewArray(); a.Set("self", a); return a }(), ErrUnsupportedValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Marshal(tt.in)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Marshal error = %v, want %v", err, tt.want)
			}
			// The cached plan must give the same error again.
			if _, err2 := Marshal(tt.in); !errors.Is(err2, tt.want) {
				t.Fatalf("second Marshal error = %v", err2)
			}
		})
	}
}

func TestMarshalDepthLimit(t *testing.T) {
	var v any = "leaf"
	for range MaxDepth {
		v = []any{v}
	}
	if _, err := Marshal(v); err != nil {
		t.Fatalf("depth %d: %v", MaxDepth, err)
	}
	if _, err := Marshal([]any{v}); !errors.Is(err, ErrUnsupportedValue) {
		t.Fatalf("depth %d: err = %v, want ErrUnsupportedValue", MaxDepth+1, err)
	}
}

// A cycle of pointers and interfaces alone nests no array, so the depth
// limit never saw it: Marshal overflowed the stack, a crash no recover
// catches (from a review). It is refused now; a long chain short of
// MaxDepth still marshals.
func TestMarshalPointerCycle(t *testing.T) {
	var x any
	x = &x
	if _, err := Marshal(x); !errors.Is(err, ErrUnsupportedValue) {
		t.Fatalf("a pointer cycle: err = %v, want ErrUnsupportedValue", err)
	}
	type node struct {
		Next any `php:"next"`
	}
	n := &node{}
	n.Next = &n
	if _, err := Marshal(n); !errors.Is(err, ErrUnsupportedValue) {
		t.Fatalf("a cycle through a struct and pointers: err = %v, want ErrUnsupportedValue", err)
	}
	var v any = "leaf"
	for range MaxDepth/2 - 1 { // a pointer to an interface: two hops each
		p := v
		v = &p
	}
	if b, err := Marshal(v); err != nil || string(b) != `s:4:"leaf";` {
		t.Fatalf("%d pointers to a string: %q, %v", MaxDepth/2-1, b, err)
	}
}

// An Array held by value (a reply field, an entry of another Array) was
// written as an empty array with no error: its methods are on the pointer
// and its fields unexported (from a review).
func TestMarshalArrayByValue(t *testing.T) {
	list := NewArray()
	list.Append("a")
	list.Append("b")
	const want = `a:1:{s:4:"list";a:2:{i:0;s:1:"a";i:1;s:1:"b";}}`
	type reply struct {
		List Array `php:"list"`
	}
	r := reply{List: *list}
	for name, v := range map[string]any{"by value": r, "by pointer": &r} {
		if b, err := Marshal(v); err != nil || string(b) != want {
			t.Errorf("a reply holding an Array, %s: %s, %v; want %s", name, b, err, want)
		}
	}
	outer := NewArray()
	outer.Set("list", *list)
	if b, err := Marshal(outer); err != nil || string(b) != want {
		t.Errorf("an Array value inside an Array: %s, %v; want %s", b, err, want)
	}
}

func TestMarshalErrorNamesField(t *testing.T) {
	_, err := Marshal(struct {
		Inner struct {
			F func() `php:"f"`
		} `php:"inner"`
	}{})
	if err == nil || !strings.Contains(err.Error(), "field Inner") || !strings.Contains(err.Error(), "field F") {
		t.Fatalf("error %v should name the field path", err)
	}
}

func TestMarshalNoAllocsForCachedStruct(t *testing.T) {
	v := &guideSetReply{guideStatus: guideStatus{"", 1}, Set: 1, HostTime: "1700000000"}
	buf := make([]byte, 0, 512)
	if _, err := AppendMarshal(buf, v); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := AppendMarshal(buf[:0], v); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("AppendMarshal of a cached struct allocates %v times per call, want 0", allocs)
	}
}

// Marshal allocates its result once, at its exact size, however many times
// the value outgrows the encoding buffer on the way.
func TestMarshalAllocatesResultOnce(t *testing.T) {
	v := &guideSetReply{guideStatus: guideStatus{strings.Repeat("x", 900), 1}, Set: 1, HostTime: "1700000000"}
	want, err := AppendMarshal(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Marshal(v)
	if err != nil || string(got) != string(want) || cap(got) != len(want) {
		t.Fatalf("Marshal = %d bytes (cap %d), %v; want the %d bytes of AppendMarshal at their exact size", len(got), cap(got), err, len(want))
	}
	if raceDetector {
		return // allocation counts under -race are not the program's (race_on_test.go)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := Marshal(v); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 1 {
		t.Errorf("Marshal allocates %v times per call, want 1 (the result)", allocs)
	}
}
