package wire

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// Errors returned by Request.Decode, matched with errors.Is.
var (
	// ErrMissingField: a required field is absent, or a nonempty field is
	// empty.
	ErrMissingField = errors.New("wire: missing field")
	// ErrBadField: a field's text does not parse as the Go field's type.
	ErrBadField = errors.New("wire: bad field")
	// ErrDecodeTarget: Decode was given something other than a pointer to
	// a struct whose fields it can fill; a programming error.
	ErrDecodeTarget = errors.New("wire: bad decode target")
)

// FieldError reports one request field that Decode could not accept.
type FieldError struct {
	Field   string // wire name, as in the form tag
	Problem string // human-readable detail
	Err     error  // ErrMissingField or ErrBadField
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("wire: field %q: %s", e.Field, e.Problem)
}

func (e *FieldError) Unwrap() error { return e.Err }

// formField is one struct field Decode fills.
type formField struct {
	name     string
	index    int
	kind     formKind
	bits     int // for integers
	required bool
	nonempty bool
}

type formKind int

const (
	formString formKind = iota
	formInt
	formBool
	formStrings
	formFile
)

var (
	formCache    sync.Map // reflect.Type -> []formField or error
	filePtrType  = reflect.TypeFor[*File]()
	stringsType  = reflect.TypeFor[[]string]()
	formTagUsage = `use form:"name[,required][,nonempty]" or form:"-"`
)

// Decode fills the struct that dst points to from the request. Each
// exported field needs a tag form:"name" (or form:"-" to skip it), with
// options:
//
//   - required: the field must be sent (ErrMissingField otherwise);
//   - nonempty: when sent, it must not be empty (for []string: no value
//     may be empty); a missing field is still allowed unless required.
//
// A field is looked up in Form first and in Query when Form lacks it.
// Supported types: string (last value, as PHP), int kinds (decimal text),
// bool ("0", "1", "true", "false"), []string (all values, for array fields
// such as "type[]") and *File (from Files). An int or bool field sent
// empty is an ErrBadField; use a string field where a client may send
// empty text. Errors are *FieldError.
func (r *Request) Decode(dst any) error {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("%w: want a non-nil pointer to a struct, got %T", ErrDecodeTarget, dst)
	}
	sv := rv.Elem()
	fields, err := formFieldsFor(sv.Type())
	if err != nil {
		return err
	}
	for i := range fields {
		if err := r.decodeField(sv.Field(fields[i].index), &fields[i]); err != nil {
			return err
		}
	}
	return nil
}

func (r *Request) decodeField(fv reflect.Value, f *formField) error {
	missing := func(problem string) error {
		return &FieldError{Field: f.name, Problem: problem, Err: ErrMissingField}
	}
	bad := func(problem string) error {
		return &FieldError{Field: f.name, Problem: problem, Err: ErrBadField}
	}

	if f.kind == formFile {
		file, ok := r.Files[f.name]
		if !ok {
			if f.required {
				return missing("no file part")
			}
			return nil
		}
		if f.nonempty && len(file.Data) == 0 {
			return missing("empty file")
		}
		fv.Set(reflect.ValueOf(&file))
		return nil
	}

	values, ok := r.Form[f.name]
	if !ok {
		values, ok = r.Query[f.name]
	}
	if !ok || len(values) == 0 {
		if f.required {
			return missing("not sent")
		}
		return nil
	}

	if f.kind == formStrings {
		if f.nonempty {
			for _, v := range values {
				if v == "" {
					return missing("an empty value")
				}
			}
		}
		fv.Set(reflect.ValueOf(append([]string(nil), values...)))
		return nil
	}

	text := values[len(values)-1] // the last one wins, as in PHP
	if f.nonempty && text == "" {
		return missing("empty")
	}
	switch f.kind {
	case formString:
		fv.SetString(text)
	case formInt:
		n, err := strconv.ParseInt(text, 10, f.bits)
		if err != nil {
			return bad(fmt.Sprintf("%q is not a %d-bit decimal integer", truncate([]byte(text)), f.bits))
		}
		fv.SetInt(n)
	case formBool:
		switch text {
		case "1", "true":
			fv.SetBool(true)
		case "0", "false":
			fv.SetBool(false)
		default:
			return bad(fmt.Sprintf("%q is not 0, 1, true or false", truncate([]byte(text))))
		}
	}
	return nil
}

func formFieldsFor(t reflect.Type) ([]formField, error) {
	if cached, ok := formCache.Load(t); ok {
		if err, isErr := cached.(error); isErr {
			return nil, err
		}
		return cached.([]formField), nil
	}
	fields, err := buildFormFields(t)
	if err != nil {
		formCache.Store(t, err)
		return nil, err
	}
	formCache.Store(t, fields)
	return fields, nil
}

func buildFormFields(t reflect.Type) ([]formField, error) {
	var fields []formField
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		tag, ok := sf.Tag.Lookup("form")
		if !ok {
			return nil, fmt.Errorf("%w: %s.%s has no form tag; %s", ErrDecodeTarget, t, sf.Name, formTagUsage)
		}
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			return nil, fmt.Errorf("%w: %s.%s has an empty form name; %s", ErrDecodeTarget, t, sf.Name, formTagUsage)
		}
		f := formField{name: name, index: i}
		for opt := range strings.SplitSeq(opts, ",") {
			switch opt {
			case "":
			case "required":
				f.required = true
			case "nonempty":
				f.nonempty = true
			default:
				return nil, fmt.Errorf("%w: %s.%s: unknown form option %q", ErrDecodeTarget, t, sf.Name, opt)
			}
		}
		switch ft := sf.Type; {
		case ft == filePtrType:
			f.kind = formFile
		case ft == stringsType:
			f.kind = formStrings
		case ft.Kind() == reflect.String:
			f.kind = formString
		case ft.Kind() == reflect.Bool:
			f.kind = formBool
		case ft.Kind() >= reflect.Int && ft.Kind() <= reflect.Int64:
			f.kind, f.bits = formInt, ft.Bits()
		default:
			return nil, fmt.Errorf("%w: %s.%s has unsupported type %s", ErrDecodeTarget, t, sf.Name, ft)
		}
		fields = append(fields, f)
	}
	return fields, nil
}
