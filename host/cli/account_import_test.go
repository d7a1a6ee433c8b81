package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/cli/clitest"
)

// account import, offline (creating the data directory with --init) and
// through a running server: the refused lines are listed by number with a
// sentence, the totals follow, and the command exits 0; the same file
// again creates nothing and fails with a sentence; the imported accounts
// exist.
func TestAccountImportCommand(t *testing.T) {
	file := filepath.Join(t.TempDir(), "accounts.jsonl")
	lines := `{"login":"imp1","password":"pw"}
{"login":"IMP1","password":"pw"}
{"login":"imp2","password":"pw","nickname":"Second"}
{"login":"imp3","pasword":"pw"}
`
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	check := func(t *testing.T, run func(args ...string) (int, string, string)) {
		t.Helper()
		code, out, errOut := run("account", "import", file)
		if code != 0 {
			t.Fatalf("exit %d: %s %s", code, out, errOut)
		}
		for _, want := range []string{`line 2: "IMP1": a login that looks the same already exists`, `line 4: "imp3": unknown field "pasword"`,
			"4 lines, 2 accounts created, 2 refused"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q:\n%s", want, out)
			}
		}
		code, out, errOut = run("account", "import", file)
		if code != 1 || !strings.Contains(errOut, "no account created: every one of the 4 lines was refused") ||
			!strings.Contains(out, `line 1: "imp1": the login is already taken`) {
			t.Errorf("again: exit %d:\n%s%s", code, out, errOut)
		}
		if code, out, errOut := run("account", "show", "--login", "imp2"); code != 0 || !strings.Contains(out, `nickname "Second"`) {
			t.Errorf("show: exit %d %s %s", code, out, errOut)
		}
	}
	t.Run("offline", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "new")
		check(t, func(args ...string) (int, string, string) {
			if args[1] == "import" {
				args = append(args, "--init")
			}
			var out, errOut bytes.Buffer
			code := cli.Main(context.Background(), append(args, "--data", dir), &out, &errOut)
			return code, out.String(), errOut.String()
		})
	})
	t.Run("server", func(t *testing.T) {
		ts := clitest.Start(t, nil)
		check(t, ts.Run)
	})
}
