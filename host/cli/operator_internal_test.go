package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/config"
	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// run calls Main as the binary would and returns its exit code and output.
func run(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = Main(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// internalPrefixes are package names that must never reach an operator or a
// player.
var internalPrefixes = []string{"wire:", "actors:", "storage:", "host:", "accounts:", "config:", "cloud:", "plinko:", "toml:"}

func assertNoPrefix(t *testing.T, what, text string) {
	t.Helper()
	for _, p := range internalPrefixes {
		if strings.Contains(text, p) {
			t.Errorf("%s shows the internal prefix %q: %q", what, p, text)
		}
	}
}

// TestHelpEverywhere: --help (and -h, and "help COMMAND") of every command
// and group prints its usage once on stdout and exits 0, with nothing on
// stderr.
func TestHelpEverywhere(t *testing.T) {
	cases := [][]string{
		{"--help"}, {"help"}, {"-h"},
		{"serve", "--help"}, {"serve", "-h"}, {"loadtest", "--help"}, {"version", "--help"}, {"plugin", "--help"},
		{"help", "serve"}, {"help", "account"}, {"help", "account", "create"},
	}
	groups := map[string]bool{}
	for _, o := range ops {
		cases = append(cases, append(strings.Fields(o.name), "--help"), append(strings.Fields(o.name), "-h"))
		if w := strings.Fields(o.name); len(w) > 1 {
			groups[w[0]] = true
		}
	}
	for g := range groups {
		cases = append(cases, []string{g, "--help"})
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errOut := run(args...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			if n := strings.Count(out, "usage: "+Name); n != 1 {
				t.Errorf("usage printed %d times:\n%s", n, out)
			}
			if strings.Contains(out, "help requested") || strings.Contains(out, "unknown command") {
				t.Errorf("help says %q", out)
			}
		})
	}
}

// TestOpHelpShowsFlags: an operator command's help lists its own flags.
func TestOpHelpShowsFlags(t *testing.T) {
	code, out, _ := run("account", "grant", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, f := range []string{"-login", "-tickets", "-upgrade", "--data"} {
		if !strings.Contains(out, f) {
			t.Errorf("help lacks %s:\n%s", f, out)
		}
	}
}

// TestGroupWithoutSubcommand: "account" alone is a usage error naming the
// subcommands (not "unknown command").
func TestGroupWithoutSubcommand(t *testing.T) {
	code, _, errOut := run("account")
	if code != 2 || !strings.Contains(errOut, "create, grant, show") || strings.Contains(errOut, "unknown command") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

func TestVersion(t *testing.T) {
	code, out, errOut := run("version")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out, Name+" ") || !strings.Contains(out, "revision ") || !strings.Contains(out, runtime.Version()) {
		t.Errorf("version = %q", out)
	}
}

// TestMissingDataDir: no operator command creates a data directory that
// does not exist, or a database in a directory that has none; each says so
// and fails. account create --init does create one.
func TestMissingDataDir(t *testing.T) {
	// Every command of the table, with valid arguments (a command-line
	// mistake is reported before the directory is looked at).
	var commands [][]string
	for _, o := range ops {
		args, ok := sampleArgs[o.name]
		if !ok {
			t.Fatalf("no sample arguments for %q", o.name)
		}
		if o.name == "backup" {
			args = []string{"--to", filepath.Join(t.TempDir(), "backup")}
		}
		commands = append(commands, append(strings.Fields(o.name), args...))
	}
	for _, cmd := range commands {
		var words []string
		for _, w := range cmd {
			if strings.HasPrefix(w, "-") {
				break
			}
			words = append(words, w)
		}
		name := strings.Join(words, "_")
		t.Run(name+"/missing", func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "mistyped")
			code, out, errOut := run(append(cmd, "--data", dir)...)
			if code != 1 || !strings.Contains(errOut, "does not exist") {
				t.Errorf("exit %d, stderr %q", code, errOut)
			}
			if strings.Contains(out, "written") {
				t.Errorf("stdout %q", out)
			}
			if _, err := os.Stat(dir); !os.IsNotExist(err) {
				t.Errorf("the command created %s", dir)
			}
			assertNoPrefix(t, "stderr", errOut)
		})
		t.Run(name+"/empty", func(t *testing.T) {
			dir := t.TempDir()
			code, _, errOut := run(append(cmd, "--data", dir)...)
			if code != 1 || !strings.Contains(errOut, "not a data directory") {
				t.Errorf("exit %d, stderr %q", code, errOut)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("the command wrote into %s: %v", dir, entries)
			}
		})
	}
	t.Run("init", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "new")
		code, out, errOut := run("account", "create", "--init", "--data", dir, "--login", "first", "--password", "p")
		if code != 0 || strings.TrimSpace(out) != `account 1 "first" created` {
			t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
		}
		// Quiet: an offline command prints its output, not the runtime's
		// start-up logs; only its line of the audit trail.
		if lines := strings.Split(strings.TrimSpace(errOut), "\n"); len(lines) != 1 || !strings.Contains(lines[0], `log=audit by="local command" action="account create" account=first`) {
			t.Errorf("stderr %q", errOut)
		}
		code, out, errOut = run("account", "show", "--data", dir, "--login", "first")
		if code != 0 || !strings.Contains(out, `"first"`) || errOut != "" {
			t.Errorf("show after init: exit %d %q %q", code, out, errOut)
		}
		if code, _, errOut := run("backup", "--init", "--data", dir, "--to", filepath.Join(t.TempDir(), "b")); code != 2 {
			t.Errorf("--init accepted by backup: exit %d %q", code, errOut)
		}
	})
}

