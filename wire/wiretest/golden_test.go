package wiretest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/honmaster/masterserver/wire"
	"github.com/honmaster/masterserver/wire/wiretest"
)

func TestGoldenWritesAndChecks(t *testing.T) {
	dir := t.TempDir()
	cases := []wiretest.Case{{Name: "ok", Value: struct {
		Success bool `php:"success"`
		wire.Extras
	}{Success: true}}}
	wiretest.Golden(t, dir, true, cases)
	got, err := os.ReadFile(filepath.Join(dir, "ok.golden"))
	if err != nil || string(got) != `a:3:{s:7:"success";b:1;s:16:"vested_threshold";i:5;i:0;b:1;}` {
		t.Fatalf("fixture = %q, %v", got, err)
	}
	wiretest.Golden(t, dir, false, cases) // unchanged: passes
}
