package sdk

import (
	"fmt"
	"slices"
	"sync"

	"github.com/hashicorp/go-plugin"
)

// Area identifies a feature area served by a plugin. Its string value is its
// one name everywhere: the config section [plugins.<area>], the command
// "honmaster plugin <area>", logs, /healthz and decision names ("<area>.<name>").
//
// An area is declared once, with RegisterArea, in its own contract package
// next to its types (see plugins/plinko/plinkoapi); everything else
// derives from the registry.
type Area string

// ProtocolVersion is the version of the base contract (proto/plugin.proto),
// negotiated through go-plugin's handshake. Per-decision versions are
// checked separately, through Info.
const ProtocolVersion = 2

// dispenseName is the go-plugin name every plugin is dispensed under: one
// service serves every area (the area travels in Configure and in decision
// names).
const dispenseName = "plugin"

// DecisionInfo names one decision and its version.
type DecisionInfo struct {
	Name    string // "<area>.<decision>"
	Version uint32
}

var registry = struct {
	sync.Mutex
	areas map[Area][]DecisionInfo
}{areas: map[Area][]DecisionInfo{}}

// RegisterArea declares an area. It panics when name is empty or declared
// twice: both are programming errors caught by any test.
func RegisterArea(name string) Area {
	registry.Lock()
	defer registry.Unlock()
	a := Area(name)
	if _, dup := registry.areas[a]; dup || name == "" {
		panic(fmt.Sprintf("sdk: area %q registered twice or empty", name))
	}
	registry.areas[a] = []DecisionInfo{}
	return a
}

func registerDecision(a Area, name string, version uint32) string {
	registry.Lock()
	defer registry.Unlock()
	ds, ok := registry.areas[a]
	full := string(a) + "." + name
	if !ok {
		panic(fmt.Sprintf("sdk: decision %s of unregistered area %q", full, a))
	}
	for _, d := range ds {
		if d.Name == full {
			panic("sdk: decision registered twice: " + full)
		}
	}
	registry.areas[a] = append(ds, DecisionInfo{Name: full, Version: version})
	return full
}

// Areas returns every registered area, sorted.
func Areas() []Area {
	registry.Lock()
	defer registry.Unlock()
	out := make([]Area, 0, len(registry.areas))
	for a := range registry.areas {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// Known reports whether a is a registered area.
func (a Area) Known() bool {
	registry.Lock()
	defer registry.Unlock()
	_, ok := registry.areas[a]
	return ok
}

// Decisions returns the decisions the area's plugin must serve.
func (a Area) Decisions() []DecisionInfo {
	registry.Lock()
	defer registry.Unlock()
	return slices.Clone(registry.areas[a])
}

// ProtocolVersion returns the base protocol version for a known area, 0
// otherwise.
func (a Area) ProtocolVersion() int {
	if !a.Known() {
		return 0
	}
	return ProtocolVersion
}

// ParseArea returns the area named s (as in "honmaster plugin <s>").
func ParseArea(s string) (Area, error) {
	a := Area(s)
	if !a.Known() {
		return "", fmt.Errorf("unknown plugin area %q", s)
	}
	return a, nil
}

// Handshake is the go-plugin handshake shared by the host and every plugin.
// The magic cookie is a UX check (it stops a user from running a plugin
// binary by hand), not a security measure. A plugin written in another
// language checks the environment variable and prints go-plugin's handshake
// line "1|2|tcp|127.0.0.1:PORT|grpc" (see docs/plugins.md, "Writing a plugin").
var Handshake = plugin.HandshakeConfig{
	MagicCookieKey:   "HONMASTER_PLUGIN_MAGIC_COOKIE",
	MagicCookieValue: "4f1d3a0c8e2b47a6b9d5c7e1f0a2b3c4-honmaster-plugin",
}

// ClientPluginSets returns the go-plugin VersionedPlugins a host passes in
// its ClientConfig; the dispensed value is a *Client. Package supervisor
// does this; hosts rarely need it directly.
func ClientPluginSets() map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{ProtocolVersion: {dispenseName: &grpcPlugin{}}}
}

// Dispense returns the *Client of a connected go-plugin client.
func Dispense(rpc plugin.ClientProtocol) (*Client, error) {
	raw, err := rpc.Dispense(dispenseName)
	if err != nil {
		return nil, err
	}
	c, ok := raw.(*Client)
	if !ok {
		return nil, fmt.Errorf("sdk: dispensed %T, want *sdk.Client", raw)
	}
	return c, nil
}
