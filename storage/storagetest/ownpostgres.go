package storagetest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
)

// Postgres is a PostgreSQL server of one test's own, which the test may
// stop and start again (a restart of the database under a running
// server): a fresh cluster in a temporary directory, on a free loopback
// port, trust authentication, user postgres. OwnPostgres starts it.
type Postgres struct {
	// URL is its postgres database's URL.
	URL string

	bin, dir string
	port     int
	cred     *syscall.Credential // the postgres user's, when the test runs as root (initdb refuses root)
}

// OwnPostgres starts a PostgreSQL server for the test alone, from the
// server binaries of Debian's postgresql package (/usr/lib/postgresql/*/bin),
// and removes it when the test ends. Without them the test is skipped,
// saying how to run it, except under CI=true, where it fails.
func OwnPostgres(t testing.TB) *Postgres {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	missing := func(why string) {
		t.Helper()
		msg := why + ": install Debian's postgresql (apt-get install postgresql) to run this test"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if len(bins) == 0 {
		missing("no PostgreSQL server binaries (/usr/lib/postgresql/*/bin/pg_ctl)")
	}
	slices.SortFunc(bins, func(a, b string) int { return versionOf(a) - versionOf(b) })
	p := &Postgres{bin: filepath.Dir(bins[len(bins)-1])}
	dir, err := os.MkdirTemp("", "honmaster-pg-")
	if err != nil {
		t.Fatal(err)
	}
	p.dir = dir
	t.Cleanup(func() {
		_ = p.pgCtl("stop", "-m", "immediate")
		os.RemoveAll(dir)
	})
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			missing("running as root, and no postgres user to run the server as (initdb refuses root)")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		p.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	if out, err := p.command(filepath.Join(p.bin, "initdb"), "-D", p.data(), "-A", "trust", "-U", "postgres").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	p.URL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", p.port)
	p.Start(t)
	return p
}

// versionOf is the major version in a /usr/lib/postgresql/N/bin path.
func versionOf(path string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return n
}

func (p *Postgres) data() string { return filepath.Join(p.dir, "data") }

func (p *Postgres) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	if p.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred}
	}
	cmd.Dir = p.dir
	return cmd
}

func (p *Postgres) pgCtl(args ...string) error {
	args = append([]string{"-D", p.data(), "-w", "-t", "60"}, args...)
	out, err := p.command(filepath.Join(p.bin, "pg_ctl"), args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl %v: %w\n%s", args, err, out)
	}
	return nil
}

// Start starts the server (again) on its data directory and port, and
// returns once it accepts connections.
func (p *Postgres) Start(t testing.TB) {
	t.Helper()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=100", p.port, p.dir)
	if err := p.pgCtl("-o", opts, "-l", filepath.Join(p.dir, "log"), "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(p.dir, "log"))
		t.Fatalf("%v\nserver log:\n%s", err, log)
	}
}

// Stop stops the server as an operator's restart does (pg_ctl stop -m
// fast: every session is ended, the server shuts down cleanly), and
// returns once it is down.
func (p *Postgres) Stop(t testing.TB) {
	t.Helper()
	if err := p.pgCtl("stop", "-m", "fast"); err != nil {
		t.Fatal(err)
	}
}