// TestConfigErrorsListedTogether: every unknown key and invalid value of a
// file is listed in one run, each with its key, without the usage text.
func TestConfigErrorsListedTogether(t *testing.T) {
	file := filepath.Join(t.TempDir(), "bad.toml")
	body := "[server]\nlisen = \":1\"\nlog_level = \"loud\"\n[login]\ncookie_lifetime = \"0s\"\n[portal]\nregister = true\n[chat]\nport = \"11031\"\n"
	if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	for _, args := range [][]string{
		{"serve", "--config", file, "--data", data, "--listen", "127.0.0.1:0"},
		{"account", "show", "--config", file, "--data", data, "--login", "x"},
	} {
		t.Run(args[0], func(t *testing.T) {
			code, out, errOut := run(args...)
			if code != 2 || out != "" {
				t.Fatalf("exit %d, stdout %q", code, out)
			}
			for _, key := range []string{"server.lisen", "server.log_level", "login.cookie_lifetime", "portal.register", "chat.port", file, "5 problems"} {
				if !strings.Contains(errOut, key) {
					t.Errorf("stderr lacks %q:\n%s", key, errOut)
				}
			}
			if strings.Contains(errOut, "usage") || strings.Contains(errOut, "-listen") {
				t.Errorf("usage dumped:\n%s", errOut)
			}
			assertNoPrefix(t, "stderr", errOut)
		})
	}
}

// unservedArea has a contract (so [plugins.unserved] is a known table)
// but no host module in this binary.
var unservedArea = sdk.RegisterArea("unserved")

// TestPluginForAreaNotServed: --plugin for an area the config knows but this
// build does not serve is refused, not ignored.
func TestPluginForAreaNotServed(t *testing.T) {
	unserved := string(unservedArea)
	if _, ok := hostarea.Lookup(unservedArea); ok {
		t.Fatal("the test's contract-only area is served")
	}
	code, _, errOut := run("serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--plugin", unserved+"=/bin/true")
	if code == 0 || !strings.Contains(errOut, unserved) || !strings.Contains(errOut, "does not serve") {
		t.Errorf("exit %d: %s", code, errOut)
	}
	cfg := config.Default()
	p := cfg.Plugins[unserved]
	p.Path = "/bin/true"
	cfg.Plugins[unserved] = p
	if err := checkPluginFlags(cfg); err == nil {
		t.Error("plugins path in the file accepted")
	}
}

// TestPluginFlagHonoured: --plugin AREA=PATH is used, not silently
// ignored: a path that does not exist stops the start with a sentence that
// names the area, the path and the flag.
func TestPluginFlagHonoured(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "loopback.toml")
	if err := os.WriteFile(conf, []byte("[operator]\nlisten = \"127.0.0.1:0\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "no-such-plugin")
	code, _, errOut := run("serve", "--data", t.TempDir(), "--listen", "127.0.0.1:0", "--config", conf, "--plugin", "guides="+missing)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{"the guides plugin did not start", missing, "--plugin guides=PATH"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q: %q", want, errOut)
		}
	}
	assertNoPrefix(t, "stderr", errOut)
}

// TestStripInternal: a run of package prefixes goes whole, wherever the
// chain starts; an ordinary word before a colon stays.
func TestStripInternal(t *testing.T) {
	for in, want := range map[string]string{
		"storage: actors: account 5: not found":          "account 5: not found",
		"the command failed: pebble: storage: disk full": "the command failed: disk full",
		"cannot open (storage: wire: bad) here":          "cannot open (bad) here",
		"unknown login: bob":                             "unknown login: bob",
		"no answer from server: x":                       "no answer from server: x",
	} {
		if got := stripInternal(in); got != want {
			t.Errorf("stripInternal(%q) = %q, want %q", in, got, want)
		}
	}
}
