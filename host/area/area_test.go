package area

import (
	"errors"
	"flag"
	"fmt"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
)

var testArea = sdk.RegisterArea("areatest")

func noRoutes(Env) (*Live, error) { return &Live{}, nil }

// TestHostOnlyArea: an area without a plugin registers by a plain name,
// is listed among the areas but not among those with a plugin.
func TestHostOnlyArea(t *testing.T) {
	Register(Module{Area: sdk.Area("hostonlytest"), Start: noRoutes})
	if _, ok := Lookup("hostonlytest"); !ok {
		t.Fatal("not registered")
	}
	for _, m := range PluginModules() {
		if m.Area == "hostonlytest" {
			t.Error("listed among the areas with a plugin")
		}
	}
	for _, n := range PluginNames() {
		if n == "hostonlytest" {
			t.Error("named among the areas with a plugin")
		}
	}
}

func TestRegisterAndLookup(t *testing.T) {
	Register(Module{Area: testArea, Bundled: func() *sdk.Plugin { return &sdk.Plugin{} }, Start: noRoutes})
	if m, ok := Lookup(testArea); !ok || m.Area != testArea {
		t.Fatalf("Lookup = %+v, %v", m, ok)
	}
	found := false
	for _, n := range Names() {
		found = found || n == string(testArea)
	}
	if !found {
		t.Errorf("Names() = %v lacks %s", Names(), testArea)
	}
	for name, m := range map[string]Module{
		"twice":                          {Area: testArea, Bundled: func() *sdk.Plugin { return nil }, Start: noRoutes},
		"no contract":                    {Area: sdk.Area("nocontract"), Bundled: func() *sdk.Plugin { return nil }, Start: noRoutes},
		"no routes":                      {Area: testArea},
		"no bundled":                     {Area: testArea, Start: noRoutes},
		"host-only without a plain name": {Area: sdk.Area("Host only"), Start: noRoutes},
		"player verb login": {Area: sdk.Area("playerlogin"), Start: noRoutes,
			PlayerCommands: []PlayerCommand{{Verb: "login", Flags: func(*flag.FlagSet) PlayerRequest { return nil }}}},
		"player verb of two words": {Area: sdk.Area("playerwords"), Start: noRoutes,
			PlayerCommands: []PlayerCommand{{Verb: "file report", Flags: func(*flag.FlagSet) PlayerRequest { return nil }}}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Register did not panic", name)
				}
			}()
			Register(m)
		}()
	}
}

func TestCauseOf(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want Cause
	}{
		{login.ErrInvalidCookie, CauseBadCookie},
		{actors.ErrNoAccount, CauseBadCookie},
		{storage.ErrEngineFailed, CauseStorageFull},
		{fmt.Errorf("%w: x", ErrBadRequest), CauseBadRequest},
		{fmt.Errorf("%w: down", sdk.ErrUnavailable), CausePluginDown},
		{fmt.Errorf("%w: 500 tickets", sdk.ErrInvalidDecision), CausePluginDown},
		{storage.ErrDiskFull, CauseStorageFull},
		{fmt.Errorf("storage: commit: %w", storage.ErrUnavailable), CauseStorageFull},
		{storage.ErrFenced, CauseRetry},
		{actors.ErrTimeout, CauseOutcomeUnknown},
		// Outcome unknown wins over anything else in the chain.
		{errors.Join(storage.ErrCommitUncertain, storage.ErrDiskFull), CauseOutcomeUnknown},
		{errors.New("boom"), CauseInternal},
		{nil, CauseOther},
	} {
		if got := CauseOf(tt.err); got != tt.want {
			t.Errorf("CauseOf(%v) = %d, want %d", tt.err, got, tt.want)
		}
		if tt.want != CauseOther && tt.want.Message() == "" {
			t.Errorf("cause %d has no message", tt.want)
		}
	}
}
