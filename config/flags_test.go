package config

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const precedenceFile = `
[server]
listen = ":9000"
log_level = "warn"
log_format = "json"
[storage]
data_dir = "/var/lib/hon"
[plugins.guides]
path = "/file/guides"
args = ["--from-file"]
`

func TestFromArgsPrecedence(t *testing.T) {
	tests := []struct {
		name       string
		file       bool // pass --config with precedenceFile
		args       []string
		listen     string
		dataDir    string
		logLevel   LogLevel
		logFormat  LogFormat // only the file sets it
		guidesPath string
	}{
		{"defaults", false, nil, ":8080", "./data", LogInfo, LogText, ""},
		{"file over defaults", true, nil, ":9000", "/var/lib/hon", LogWarn, LogJSON, "/file/guides"},
		{"flags over defaults", false, []string{"--listen", ":7000", "--data=/tmp/d", "-log-level", "debug"},
			":7000", "/tmp/d", LogDebug, LogText, ""},
		{"flags over file", true, []string{"--listen=:7000", "--log-level=error", "--plugin", "guides=/flag/guides"},
			":7000", "/var/lib/hon", LogError, LogJSON, "/flag/guides"},
		{"flags before --config still win", true, []string{"--data=/tmp/d"},
			":9000", "/tmp/d", LogWarn, LogJSON, "/file/guides"},
		{"last flag wins", false, []string{"--listen=:1", "--listen=:2"}, ":2", "./data", LogInfo, LogText, ""},
		{"plugin flag resets to bundled", true, []string{"--plugin=guides="},
			":9000", "/var/lib/hon", LogWarn, LogJSON, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if tt.file {
				// --config goes last so "flags before --config" really is.
				args = append(append([]string{}, args...), "--config", writeFile(t, precedenceFile))
			}
			fs := flag.NewFlagSet("host", flag.ContinueOnError)
			c, err := FromArgs(fs, args)
			if err != nil {
				t.Fatal(err)
			}
			if c.Server.Listen != tt.listen || c.Storage.DataDir != tt.dataDir ||
				c.Server.LogLevel != tt.logLevel || c.Server.LogFormat != tt.logFormat ||
				c.Plugins["guides"].Path != tt.guidesPath {
				t.Errorf("got listen=%q data=%q level=%q format=%q guides=%q",
					c.Server.Listen, c.Storage.DataDir, c.Server.LogLevel, c.Server.LogFormat, c.Plugins["guides"].Path)
			}
			// --plugin sets only the path; the rest comes from file or defaults.
			if g := c.Plugins["guides"]; g.CallTimeout != Default().Plugins["guides"].CallTimeout {
				t.Errorf("guides call_timeout = %v", g.CallTimeout)
			}
			if tt.file && !equalStrings(c.Plugins["guides"].Args, []string{"--from-file"}) {
				t.Errorf("guides args = %q, want the file's", c.Plugins["guides"].Args)
			}
		})
	}
}

func equalStrings(a, b []string) bool { return strings.Join(a, "\x00") == strings.Join(b, "\x00") }

func TestFromArgsErrors(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantText string
		wantIs   error
	}{
		{"plugin without =", []string{"--plugin", "guides"}, "AREA=PATH", nil},
		{"plugin empty area", []string{"--plugin", "=/x"}, "AREA=PATH", nil},
		{"plugin unknown area", []string{"--plugin", "chess=/x"}, `unknown plugin area "chess"`, nil},
		{"bad log level", []string{"--log-level", "loud"}, "-log-level", nil},
		{"unknown flag", []string{"--nope"}, "nope", nil},
		{"help", []string{"-h"}, "", flag.ErrHelp},
		{"missing config file", []string{"--config", "/nonexistent/master.toml"}, "/nonexistent/master.toml", nil},
		{"invalid after flags", []string{"--listen", "nowhere"}, "server.listen: ", ErrInvalid},
		{"invalid data dir", []string{"--data", ""}, "storage.data_dir: ", ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("host", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			c, err := FromArgs(fs, tt.args)
			if err == nil {
				t.Fatalf("FromArgs succeeded: %+v", c)
			}
			if !strings.Contains(err.Error(), tt.wantText) {
				t.Errorf("error %q does not contain %q", err, tt.wantText)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.wantIs)
			}
		})
	}
}

func TestPluginFlag(t *testing.T) {
	tests := []struct {
		args []string
		want map[string]string // area -> path; every other known area keeps "" (bundled)
	}{
		{nil, nil},
		{[]string{"--plugin", "plinko=/bin/plinko"}, map[string]string{"plinko": "/bin/plinko"}},
		{[]string{"--plugin", "plinko=/a", "--plugin", "reports=/b", "--plugin", "plinko=/c"},
			map[string]string{"plinko": "/c", "reports": "/b"}},
		{[]string{"--plugin", "guides=/path/with=equals"}, map[string]string{"guides": "/path/with=equals"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			// BindFlags writes straight into the config it is bound to.
			c := Default()
			fs := flag.NewFlagSet("host", flag.ContinueOnError)
			c.BindFlags(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			want := map[string]string{}
			for _, area := range pluginAreas() {
				want[area] = tt.want[area]
			}
			got := map[string]string{}
			for area, p := range c.Plugins {
				got[area] = p.Path
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("plugins.<area>.path differ (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFlagHelpShowsDefaults(t *testing.T) {
	fs := flag.NewFlagSet("host", flag.ContinueOnError)
	Default().BindFlags(fs)
	var buf bytes.Buffer
	fs.SetOutput(&buf)
	fs.PrintDefaults()
	for _, want := range []string{`-listen address`, `(default :8080)`, `(default ./data)`, `(default info)`, "-plugin AREA=PATH"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("help lacks %q:\n%s", want, buf.String())
		}
	}
}

// TestOperatorListenFlag: --operator-listen moves the operator listener
// without a file (a second instance on one machine).
func TestOperatorListenFlag(t *testing.T) {
	c, err := FromArgs(flag.NewFlagSet("t", flag.ContinueOnError), []string{"--operator-listen", "127.0.0.1:9181"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Operator.Listen != "127.0.0.1:9181" {
		t.Errorf("operator.listen = %q", c.Operator.Listen)
	}
}
