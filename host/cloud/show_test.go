package cloud

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"flag"
	"github.com/honmaster/masterserver/actors/actorstest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/cloudcfg"
)

var update = flag.Bool("update", false, "rewrite the expected output of golden files in testdata")

// goldenSeparator splits a golden file into the stored cloud.cfg (above) and
// Show's expected output (below).
const goldenSeparator = "-- output --\n"

func TestShowGolden(t *testing.T) {
	path := filepath.Join("testdata", "show.txt")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, want, ok := strings.Cut(string(raw), goldenSeparator)
	if !ok {
		t.Fatalf("%s has no %q line", path, strings.TrimSpace(goldenSeparator))
	}

	sys := actorstest.New(t)
	ctx := context.Background()
	acct := createAccount(t, sys, "Shown")
	archive := storedZip(t, cfg)
	obj := &Archive{Bucket: DefaultBucket, ModifyTime: "2024-05-06 07:08:09",
		Stored: time.Date(2024, 5, 6, 7, 8, 10, 0, time.UTC), Data: archive}
	if _, err := sys.Apply(ctx, acct.ID, &storeObject{obj: obj}); err != nil {
		t.Fatal(err)
	}

	var out bytes.Buffer
	if err := Show(ctx, sys.DB(), "Shown", "", &out); err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := Show(ctx, sys.DB(), "Shown", DefaultBucket, &again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), again.Bytes()) {
		t.Errorf("output is not stable:\n%s\nthen\n%s", out.Bytes(), again.Bytes())
	}
	if *update {
		if err := os.WriteFile(path, []byte(cfg+goldenSeparator+out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if out.String() != want {
		t.Errorf("output differs from %s (go test -run TestShowGolden -update rewrites it):\n got:\n%s\nwant:\n%s", path, out.String(), want)
	}
	for _, section := range []string{"Settings (", "Rebinds (", "Binds (", "Unrecognised lines ("} {
		if !strings.Contains(out.String(), section) {
			t.Errorf("output lacks section %q", section)
		}
	}
}

// storedZip is an archive holding cfg as an uncompressed cloud.cfg: its
// bytes (and so the size Show prints) do not depend on the deflate
// implementation of the Go release.
func storedZip(t *testing.T, cfg string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: cloudcfg.ConfigName, Method: zip.Store,
		Modified: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(cfg)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestShowErrors(t *testing.T) {
	sys := actorstest.New(t)
	ctx := context.Background()
	acct := createAccount(t, sys, "Stored")
	createAccount(t, sys, "Empty")
	archive, err := cloudcfg.BuildArchive([]byte("SetSave \"a\" \"b\" \"0\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sys.Apply(ctx, acct.ID, &storeObject{obj: &Archive{Bucket: "b1", ModifyTime: "2024-01-01 00:00:00", Data: archive}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		login, bucket string
		want          error
	}{
		{"", "", ErrUnknownLogin},
		{"Nobody", "", ErrUnknownLogin},
		{"stored", "b1", ErrUnknownLogin}, // logins match exactly
		{"Empty", "", ErrNothingStored},
		{"Stored", "", ErrNothingStored},
		{"Stored", "b2", ErrNothingStored},
		{"Stored", "b1", nil},
	} {
		var out bytes.Buffer
		err := Show(ctx, sys.DB(), tc.login, tc.bucket, &out)
		if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("Show(%q, %q): %v, want %v", tc.login, tc.bucket, err, tc.want)
		}
		if tc.want != nil && out.Len() != 0 {
			t.Errorf("Show(%q, %q) wrote %q on failure", tc.login, tc.bucket, out.String())
		}
	}
}
