package sdk

import (
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// ConfigValidator is a configuration type that checks its own values once
// DecodeConfig has filled it in: a value out of range, or two settings
// that do not go together. Keys are relative to the plugin's table, as in
// ConfigProblem.
type ConfigValidator interface {
	Validate() []ConfigProblem
}

// DecodeConfig fills in *into, which holds the plugin's defaults, from the
// operator's [plugins.<area>.config] table, strictly: a key that is no
// field of T (by its `json` tag, else its name), or a value of the wrong
// type, is a problem naming its key (nested tables as "outer.inner"), and
// every problem is reported at once. When *T is a ConfigValidator, its
// Validate runs on the result (with the defaults in the keys that could not
// be decoded, whose problems it does not repeat). *into is changed only when there is no
// problem, so a plugin that refuses its configuration keeps the one it had.
//
// TOML values arrive as JSON values: numbers fit any numeric field they
// are exact in (a whole number for an integer field), durations are
// strings a field's own encoding.TextUnmarshaler parses.
func DecodeConfig[T any](cfg map[string]any, into *T) []ConfigProblem {
	v := *into
	problems := decodeTable(cfg, reflect.ValueOf(&v).Elem(), "")
	if cv, ok := any(&v).(ConfigValidator); ok {
		// Validated even after a decoding problem, so that every problem is
		// said at once; a key that could not be decoded is not validated
		// again (it holds its default).
		for _, p := range cv.Validate() {
			if !slices.ContainsFunc(problems, func(q ConfigProblem) bool { return q.Key == p.Key }) {
				problems = append(problems, p)
			}
		}
	}
	if len(problems) > 0 {
		slices.SortFunc(problems, func(a, b ConfigProblem) int { return strings.Compare(a.Key, b.Key) })
		return problems
	}
	*into = v
	return nil
}

// ConfigureWith returns a Plugin.Configure that decodes the table into a
// copy of defaults with DecodeConfig and, when it has no problem, passes
// the result to adopt.
func ConfigureWith[T any](defaults T, adopt func(T)) func(context.Context, Area, map[string]any) []ConfigProblem {
	return func(_ context.Context, _ Area, cfg map[string]any) []ConfigProblem {
		c := defaults
		if ps := DecodeConfig(cfg, &c); len(ps) > 0 {
			return ps
		}
		adopt(c)
		return nil
	}
}

var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// decodeTable sets the fields of the struct v from table, keys prefixed
// with prefix.
func decodeTable(table map[string]any, v reflect.Value, prefix string) []ConfigProblem {
	fields := configFields(v.Type())
	var problems []ConfigProblem
	for k, val := range table {
		key := prefix + k
		i, ok := fields[k]
		if !ok {
			problems = append(problems, ConfigProblem{Key: key, Message: "unknown key (known: " + knownKeys(fields) + ")"})
			continue
		}
		f := v.Field(i)
		sub, isTable := val.(map[string]any)
		if isTable && f.Kind() == reflect.Struct && !reflect.PointerTo(f.Type()).Implements(textUnmarshaler) {
			problems = append(problems, decodeTable(sub, f, key+".")...)
			continue
		}
		if msg := decodeValue(val, f); msg != "" {
			problems = append(problems, ConfigProblem{Key: key, Message: msg})
		}
	}
	return problems
}

// configFields maps each configurable field's key to its index.
func configFields(t reflect.Type) map[string]int {
	out := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := f.Name
		if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag == "-" {
			continue
		} else if tag != "" {
			name = tag
		}
		out[name] = i
	}
	return out
}

func knownKeys(fields map[string]int) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ", ")
}

// decodeValue sets f from val through encoding/json, and words a failure
// for the operator ("" when it succeeded). f is left unchanged on failure.
func decodeValue(val any, f reflect.Value) string {
	raw, err := json.Marshal(val)
	if err != nil {
		return fmt.Sprintf("cannot be read: %v", err)
	}
	p := reflect.New(f.Type())
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p.Interface()); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Sprintf("must be %s, got %s", describeType(f.Type()), describeValue(val))
		}
		return fmt.Sprintf("must be %s, got %s (%v)", describeType(f.Type()), describeValue(val), err)
	}
	f.Set(p.Elem())
	return ""
}

// describeType names t in the operator's terms.
func describeType(t reflect.Type) string {
	if reflect.PointerTo(t).Implements(textUnmarshaler) {
		return "a valid string"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list of " + strings.TrimPrefix(describeType(t.Elem()), "a ")
	case reflect.Map, reflect.Struct:
		return "a table"
	}
	return "a " + t.Kind().String()
}

// describeValue names the TOML value the operator wrote.
func describeValue(v any) string {
	switch v := v.(type) {
	case string:
		return fmt.Sprintf("%q", v)
	case map[string]any:
		return "a table"
	case []any:
		return "a list"
	case nil:
		return "nothing"
	}
	return fmt.Sprint(v)
}
