package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAccessLogSetting: server.access_log reads true, false, "errors" and a
// rate from a file; anything else is refused with the key named.
func TestAccessLogSetting(t *testing.T) {
	for _, tt := range []struct {
		value string
		want  AccessLog
		err   bool
	}{
		{"true", AccessLog{Rate: 1}, false},
		{"false", AccessLog{Off: true}, false},
		{`"errors"`, AccessLog{}, false},
		{"0.01", AccessLog{Rate: 0.01}, false},
		{"1", AccessLog{Rate: 1}, false},
		{"0", AccessLog{}, false},
		{"1.5", AccessLog{}, true},
		{"-0.1", AccessLog{}, true},
		{`"some"`, AccessLog{}, true},
	} {
		file := filepath.Join(t.TempDir(), "c.toml")
		if err := os.WriteFile(file, []byte("[server]\naccess_log = "+tt.value+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		c, err := Load(file)
		switch {
		case tt.err && (err == nil || !strings.Contains(err.Error(), "server.access_log")):
			t.Errorf("access_log = %s: %v, want a refusal naming server.access_log", tt.value, err)
		case !tt.err && err != nil:
			t.Errorf("access_log = %s: %v", tt.value, err)
		case !tt.err && c.Server.AccessLog != tt.want:
			t.Errorf("access_log = %s: %+v, want %+v", tt.value, c.Server.AccessLog, tt.want)
		}
	}
	if got := Default().Server.AccessLog; got != (AccessLog{Rate: 1}) {
		t.Errorf("default access_log %+v, want every request", got)
	}
}
