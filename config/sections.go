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
// The areas built into the server before areas registered themselves
// (plinko, guides, reports) keep the top-level tables operators' files
// already use: RegisterTable declares one, with its defaults in a
// commented TOML document of the area's own.

// sectionDef is one registered section.
type sectionDef struct {
	// fresh returns a new pointer to a copy of the defaults.
	fresh func() any
	// clone returns a new pointer to a copy of v's value (v from fresh).
	clone func(v any) any
	// top: the table is [name], not [areas.name] (RegisterTable).
	top bool
	// doc is a top table's defaults document.
	doc string
}

// key is the section's table name in the file.
func (d sectionDef) key(name string) string {
	if d.top {
		return name
	}
	return "areas." + name
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

// RegisterTable declares the top-level table [name] of an area built into
// the server, decoded into a T whose defaults are doc: a TOML document
// holding that one table, every key set and commented, which is also the
// table's reference (DefaultTOML ends with it). T's slices and maps are
// copied between configurations (a copy is decoded anew). It panics on a
// name taken by the host's own tables or registered twice, and on a doc
// that does not decode strictly into T: programming errors any test
// catches. It returns the table's reader (Section for this table, which
// a program that registered it always has: the defaults at the least).
func RegisterTable[T any](name, doc string) func(*Config) T {
	decode := func() *T {
		var wrap map[string]T
		md, err := toml.Decode(doc, &wrap)
		if err == nil {
			err = keyErrors(md)
		}
		v, ok := wrap[name]
		if err != nil || !ok || len(wrap) != 1 {
			panic(fmt.Sprintf("config: the defaults of [%s] must be one table [%s] that decodes strictly: %v", name, name, err))
		}
		return &v
	}
	decode() // refuse a bad document at registration
	sections.Lock()
	defer sections.Unlock()
	if _, dup := sections.m[name]; dup || name == "" {
		panic(fmt.Sprintf("config: section %q registered twice or empty", name))
	}
	if _, host := fieldByTOMLType(reflect.TypeFor[Config](), name); host {
		panic(fmt.Sprintf("config: [%s] is a table of the host's own", name))
	}
	sections.m[name] = sectionDef{top: true, doc: doc,
		fresh: func() any { return decode() },
		clone: func(v any) any {
			// A copy that shares no slice or map: through the encoding.
			var buf bytes.Buffer
			c := new(T)
			if err := toml.NewEncoder(&buf).Encode(v); err == nil {
				if _, err := toml.Decode(buf.String(), c); err == nil {
					return c
				}
			}
			*c = *v.(*T) // not reached for a T the encoding round-trips
			return c
		}}
	return func(c *Config) T {
		v, _ := Section[T](c, name)
		return v
	}
}

// fieldByTOMLType reports whether struct type t has a field named name in
// TOML.
func fieldByTOMLType(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		if tomlName(t.Field(i)) == name {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

// areaSectionNames are the registered [areas.*] sections' names, sorted.
func areaSectionNames() []string {
	var out []string
	for _, n := range sectionNames() {
		if d, _ := sectionDefOf(n); !d.top {
			out = append(out, n)
		}
	}
	return out
}

// topTables are the registered top-level tables' names, sorted.
func topTables() []string {
	var out []string
	for _, n := range sectionNames() {
		if d, _ := sectionDefOf(n); d.top {
			out = append(out, n)
		}
	}
	return out
}

// tableDocs is the registered top-level tables' default documents, in the
// order of their names.
func tableDocs() string {
	var b strings.Builder
	for _, n := range topTables() {
		d, _ := sectionDefOf(n)
		b.WriteString("\n")
		b.WriteString(strings.TrimSpace(d.doc))
		b.WriteString("\n")
	}
	return b.String()
}

// KeyProblem is a problem with key of an area's table, for the table
// type's Validate: the configuration names it under the table
// ("plinko.board: ...").
func KeyProblem(key, format string, args ...any) error {
	return &Problem{Key: key, Msg: fmt.Sprintf(format, args...), Kind: ErrInvalid}
}

// Section returns the value of the table [areas.<name>] (RegisterSection)
// or [name] (RegisterTable) in c; ok is false when no section of that name
// and type is registered.
func Section[T any](c *Config, name string) (v T, ok bool) {
	p, ok := c.Areas[name].(*T)
	if !ok {
		return v, false
	}
	return *p, true
}

// SetSection sets the table name of c to v (a program's or a test's
// change to a loaded configuration); it panics when no section of that
// name and type is registered, a programming error.
func SetSection[T any](c *Config, name string, v T) {
	if _, ok := c.Areas[name].(*T); !ok {
		panic(fmt.Sprintf("config: no section %q of type %T", name, v))
	}
	c.Areas[name] = &v
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

// overlaySections decodes the [areas.*] tables and the registered top-level
// tables of a file (raw, as the decoder left them, by section name) over
// base's sections and returns the result with the problems found.
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
		d, ok := sectionDefOf(n)
		key := d.key(n)
		if !ok {
			errs = append(errs, &Problem{Key: key, Kind: ErrUnknownKey,
				Msg: fmt.Sprintf("unknown area (areas with settings here: %s)", listOrNone(areaSectionNames()))})
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

// SectionValidator is a section's check against the rest of the
// configuration (a limit of its own that must fit one of the host's), run
// by Validate after the section's own Validate.
type SectionValidator interface {
	ValidateIn(c *Config) error
}

// validateSections runs each section's own Validate, and its ValidateIn
// (SectionValidator), when its type has them: their problems (KeyProblem)
// are named under the table, any other error is the table's.
func (c *Config) validateSections(ps *problems) {
	for _, n := range sectionNames() {
		var err error
		if v, ok := c.Areas[n].(interface{ Validate() error }); ok {
			err = v.Validate()
		}
		if v, ok := c.Areas[n].(SectionValidator); ok {
			err = errors.Join(err, v.ValidateIn(c))
		}
		if err == nil {
			continue
		}
		d, _ := sectionDefOf(n)
		found := Problems(err)
		for _, p := range found {
			ps.add(d.key(n)+"."+p.Key, "%s", p.Msg)
		}
		if len(found) == 0 {
			ps.add(d.key(n), "%s", err.Error())
		}
	}
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
