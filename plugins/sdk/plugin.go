package sdk

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Plugin is what a plugin binary serves: its name and version, how it takes
// its configuration, and one handler per decision (added with Handle). A
// plugin keeps no per-account state in memory: what it must remember
// travels as Call.State / Result.State and is stored by the host.
//
// A *Plugin is also a Caller, so tests can call it in process (see Mock and
// TestClient for the gRPC path).
type Plugin struct {
	Name, Version string
	// Configure validates the operator's [plugins.<area>.config] table and
	// adopts it. It is called at start and after every restart, before any
	// decision. A nil Configure accepts only an empty table.
	Configure func(ctx context.Context, area Area, cfg map[string]any) []ConfigProblem

	handlers map[string]handler
}

// ConfigProblem is one rejected configuration key. Key is relative to the
// config table ("after"); the host reports it as plugins.<area>.config.after.
type ConfigProblem struct {
	Key, Message string
}

func (p ConfigProblem) String() string { return p.Key + ": " + p.Message }

// Info describes a plugin, as its Info call answers.
type Info struct {
	Name, Version string
	Decisions     []DecisionInfo
}

// Info reports the plugin's name, version and decisions.
func (p *Plugin) Info() Info {
	info := Info{Name: p.Name, Version: p.Version}
	for name, h := range p.handlers {
		info.Decisions = append(info.Decisions, DecisionInfo{Name: name, Version: h.version})
	}
	slices.SortFunc(info.Decisions, func(a, b DecisionInfo) int { return strings.Compare(a.Name, b.Name) })
	return info
}

// configure runs Configure.
func (p *Plugin) configure(ctx context.Context, area Area, cfg map[string]any) []ConfigProblem {
	if p.Configure == nil {
		var out []ConfigProblem
		for k := range cfg {
			out = append(out, ConfigProblem{Key: k, Message: "unknown key (this plugin takes no configuration)"})
		}
		slices.SortFunc(out, func(a, b ConfigProblem) int { return strings.Compare(a.Key, b.Key) })
		return out
	}
	return p.Configure(ctx, area, cfg)
}

// Decide calls the handler of decision in process.
func (p *Plugin) Decide(ctx context.Context, decision string, facts, state []byte) (RawResult, error) {
	h, ok := p.handlers[decision]
	if !ok {
		return RawResult{}, fmt.Errorf("%w: plugin %q does not serve %s", ErrPluginFailed, p.Name, decision)
	}
	if err := ctx.Err(); err != nil {
		return RawResult{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return h.fn(ctx, facts, state)
}

var _ Caller = (*Plugin)(nil)
