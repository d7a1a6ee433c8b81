package cli_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/storage"
)

// TestBackupWhileRunning takes a backup through the running server and
// opens it as a database.
func TestBackupWhileRunning(t *testing.T) {
	ts := start(t, onPebble)
	ts.Host(t, "account", "create", "--login", "saved", "--password", "pw")
	dir := filepath.Join(t.TempDir(), "backup")
	if out := ts.Host(t, "backup", "--to", dir); !strings.Contains(out, dir) {
		t.Fatalf("backup said %q", out)
	}
	db, err := storage.Open(filepath.Join(dir, "db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.LoginID("saved"); err != nil {
		t.Errorf("backup lacks the account: %v", err)
	}
	want, err := os.ReadFile(filepath.Join(ts.DataDir, "operator.token"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(dir, "operator.token")); err != nil || string(got) != string(want) {
		t.Errorf("backup's operator.token: %q, %v", got, err)
	}
}

// TestRestore: restore refuses a running server's directory and a
// directory that is not a backup (changing nothing), and restores a backup
// into a new data directory, token included, that a server then serves.
func TestRestore(t *testing.T) {
	ts := start(t, onPebble)
	ts.Host(t, "account", "create", "--login", "kept", "--password", "pw")
	backup := filepath.Join(t.TempDir(), "backup")
	ts.Host(t, "backup", "--to", backup)
	run := func(args ...string) (int, string, string) {
		var out, errOut strings.Builder
		code := cli.Main(context.Background(), append([]string{"restore"}, args...), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	if code, _, errOut := run("--from", backup, "--data", ts.DataDir, "--replace"); code == 0 || !strings.Contains(errOut, "a server is running") {
		t.Errorf("restore into the running server's directory: exit %d, %q", code, errOut)
	}
	target := filepath.Join(t.TempDir(), "restored")
	if code, _, errOut := run("--from", t.TempDir(), "--data", target); code == 0 || !strings.Contains(errOut, "holds no backup") {
		t.Errorf("restore from an empty directory: exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(target, "db")); err == nil {
		t.Error("a refused restore left a database behind")
	}
	code, out, errOut := run("--from", backup, "--data", target)
	if code != 0 || !strings.Contains(out, "1 accounts") || !strings.Contains(out, "operator token restored") {
		t.Fatalf("restore: exit %d, %q, %q", code, out, errOut)
	}
	if code, _, errOut := run("--from", backup, "--data", target); code != 2 || !strings.Contains(errOut, "--replace") {
		t.Errorf("second restore without --replace: exit %d, %q", code, errOut)
	}
	if code, out, errOut := run("--from", backup, "--data", target, "--replace"); code != 0 || !strings.Contains(out, "db.replaced-") {
		t.Errorf("restore --replace: exit %d, %q, %q", code, out, errOut)
	}
	want, _ := os.ReadFile(filepath.Join(ts.DataDir, "operator.token"))
	if got, err := os.ReadFile(filepath.Join(target, "operator.token")); err != nil || string(got) != string(want) {
		t.Errorf("restored operator.token: %q, %v", got, err)
	}

	// Issue 36 item 5: a database that is a symbolic link is not replaced
	// (--replace would set the link aside and put the restore beside it).
	linked := filepath.Join(t.TempDir(), "linked")
	if err := os.Mkdir(linked, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(target, "db"), filepath.Join(linked, "db")); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := run("--from", backup, "--data", linked, "--replace"); code != 2 || !strings.Contains(errOut, "symbolic link") {
		t.Errorf("restore --replace onto a db that is a symbolic link: exit %d, %q", code, errOut)
	}
	if fi, err := os.Lstat(filepath.Join(linked, "db")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the refused restore changed the link: %v %v", fi, err)
	}
	// Restoring into a directory of another user's warns (only root can
	// make one to try).
	if os.Getuid() == 0 {
		theirs := t.TempDir()
		if err := os.Chown(theirs, 12345, 12345); err != nil {
			t.Fatal(err)
		}
		if code, _, errOut := run("--from", backup, "--data", theirs); code != 0 || !strings.Contains(errOut, "belongs to user 12345") {
			t.Errorf("restore into another user's directory: exit %d, %q, want a warning naming its owner", code, errOut)
		}
	}

	restored := start(t, func(c *config.Config) { onPebble(c); c.Storage.DataDir = target })
	if out := restored.Host(t, "account", "show", "--login", "kept"); !strings.Contains(out, "kept") {
		t.Errorf("the restored server does not know the account: %q", out)
	}
}

// TestRestoreRefusesADamagedBackup: a backup whose files changed after it
// was written (a bad disk, a partial copy) is refused, nothing changed,
// and `sha256sum -c` can check it too. Before, restore only opened the
// copy: Pebble reads a write-ahead log that ends in a damaged record as
// a log that ends there, and a small database, all in its log, was
// restored with 4 of its 5 accounts (or none), exit 0; with --replace the
// good database was set aside for it.
func TestRestoreRefusesADamagedBackup(t *testing.T) {
	ts := start(t, onPebble)
	for _, login := range []string{"one", "two", "three", "four", "five"} {
		ts.Host(t, "account", "create", "--login", login, "--password", "pw")
	}
	backup := filepath.Join(t.TempDir(), "backup")
	if out := ts.Host(t, "backup", "--to", backup); !strings.Contains(out, cli.SumsFile) {
		t.Fatalf("backup said %q", out)
	}
	sums, err := os.ReadFile(filepath.Join(backup, cli.SumsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  db/MANIFEST-", "  operator.token\n"} {
		if !strings.Contains(string(sums), want) {
			t.Fatalf("%s lacks %q:\n%s", cli.SumsFile, want, sums)
		}
	}
	if sha, err := exec.LookPath("sha256sum"); err == nil {
		cmd := exec.Command(sha, "--check", "--quiet", cli.SumsFile)
		cmd.Dir = backup
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("sha256sum --check of the backup: %v %s", err, out)
		}
	}
	run := func(args ...string) (int, string, string) {
		var out, errOut strings.Builder
		code := cli.Main(context.Background(), append([]string{"restore"}, args...), &out, &errOut)
		return code, out.String(), errOut.String()
	}
	// A good database to keep, and the untouched backup restores whole.
	good := filepath.Join(t.TempDir(), "good")
	if code, out, errOut := run("--from", backup, "--data", good); code != 0 || !strings.Contains(out, "5 accounts") || errOut != "" && !strings.Contains(errOut, "restore") {
		t.Fatalf("restore of the whole backup: exit %d, %q, %q", code, out, errOut)
	}
	logs, _ := filepath.Glob(filepath.Join(backup, "db", "*.log"))
	if len(logs) == 0 {
		t.Fatal("the backup has no write-ahead log to damage")
	}
	damage := func(t *testing.T, name string, edit func(dir string)) string {
		dir := filepath.Join(t.TempDir(), name)
		if err := os.CopyFS(dir, os.DirFS(backup)); err != nil {
			t.Fatal(err)
		}
		edit(dir)
		return dir
	}
	for name, edit := range map[string]func(dir string){
		"a changed log": func(dir string) {
			path := filepath.Join(dir, "db", filepath.Base(logs[len(logs)-1]))
			b, err := os.ReadFile(path)
			if err != nil || len(b) < 64 {
				t.Fatalf("log %s: %d bytes, %v", path, len(b), err)
			}
			copy(b[len(b)/2:], strings.Repeat("\xff", 16))
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
		},
		"a missing log": func(dir string) {
			if err := os.Remove(filepath.Join(dir, "db", filepath.Base(logs[len(logs)-1]))); err != nil {
				t.Fatal(err)
			}
		},
		"a changed token": func(dir string) {
			if err := os.WriteFile(filepath.Join(dir, "operator.token"), []byte("not the token"), 0o600); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			bad := damage(t, "bad", edit)
			target := filepath.Join(t.TempDir(), "restored")
			if code, out, errOut := run("--from", bad, "--data", target); code == 0 || !strings.Contains(errOut, "is damaged, nothing was changed") {
				t.Fatalf("restore of a backup with %s: exit %d, %q, %q", name, code, out, errOut)
			}
			if _, err := os.Stat(filepath.Join(target, "db")); err == nil {
				t.Error("a refused restore left a database behind")
			}
			if code, out, errOut := run("--from", bad, "--data", good, "--replace"); code == 0 {
				t.Fatalf("restore --replace of a backup with %s: exit %d, %q, %q", name, code, out, errOut)
			}
			if aside, _ := filepath.Glob(filepath.Join(good, "db.replaced-*")); len(aside) != 0 {
				t.Errorf("a refused restore --replace set the database aside: %v", aside)
			}
		})
	}
	// A backup of an earlier version, without checksums, restores with a
	// warning that says what was not checked.
	old := damage(t, "old", func(dir string) {
		if err := os.Remove(filepath.Join(dir, cli.SumsFile)); err != nil {
			t.Fatal(err)
		}
	})
	if code, out, errOut := run("--from", old, "--data", filepath.Join(t.TempDir(), "fromold")); code != 0 || !strings.Contains(out, "5 accounts") ||
		!strings.Contains(errOut, "has no "+cli.SumsFile) {
		t.Fatalf("restore of a backup without checksums: exit %d, %q, %q", code, out, errOut)
	}
}

func TestRegister(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		enabled bool
		form    url.Values
		status  int
		field   string // "account_id" or "error"
	}{
		{"ok", true, url.Values{"login": {"newbie"}, "password": {"pw"}, "email": {"n@example.invalid"}}, 200, "account_id"},
		{"taken", true, url.Values{"login": {"taken"}, "password": {"pw"}}, 409, "error"},
		{"bad login", true, url.Values{"login": {"no spaces"}, "password": {"pw"}}, 400, "error"},
		{"too long", true, url.Values{"login": {"abcdefghijklm"}, "password": {"pw"}}, 400, "error"},
		{"no password", true, url.Values{"login": {"nopw"}}, 400, "error"},
		{"bad email", true, url.Values{"login": {"mail"}, "password": {"pw"}, "email": {"nope"}}, 400, "error"},
		{"disabled", false, url.Values{"login": {"late"}, "password": {"pw"}}, 403, "error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := start(t, func(c *config.Config) { c.Portal.RegisterEnabled = tc.enabled })
			ts.Host(t, "account", "create", "--login", "taken", "--password", "x")
			r, err := ts.Client.PostForm(ctx, "/portal/register", tc.form)
			if err != nil {
				t.Fatal(err)
			}
			var body map[string]any
			if err := json.Unmarshal(r.Body, &body); err != nil {
				t.Fatalf("not JSON: %s", r.Body)
			}
			if r.Status != tc.status || body[tc.field] == nil {
				t.Fatalf("status %d body %s; want %d with %s", r.Status, r.Body, tc.status, tc.field)
			}
			if tc.status == 200 {
				if _, err := ts.Client.Login(ctx, tc.form.Get("login"), tc.form.Get("password")); err != nil {
					t.Errorf("registered account cannot log in: %v", err)
				}
			}
		})
	}
}

// TestSIGTERMShutsDownGracefully stops a real server process with SIGTERM:
// it exits 0, removes its admin socket, and the data directory opens again.
func TestSIGTERMShutsDownGracefully(t *testing.T) {
	bin := buildHost(t)
	data := t.TempDir()
	cmd, _ := startHost(t, bin, data)
	runHost(t, bin, "account", "create", "--data", data, "--login", "term", "--password", "pw")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("server did not exit after SIGTERM")
	}
	if matches, _ := filepath.Glob(filepath.Join(data, "admin.sock")); len(matches) != 0 {
		t.Error("admin socket left behind")
	}
	if out := runHost(t, bin, "account", "show", "--data", data, "--login", "term"); !strings.Contains(out, `"term"`) {
		t.Errorf("after shutdown: %s", out)
	}
}

// TestRollbackAfterUpgrade is the documented way back after an upgrade
// (docs/operations.md "Upgrades"): a data directory written at the
// previous release's schema, backed up, then migrated by this version at
// its start; restore --replace of the backup taken before puts that
// schema back, which the previous release's version check accepts. And a
// database written by a newer version is set aside like any other (the
// previous release's restore could not: it opened the database to prove
// no server held it).
func TestRollbackAfterUpgrade(t *testing.T) {
	data, backup := t.TempDir(), t.TempDir()
	db := filepath.Join(data, "db")
	run := func(args ...string) (int, string, string) {
		var out, errOut strings.Builder
		code := cli.Main(context.Background(), args, &out, &errOut)
		return code, out.String(), errOut.String()
	}
	if code, out, errOut := run("account", "create", "--init", "--data", data, "--login", "veteran", "--password", "pw"); code != 0 {
		t.Fatalf("account create: exit %d %q %q", code, out, errOut)
	}
	// What the previous release wrote: its schema recorded (no sessions,
	// so nothing of the current schema's session lists to take away).
	previous := uint32(storage.SchemaVersion - 1)
	setSchema(t, db, previous)
	if err := os.CopyFS(filepath.Join(backup, "db"), os.DirFS(db)); err != nil { // the backup taken before the upgrade
		t.Fatal(err)
	}
	// The upgrade: this version migrates the directory when it opens it,
	// and the previous release refuses it from then on.
	upgraded, err := storage.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	upgraded.Close()
	if v := dirSchema(t, db); storage.CheckSchema(v, previous) == nil {
		t.Fatalf("after the upgrade: schema %d, which the previous release would still accept", v)
	}
	code, out, errOut := run("restore", "--from", backup, "--data", data, "--replace")
	if code != 0 || !strings.Contains(out, "db.replaced-") || !strings.Contains(out, "older than this version's") {
		t.Fatalf("restore --replace: exit %d, %q, %q", code, out, errOut)
	}
	if v := dirSchema(t, db); v != previous || storage.CheckSchema(v, previous) != nil {
		t.Fatalf("after the rollback: schema %d (%v); want %d, which the previous release reads", v, storage.CheckSchema(v, previous), previous)
	}
	if m, _ := filepath.Glob(filepath.Join(data, "db.verifying*")); len(m) != 0 {
		t.Errorf("the verification's copy is left behind: %v", m)
	}
	back, err := storage.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := back.LoginID("veteran"); err != nil {
		t.Errorf("the restored database lacks the account: %v", err)
	}
	back.Close()

	// A restore by the version being rolled back to, of a directory the
	// newer one wrote: it sets the newer database aside without opening it.
	setSchema(t, db, storage.SchemaVersion+1)
	if code, out, errOut := run("restore", "--from", backup, "--data", data, "--replace"); code != 0 || !strings.Contains(out, "db.replaced-") {
		t.Fatalf("restore --replace over a newer database: exit %d, %q, %q", code, out, errOut)
	}
	if v := dirSchema(t, db); v != previous {
		t.Fatalf("restored over a newer database: schema %d, want %d", v, previous)
	}
}

// setSchema records schema version v in the database in dir, as the
// version that writes v would have.
func setSchema(t *testing.T, dir string, v uint32) {
	t.Helper()
	db, err := storage.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	b := db.NewBatch()
	b.PutMeta("schema_version", binary.BigEndian.AppendUint32(nil, v))
	if err := db.Commit(b); err != nil {
		t.Fatal(err)
	}
}

func dirSchema(t *testing.T, dir string) uint32 {
	t.Helper()
	v, err := storage.DirSchema(dir)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
