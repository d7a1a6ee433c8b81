package wire

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// equalValues compares decoded values: floats by bits (so NaN equals NaN
// and -0 differs from 0), arrays by ordered entries.
func equalValues(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && (math.Float64bits(x) == math.Float64bits(y) || (math.IsNaN(x) && math.IsNaN(y)))
	case *Array:
		y, ok := b.(*Array)
		if !ok || x.Len() != y.Len() {
			return false
		}
		for i := range x.entries {
			if x.entries[i].key != y.entries[i].key || !equalValues(x.entries[i].value, y.entries[i].value) {
				return false
			}
		}
		return true
	}
	return a == b
}

func TestUnmarshal(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{`N;`, nil},
		{`b:0;`, false},
		{`b:1;`, true},
		{`i:0;`, int64(0)},
		{`i:-42;`, int64(-42)},
		{`i:9223372036854775807;`, int64(math.MaxInt64)},
		{`i:-9223372036854775808;`, int64(math.MinInt64)},
		{`d:0.1;`, 0.1},
		{`d:1;`, 1.0},
		{`d:-0;`, math.Copysign(0, -1)},
		{`d:1.0E+25;`, 1e25},
		{`d:1.5E-7;`, 1.5e-7},
		{`d:1e5;`, 1e5},
		{`d:NAN;`, math.NaN()},
		{`d:INF;`, math.Inf(1)},
		{`d:-INF;`, math.Inf(-1)},
		{`s:0:"";`, ""},
		{`s:5:"a";b"";`, `a";b"`},
		{`s:3:"→";`, "→"},
		{`a:0:{}`, NewArray()},
		{`a:2:{i:0;s:1:"a";s:1:"k";N;}`, NewArray().Append("a").Set("k", nil)},
		{`a:1:{s:2:"10";i:1;}`, NewArray().Set(10, int64(1))},
		{`a:1:{s:2:"01";i:1;}`, NewArray().Set("01", int64(1))},
		{`a:1:{i:0;a:1:{i:0;a:0:{}}}`, NewArray().Append(NewArray().Append(NewArray()))},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Unmarshal([]byte(tt.in))
			if err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if !equalValues(got, tt.want) {
				t.Fatalf("Unmarshal = %#v, want %#v", got, tt.want)
			}
		})
	}
}

func TestUnmarshalErrors(t *testing.T) {
	tests := []struct {
		name        string
		in          string
		offset      int
		unsupported bool
	}{
		{"empty", ``, 0, false},
		{"trailing", `N;N;`, 2, false},
		{"trailing newline", "i:1;\n", 4, false},
		{"bad bool", `b:2;`, 0, false},
		{"plus int", `i:+1;`, 2, false},
		{"leading zero", `i:01;`, 2, false},
		{"minus zero int", `i:-0;`, 2, false},
		{"int overflow", `i:9223372036854775808;`, 2, false},
		{"empty int", `i:;`, 2, false},
		{"unterminated int", `i:12`, 2, false},
		{"hex float", `d:0x1p3;`, 2, false},
		{"lowercase inf", `d:inf;`, 2, false},
		{"float dot only", `d:.5;`, 2, false},
		{"float trailing dot", `d:5.;`, 2, false},
		{"float out of range", `d:1e400;`, 2, false},
		{"string too long", `s:10:"abc";`, 6, false},
		{"string too short", `s:1:"abc";`, 6, false},
		{"string no quote", `s:3:abc;`, 4, false},
		{"negative length", `s:-1:"";`, 2, false},
		{"huge length", `s:99999999999:"";`, 2, false},
		{"array count too big", `a:1000000:{}`, 2, false},
		{"array count short", `a:2:{i:0;s:5:"hello";}`, 21, false},
		{"array count long", `a:1:{i:0;N;i:1;N;}`, 11, false},
		{"array float key", `a:1:{d:1;N;}`, 5, false},
		{"array bool key", `a:1:{b:1;N;}`, 5, false},
		{"duplicate key", `a:2:{i:1;N;s:1:"1";N;}`, 11, false},
		{"missing brace", `a:0:}`, 4, false},
		{"object", `O:8:"stdClass":0:{}`, 0, true},
		{"reference", `a:2:{i:0;i:1;i:1;R:2;}`, 17, true},
		{"value reference", `a:2:{i:0;i:1;i:1;r:2;}`, 17, true},
		{"custom object", `C:3:"Foo":0:{}`, 0, true},
		{"enum", `E:7:"Foo:Bar";`, 0, true},
		{"unknown type", `x:1;`, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Unmarshal([]byte(tt.in))
			if err == nil {
				t.Fatalf("Unmarshal(%q) = %#v, want an error", tt.in, v)
			}
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v does not match ErrSyntax", err)
			}
			if errors.Is(err, ErrUnsupported) != tt.unsupported {
				t.Fatalf("error %v: matches ErrUnsupported = %v, want %v", err, !tt.unsupported, tt.unsupported)
			}
			var se *SyntaxError
			if !errors.As(err, &se) || se.Offset != tt.offset {
				t.Fatalf("error %v: offset %d, want %d", err, se.Offset, tt.offset)
			}
		})
	}
}

