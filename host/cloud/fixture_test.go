package cloud_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cloud"
)

// copyTree copies a fixture directory so the test never changes it.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o700)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestV2DataDirectoryServesArchive opens a data directory written by a
// real server of schema version 2 before the cloud archives became
// host/cloud's own keyspace (testdata/v2, made by testdata/genfixture.go)
// and checks that the account still logs in and gets the same archive,
// status and enrollment back: the archives kept their keys and values.
func TestV2DataDirectoryServesArchive(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	copyTree(t, "testdata/v2", dir)
	want, err := os.ReadFile("testdata/v2.zip")
	if err != nil {
		t.Fatal(err)
	}
	ts := start(t, func(c *config.Config) { c.Storage.DataDir, c.Storage.Backend = dir, config.BackendPebble }) // a data directory
	s := ts.login(t, "Keeper")
	ts.retrieveIs(t, s, want)
	r := ts.post(t, cloud.PathStatus, bucketFields(s.Cookie))
	checkBody(t, "status", r, statusInfo(s.AccountID, "1", "1", "2026-11-23 12:34:56"))

	// A new upload replaces the old archive in place (one bucket, not two).
	next := zipOf(t, [2]string{"cloud.cfg", cfgV2})
	checkBody(t, "store", ts.post(t, cloud.PathStore, storeFields(s.Cookie, "2026-11-24 00:00:00"), zipPart(next)), result(true, ""))
	ts.retrieveIs(t, s, next)
	if bytes.Equal(next, want) {
		t.Fatal("the new archive equals the old one: the test proves nothing")
	}
	out := ts.Host(t, "cloud", "show", "--login", "Keeper")
	if !bytes.Contains([]byte(out), []byte("2026-11-24 00:00:00")) {
		t.Errorf("cloud show after the upload:\n%s", out)
	}
}
