package config

import (
	"reflect"
	"sort"
	"strings"
)

// Changed lists the keys whose value differs between old and new, as they
// are written in the file: "server.log_level", "limits.sessions_per_account",
// "plugins.guides" (one key per plugin area, its whole table), "patch" (the
// whole list). A table this package does not know field by field (a new
// section added later) is compared whole under its own name, so a change
// to it is never missed. The result is sorted.
func Changed(old, new *Config) []string {
	var out []string
	ov, nv := reflect.ValueOf(old).Elem(), reflect.ValueOf(new).Elem()
	t := ov.Type()
	for i := range t.NumField() {
		table := tomlName(t.Field(i))
		if table == "" {
			continue
		}
		of, nf := ov.Field(i), nv.Field(i)
		switch {
		case table == "areas":
			out = append(out, changedSections(of.Interface().(map[string]any), nf.Interface().(map[string]any))...)
		case of.Kind() == reflect.Map:
			keys := map[string]bool{}
			for _, k := range of.MapKeys() {
				keys[k.String()] = true
			}
			for _, k := range nf.MapKeys() {
				keys[k.String()] = true
			}
			for k := range keys {
				a, b := of.MapIndex(reflect.ValueOf(k)), nf.MapIndex(reflect.ValueOf(k))
				if a.IsValid() != b.IsValid() || (a.IsValid() && !reflect.DeepEqual(a.Interface(), b.Interface())) {
					out = append(out, table+"."+k)
				}
			}
		case of.Kind() == reflect.Struct:
			ft := of.Type()
			for j := range ft.NumField() {
				key := tomlName(ft.Field(j))
				if key != "" && !reflect.DeepEqual(of.Field(j).Interface(), nf.Field(j).Interface()) {
					out = append(out, table+"."+key)
				}
			}
		default:
			if !reflect.DeepEqual(of.Interface(), nf.Interface()) {
				out = append(out, table)
			}
		}
	}
	sort.Strings(out)
	return out
}

// changedSections lists the changed registered sections: "areas.<name>"
// for an [areas.*] section (compared whole), "<table>.<key>" for each
// changed key of a top-level table.
func changedSections(old, new map[string]any) []string {
	var out []string
	names := map[string]bool{}
	for n := range old {
		names[n] = true
	}
	for n := range new {
		names[n] = true
	}
	for n := range names {
		a, b := old[n], new[n]
		d, ok := sectionDefOf(n)
		if !ok || !d.top || a == nil || b == nil {
			if !reflect.DeepEqual(a, b) {
				out = append(out, d.key(n))
			}
			continue
		}
		av, bv := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
		for j := range av.NumField() {
			key := tomlName(av.Type().Field(j))
			if key != "" && !reflect.DeepEqual(av.Field(j).Interface(), bv.Field(j).Interface()) {
				out = append(out, n+"."+key)
			}
		}
	}
	return out
}

// Keep sets each of keys (as Changed names them) in dst to its value in
// src: a reload keeps the running value of a key that cannot change live.
// dst and src share no slice or map afterwards only where src's value is
// itself not shared; Keep copies the value, not its contents.
func Keep(dst, src *Config, keys []string) {
	dv, sv := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem()
	for _, key := range keys {
		table, rest, _ := strings.Cut(key, ".")
		df, ok := fieldByTOML(dv, table)
		if !ok {
			keepTableKey(dst, src, table, rest)
			continue
		}
		sf, _ := fieldByTOML(sv, table)
		switch {
		case rest == "":
			df.Set(sf)
		case df.Kind() == reflect.Map:
			k := reflect.ValueOf(rest)
			if df.IsNil() {
				df.Set(reflect.MakeMap(df.Type()))
			}
			df.SetMapIndex(k, sf.MapIndex(k)) // an invalid value deletes the key
		case df.Kind() == reflect.Struct:
			if f, ok := fieldByTOML(df, rest); ok {
				s, _ := fieldByTOML(sf, rest)
				f.Set(s)
			}
		}
	}
}

// keepTableKey sets key of the top-level table in dst to its value in src
// (a copy of dst's table is changed: configurations share no table).
func keepTableKey(dst, src *Config, table, key string) {
	d, ok := sectionDefOf(table)
	if !ok || !d.top || dst.Areas[table] == nil || src.Areas[table] == nil {
		return
	}
	c := d.clone(dst.Areas[table])
	f, ok := fieldByTOML(reflect.ValueOf(c).Elem(), key)
	if !ok {
		return
	}
	s, _ := fieldByTOML(reflect.ValueOf(d.clone(src.Areas[table])).Elem(), key)
	f.Set(s)
	dst.Areas[table] = c
}

// fieldByTOML returns the field of struct v whose TOML name is name.
func fieldByTOML(v reflect.Value, name string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		if tomlName(t.Field(i)) == name {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// tomlName is the TOML key of a struct field ("" when it has none).
func tomlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
	if name == "-" {
		return ""
	}
	return name
}