func TestUnmarshalDepth(t *testing.T) {
	nest := func(n int) string {
		return strings.Repeat("a:1:{i:0;", n) + "N;" + strings.Repeat("}", n)
	}
	if _, err := Unmarshal([]byte(nest(MaxDepth))); err != nil {
		t.Fatalf("depth %d: %v", MaxDepth, err)
	}
	if _, err := Unmarshal([]byte(nest(MaxDepth + 1))); !errors.Is(err, ErrSyntax) {
		t.Fatalf("depth %d: err = %v, want ErrSyntax", MaxDepth+1, err)
	}
}

func TestUnmarshalCopiesInput(t *testing.T) {
	data := []byte(`a:1:{s:3:"key";s:5:"value";}`)
	v, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range data {
		data[i] = 'X'
	}
	a := v.(*Array)
	if s, ok := a.String("key"); !ok || s != "value" {
		t.Fatalf("decoded value changed with its input: %q", s)
	}
}

func TestUnmarshalHostileCountDoesNotPreallocate(t *testing.T) {
	// Sixty-four nested arrays each claiming as many entries as the input
	// could hold must not allocate per claimed entry.
	in := []byte(strings.Repeat("a:100000:{i:0;", 64))
	in = append(in, make([]byte, 600000)...)
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := Unmarshal(in); err == nil {
			t.Fatal("hostile input decoded")
		}
	})
	if allocs > 1000 {
		t.Fatalf("%v allocations for a hostile count", allocs)
	}
}

func FuzzUnmarshal(f *testing.F) {
	seeds := []string{
		`N;`, `b:1;`, `i:-7;`, `d:0.1;`, `d:1.0E+25;`, `d:-0;`, `d:NAN;`, `s:3:"→";`,
		`a:0:{}`,
		`a:5:{s:4:"salt";s:2:"ab";s:5:"salt2";s:2:"cd";s:1:"B";s:2:"ef";s:16:"vested_threshold";i:5;i:0;b:1;}`,
		`a:2:{i:0;a:1:{s:1:"k";d:1.5E-7;}s:2:"10";N;}`,
		`a:2:{s:4:"auth";s:16:"Invalid cookie.1";i:0;b:0;}`,
		`O:8:"stdClass":0:{}`,
		`a:1:{i:0;R:1;}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := Unmarshal(data)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v does not match ErrSyntax", err)
			}
			return
		}
		out, err := Marshal(v)
		if err != nil {
			t.Fatalf("Marshal of decoded %q: %v", data, err)
		}
		again, err := Unmarshal(out)
		if err != nil {
			t.Fatalf("Unmarshal(Marshal(v)) of %q -> %q: %v", data, out, err)
		}
		if !equalValues(v, again) {
			t.Fatalf("round trip changed the value: %q -> %q", data, out)
		}
	})
}
