package cli

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestDataDirPermission: a data directory the operator may not read is
// said to be so, not to hold no database (issue 22, item 14). The
// filesystem's refusal is injected (EACCES for a listing, EPERM and
// EACCES for a stat): the tests may run as root, which no mode refuses.
func TestDataDirPermission(t *testing.T) {
	dir := t.TempDir()
	denied := func(errno syscall.Errno) error { return &fs.PathError{Op: "open", Path: dir, Err: errno} }
	for _, tc := range []struct {
		name    string
		stat    func(string) (os.FileInfo, error)
		readDir func(string) ([]os.DirEntry, error)
	}{
		{"listing EACCES", os.Stat, func(string) ([]os.DirEntry, error) { return nil, denied(syscall.EACCES) }},
		{"listing EPERM", os.Stat, func(string) ([]os.DirEntry, error) { return nil, denied(syscall.EPERM) }},
		{"stat EACCES", func(string) (os.FileInfo, error) { return nil, denied(syscall.EACCES) }, os.ReadDir},
	} {
		err := checkDataDirWith(dir, false, tc.stat, tc.readDir)
		if msg := explain(err); !strings.Contains(msg, "permission denied") || strings.Contains(msg, "holds no database") {
			t.Errorf("%s: %q", tc.name, msg)
		}
		if errors.Is(err, errNoDataDir) {
			t.Errorf("%s: counted as no data directory", tc.name)
		}
	}
	// An empty directory that can be read still holds no database.
	if err := checkDataDir(dir, false); !errors.Is(err, errNoDataDir) || !strings.Contains(explain(err), "holds no database") {
		t.Errorf("empty directory: %v", err)
	}
}

// TestDataDirPermissionReal: the same through the filesystem, where the
// tests run as a user that modes refuse.
func TestDataDirPermissionReal(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any directory")
	}
	dir := t.TempDir()
	if err := os.Mkdir(dir+"/"+dbDirName, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o300); err != nil { // no listing
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	if msg := explain(checkDataDir(dir, false)); !strings.Contains(msg, "permission denied") {
		t.Errorf("unreadable data directory: %q", msg)
	}
}
