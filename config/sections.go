package config

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// Area sections: a feature area that is not part of this package declares
// its own table of settings, [areas.<name>], with RegisterSection, from
// the area's own package. The table decodes into the area's own type,
// starting from the area's defaults, with the same rules as the rest of the
// file: unknown keys and values of the wrong type are problems naming the
// key; the type's own Validate method, when it has one, runs in
// Config.Validate. A running server puts a changed section in force at its
// next restart (a reload keeps the running value and says so).
//
// The areas built into this package's Config (plinko, guides, reports)
// keep their top-level tables.

// sectionDef is one registered section.
type sectionDef struct {
	// fresh returns a new pointer to a copy of the defaults.
	fresh func() any
	// clone returns a new pointer to a copy of v's value (v from fresh).
	clone func(v any) any
}

var sections = struct {
	sync.Mutex
	m map[string]sectionDef
}{m: map[string]sectionDef{}}

// RegisterSection declares the table [areas.<name>], decoded into a T that
// starts as defaults. T is a struct of plain values (its slices and maps
// would be shared between configurations); its fields carry toml tags.
// Call it from an init function or a package-level var of the area's
// package. It panics on an empty name or one registered twice: both are
// programming errors any test catches.
func RegisterSection[T any](name string, defaults T) {
	sections.Lock()
	defer sections.Unlock()
	if _, dup := sections.m[name]; dup || name == "" {
		panic(fmt.Sprintf("config: section %q registered twice or empty", name))
	}
	sections.m[name] = sectionDef{
		fresh: func() any { v := defaults; return &v },
		clone: func(v any) any { c := *v.(*T); return &c },
	}
}

// Section returns the value of the table [areas.<name>] in c; ok is false
// when no section of that name and type is registered.
func Section[T any](c *Config, name string) (v T, ok bool) {
	p, ok := c.Areas[name].(*T)
	if !ok {
		return v, false
	}
	return *p, true
}

// sectionNames are the registered sections' names, sorted.
func sectionNames() []string {
	sections.Lock()
	defer sections.Unlock()
	out := make([]string, 0, len(sections.m))
	for n := range sections.m {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

func sectionDefOf(name string) (sectionDef, bool) {
	sections.Lock()
	defer sections.Unlock()
	d, ok := sections.m[name]
	return d, ok
}

// defaultSections returns every registered section at its defaults.
func defaultSections() map[string]any {
	out := map[string]any{}
	for _, n := range sectionNames() {
		d, _ := sectionDefOf(n)
		out[n] = d.fresh()
	}
	return out
}

// overlaySections decodes the [areas.*] tables of a file (raw, as the
// decoder left them) over base's sections and returns the result with the
// problems found.
func overlaySections(base map[string]any, raw map[string]any) (map[string]any, []error) {
	out := make(map[string]any, len(base))
	for n, v := range base {
		if d, ok := sectionDefOf(n); ok {
			out[n] = d.clone(v)
		}
	}
	var errs []error
	names := make([]string, 0, len(raw))
	for n := range raw {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		key := "areas." + n
		d, ok := sectionDefOf(n)
		if !ok {
			errs = append(errs, &Problem{Key: key, Kind: ErrUnknownKey,
				Msg: fmt.Sprintf("unknown area (areas with settings here: %s)", listOrNone(sectionNames()))})
			continue
		}
		table, ok := raw[n].(map[string]any)
		if !ok {
			errs = append(errs, &Problem{Key: key, Kind: ErrInvalid, Msg: "must be a table"})
			continue
		}
		v := out[n]
		if v == nil {
			v = d.fresh()
		}
		// Values of the wrong type are each reported and left out; the
		// rest is re-encoded and decoded into the area's type, over its
		// current value: keys the file leaves out keep theirs.
		errs = append(errs, typeProblems(table, reflect.TypeOf(v).Elem(), key+".")...)
		var buf bytes.Buffer
		if err := toml.NewEncoder(&buf).Encode(table); err != nil {
			errs = append(errs, &Problem{Key: key, Kind: ErrInvalid, Msg: err.Error()})
			continue
		}
		md, err := toml.Decode(buf.String(), v)
		if err != nil {
			var pe toml.ParseError
			if errors.As(err, &pe) && pe.LastKey != "" {
				errs = append(errs, &Problem{Key: key + "." + pe.LastKey, Kind: ErrInvalid, Msg: pe.Message})
			} else {
				errs = append(errs, &Problem{Key: key, Kind: ErrInvalid, Msg: err.Error()})
			}
			continue
		}
		for _, k := range md.Undecoded() {
			errs = append(errs, &Problem{Key: key + "." + k.String(), Msg: "unknown key", Kind: ErrUnknownKey})
		}
		out[n] = v
	}
	return out, errs
}

// validateSections runs each section's own Validate, when its type has one.
func (c *Config) validateSections(ps *problems) {
	for _, n := range sectionNames() {
		v, ok := c.Areas[n].(interface{ Validate() error })
		if !ok {
			continue
		}
		if err := v.Validate(); err != nil {
			ps.add("areas."+n, "%s", err.Error())
		}
	}
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
