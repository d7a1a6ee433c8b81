package wire

import (
	"errors"
	"reflect"
	"testing"
)

type srpAuthForm struct {
	Login        string `form:"login,required,nonempty"`
	Proof        string `form:"proof,required"`
	OSType       int    `form:"OSType"`
	MajorVersion int64  `form:"MajorVersion"`
	SysInfo      string `form:"SysInfo"`
	F            string `form:"f,required"`
	Internal     string `form:"-"`
}

type reportForm struct {
	OffenderName []string `form:"offenderName[],required"`
	Type         []string `form:"type[],nonempty"`
	Minute       int8     `form:"minute"`
	Anonymous    bool     `form:"anon"`
}

type storeForm struct {
	Cookie string `form:"cookie,required,nonempty"`
	Zip    *File  `form:"cloud.zip,required"`
	Other  *File  `form:"other"`
}

func TestDecode(t *testing.T) {
	r := &Request{
		Query: Values{"f": {"srpAuth"}, "login": {"from-query"}},
		Form: Values{
			"login": {"SouL"}, "proof": {"abc"}, "OSType": {"7"}, "MajorVersion": {"-4"}, "SysInfo": {""},
		},
	}
	var got srpAuthForm
	got.Internal = "untouched"
	if err := r.Decode(&got); err != nil {
		t.Fatal(err)
	}
	want := srpAuthForm{Login: "SouL", Proof: "abc", OSType: 7, MajorVersion: -4, F: "srpAuth", Internal: "untouched"}
	if got != want {
		t.Fatalf("Decode = %+v, want %+v", got, want)
	}

	r = &Request{Form: Values{
		"offenderName[]": {"a", "b"}, "type[]": {"1", "6"}, "minute": {"12"}, "anon": {"true"},
	}}
	var rep reportForm
	if err := r.Decode(&rep); err != nil {
		t.Fatal(err)
	}
	wantRep := reportForm{OffenderName: []string{"a", "b"}, Type: []string{"1", "6"}, Minute: 12, Anonymous: true}
	if !reflect.DeepEqual(rep, wantRep) {
		t.Fatalf("Decode = %+v, want %+v", rep, wantRep)
	}
	rep.OffenderName[0] = "changed"
	if r.Form["offenderName[]"][0] != "a" {
		t.Fatal("decoded slice shares its array with the request")
	}

	zip := File{Name: "cloud.zip", Filename: "cloud.zip", Data: []byte("PK")}
	r = &Request{Form: Values{"cookie": {"c"}}, Files: map[string]File{"cloud.zip": zip}}
	var st storeForm
	if err := r.Decode(&st); err != nil {
		t.Fatal(err)
	}
	if st.Zip == nil || !reflect.DeepEqual(*st.Zip, zip) || st.Other != nil {
		t.Fatalf("Decode files = %+v", st)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name  string
		r     *Request
		dst   any
		want  error
		field string
	}{
		{"missing required", &Request{Form: Values{"proof": {"p"}, "f": {"x"}}}, &srpAuthForm{}, ErrMissingField, "login"},
		{"empty nonempty", &Request{Form: Values{"login": {""}, "proof": {"p"}, "f": {"x"}}}, &srpAuthForm{}, ErrMissingField, "login"},
		{"required may be empty", &Request{Form: Values{"login": {"l"}, "proof": {""}}}, &srpAuthForm{}, ErrMissingField, "f"},
		{"bad int", &Request{Form: Values{"login": {"l"}, "proof": {"p"}, "f": {"x"}, "OSType": {"7x"}}}, &srpAuthForm{}, ErrBadField, "OSType"},
		{"empty int", &Request{Form: Values{"login": {"l"}, "proof": {"p"}, "f": {"x"}, "OSType": {""}}}, &srpAuthForm{}, ErrBadField, "OSType"},
		{"int overflow", &Request{Form: Values{"offenderName[]": {"a"}, "minute": {"300"}}}, &reportForm{}, ErrBadField, "minute"},
		{"bad bool", &Request{Form: Values{"offenderName[]": {"a"}, "anon": {"yes"}}}, &reportForm{}, ErrBadField, "anon"},
		{"missing slice", &Request{Form: Values{}}, &reportForm{}, ErrMissingField, "offenderName[]"},
		{"empty slice value", &Request{Form: Values{"offenderName[]": {"a"}, "type[]": {"1", ""}}}, &reportForm{}, ErrMissingField, "type[]"},
		{"missing file", &Request{Form: Values{"cookie": {"c"}}}, &storeForm{}, ErrMissingField, "cloud.zip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.r.Decode(tt.dst)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Decode error = %v, want %v", err, tt.want)
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tt.field {
				t.Fatalf("error %v: want a *FieldError for %q", err, tt.field)
			}
		})
	}
}

func TestDecodeBadTarget(t *testing.T) {
	r := &Request{}
	var s srpAuthForm
	for _, dst := range []any{nil, s, (*srpAuthForm)(nil), new(int),
		&struct{ Untagged string }{},
		&struct {
			F float64 `form:"f"`
		}{},
		&struct {
			F string `form:"f,sometimes"`
		}{},
	} {
		if err := r.Decode(dst); !errors.Is(err, ErrDecodeTarget) {
			t.Errorf("Decode(%T) = %v, want ErrDecodeTarget", dst, err)
		}
	}
}
