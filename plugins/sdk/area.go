package sdk

import (
	"fmt"
	"sort"

	"github.com/hashicorp/go-plugin"
)

// Area identifies a feature area served by a plugin. Its string value is
// also the wire name: the go-plugin dispense name and the word in
// "host plugin <area>".
type Area string

// Areas. Each area has one row in areaTable below.
const (
	AreaPlinko Area = "plinko"
)

// Protocol versions per area, negotiated through go-plugin's
// VersionedPlugins. Bump an area's version when its contract changes
// incompatibly.
const (
	PlinkoProtocolVersion = 1
)

// areaSpec is what the plugin machinery needs to know about one area.
type areaSpec struct {
	version int
	// client is the dispensable plugin on the host side (no implementation).
	client plugin.Plugin
	// server returns the plugin to serve when opts carries an
	// implementation for the area, or nil.
	server func(opts ServeOpts) plugin.Plugin
}

// areaTable is the one place where areas, their wire names and their
// protocol versions meet. Adding an area is a contract file (like
// plinko.go and plinko_grpc.go), a proto file and one row here.
var areaTable = map[Area]areaSpec{
	AreaPlinko: {
		version: PlinkoProtocolVersion,
		client:  &PlinkoPlugin{},
		server: func(o ServeOpts) plugin.Plugin {
			if o.Plinko == nil {
				return nil
			}
			return &PlinkoPlugin{Impl: o.Plinko}
		},
	},
}

// Handshake is the go-plugin handshake shared by the host and every plugin.
// The magic cookie is a UX check (it stops a user from running a plugin
// binary by hand), not a security measure. ProtocolVersion is unused:
// versions are per area, see ClientPluginSets.
var Handshake = plugin.HandshakeConfig{
	MagicCookieKey:   "HONMASTER_PLUGIN_MAGIC_COOKIE",
	MagicCookieValue: "4f1d3a0c8e2b47a6b9d5c7e1f0a2b3c4-honmaster-plugin",
}

// Areas returns every known area, sorted.
func Areas() []Area {
	out := make([]Area, 0, len(areaTable))
	for a := range areaTable {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Known reports whether a is a known area.
func (a Area) Known() bool {
	_, ok := areaTable[a]
	return ok
}

// ProtocolVersion returns the protocol version of the area's contract, or 0
// for an unknown area.
func (a Area) ProtocolVersion() int {
	return areaTable[a].version
}

// ParseArea returns the area named s (as in "host plugin <s>").
func ParseArea(s string) (Area, error) {
	a := Area(s)
	if !a.Known() {
		return "", fmt.Errorf("sdk: unknown plugin area %q", s)
	}
	return a, nil
}

// ClientPluginSets returns the go-plugin VersionedPlugins a host passes in
// its ClientConfig to run a plugin for area. Package supervisor does this;
// hosts rarely need it directly.
func ClientPluginSets(area Area) (map[int]plugin.PluginSet, error) {
	spec, ok := areaTable[area]
	if !ok {
		return nil, fmt.Errorf("sdk: unknown plugin area %q", area)
	}
	return map[int]plugin.PluginSet{
		spec.version: {string(area): spec.client},
	}, nil
}

// serverPluginSets returns the VersionedPlugins to serve for opts. Areas on
// the same protocol version share a set; a host asking for one area offers
// only that area's version, so go-plugin picks the right set.
func serverPluginSets(opts ServeOpts) map[int]plugin.PluginSet {
	sets := map[int]plugin.PluginSet{}
	for area, spec := range areaTable {
		p := spec.server(opts)
		if p == nil {
			continue
		}
		if sets[spec.version] == nil {
			sets[spec.version] = plugin.PluginSet{}
		}
		sets[spec.version][string(area)] = p
	}
	return sets
}
