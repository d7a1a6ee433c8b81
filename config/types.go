package config

import (
	"encoding"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// The TOML decoder stops at the first value of the wrong type, with an
// error that names neither a key of ours nor anything an operator should
// read. typeProblems checks every value of a document against the
// configuration's types first, so all of them are reported together (with
// the unknown keys and invalid values) and the rest can still be decoded.

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// typeProblems reports every value of doc (as decoded into a map) whose
// TOML type does not fit the field it sets, and deletes it from doc. Keys
// that name no field are left to keyErrors.
func typeProblems(doc map[string]any, t reflect.Type, prefix string) []error {
	var errs []error
	for k, v := range doc {
		ft, ok := tomlField(t, k)
		if !ok {
			continue
		}
		key := prefix + k
		if msg := typeMismatch(v, ft, key, &errs); msg != "" {
			errs = append(errs, &Problem{Key: key, Msg: msg, Kind: ErrInvalid})
			delete(doc, k)
		}
	}
	return errs
}

// tomlField returns the type of t's field whose toml tag is name.
func tomlField(t reflect.Type, name string) (reflect.Type, bool) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if tag, _, _ := strings.Cut(f.Tag.Get("toml"), ","); tag == name {
			return f.Type, true
		}
	}
	return nil, false
}

// typeMismatch returns why v cannot set a field of type ft ("" when it
// can); problems inside a table or array of tables go to errs.
func typeMismatch(v any, ft reflect.Type, key string, errs *[]error) string {
	if reflect.PointerTo(ft).Implements(textUnmarshaler) {
		// Strings and numbers are read as text (durations, sizes); the
		// decoder would stop at the first one that does not parse.
		var text string
		switch x := v.(type) {
		case string:
			text = x
		case int64, float64, bool:
			text = fmt.Sprint(x)
		default:
			return "must be a single value, got " + tomlType(v)
		}
		if err := reflect.New(ft).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(text)); err != nil {
			return err.Error()
		}
		return ""
	}
	switch ft.Kind() {
	case reflect.String:
		return want(v, "text", func() bool { _, ok := v.(string); return ok })
	case reflect.Bool:
		return want(v, "true or false", func() bool { _, ok := v.(bool); return ok })
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return want(v, "a whole number", func() bool { _, ok := v.(int64); return ok })
	case reflect.Float32, reflect.Float64:
		// A whole number is a number too (leaver_threshold = 1).
		return want(v, "a number", func() bool {
			switch v.(type) {
			case float64, int64:
				return true
			}
			return false
		})
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return "must be a table, got " + tomlType(v)
		}
		*errs = append(*errs, typeProblems(m, ft, key+".")...)
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return "must be a table, got " + tomlType(v)
		}
		if ft.Elem().Kind() == reflect.Struct {
			for name, inner := range m {
				if msg := typeMismatch(inner, ft.Elem(), key+"."+name, errs); msg != "" {
					*errs = append(*errs, &Problem{Key: key + "." + name, Msg: msg, Kind: ErrInvalid})
					delete(m, name)
				}
			}
		}
	case reflect.Slice:
		if ft.Elem().Kind() == reflect.Struct && !reflect.PointerTo(ft.Elem()).Implements(textUnmarshaler) {
			tables, ok := v.([]map[string]any)
			if !ok {
				return "must be an array of tables ([[" + key + "]]), got " + tomlType(v)
			}
			for i, tbl := range tables {
				*errs = append(*errs, typeProblems(tbl, ft.Elem(), fmt.Sprintf("%s[%d].", key, i))...)
			}
			return ""
		}
		items, ok := v.([]any)
		if !ok {
			return "must be an array, got " + tomlType(v)
		}
		for i, item := range items {
			if msg := typeMismatch(item, ft.Elem(), fmt.Sprintf("%s[%d]", key, i), errs); msg != "" {
				return fmt.Sprintf("[%d] %s", i, msg)
			}
		}
	}
	return ""
}

func want(v any, what string, ok func() bool) string {
	if ok() {
		return ""
	}
	return "must be " + what + ", got " + tomlType(v)
}

// tomlType names the TOML type of a decoded value, with the value when it
// is short.
func tomlType(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("the text %q", x)
	case int64:
		return fmt.Sprintf("the number %d", x)
	case float64:
		return fmt.Sprintf("the number %v", x)
	case bool:
		return fmt.Sprintf("%v", x)
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	case []any:
		return "an array"
	case time.Time:
		return "a date or time"
	}
	return fmt.Sprintf("%T", v)
}
