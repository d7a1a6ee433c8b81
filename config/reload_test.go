package config

import (
	"slices"
	"testing"
	"time"
)

func TestChangedAndKeep(t *testing.T) {
	old, new := Default(), Default()
	if got := Changed(old, new); len(got) != 0 {
		t.Fatalf("two defaults differ in %v", got)
	}
	new.Server.LogLevel = LogDebug
	new.Server.Listen = ":9999"
	new.Limits.RegistrationsPerAddress.Burst = 1
	new.Storage.Postgres.MaxConns = 3
	p := new.Plugins["guides"]
	p.CallTimeout = Duration{Duration: time.Minute}
	new.Plugins["guides"] = p
	new.Patches = new.Patches[:1]
	want := []string{"limits.registrations_per_address", "patch", "plugins.guides", "server.listen", "server.log_level", "storage.postgres"}
	got := Changed(old, new)
	if !slices.Equal(got, want) {
		t.Fatalf("Changed = %v, want %v", got, want)
	}
	Keep(new, old, []string{"server.listen", "storage.postgres", "plugins.guides", "patch"})
	if got, want := Changed(old, new), []string{"limits.registrations_per_address", "server.log_level"}; !slices.Equal(got, want) {
		t.Fatalf("after Keep, Changed = %v, want %v", got, want)
	}
	if new.Server.Listen != old.Server.Listen || new.Server.LogLevel != LogDebug {
		t.Fatalf("Keep: listen %q level %q", new.Server.Listen, new.Server.LogLevel)
	}
}
