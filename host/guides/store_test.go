package guides_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/guides"
)

// An import stores a file's valid guides and lists the refused ones;
// --strict (ImportOptions.Strict) stores nothing when any is refused, and
// a file whose every guide is refused stores nothing either way.
func TestImportKeepsValidGuides(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "import_archive_crlf.json"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	stored := func(t *testing.T, app *cli.App) int {
		gs, err := guides.LoadGuides(app.DB, "")
		if err != nil {
			t.Fatal(err)
		}
		return len(gs)
	}

	t.Run("strict", func(t *testing.T) {
		app, _, _ := clitest.OpenApp(t)
		_, err := guides.Import(ctx, app.Sys, data, guides.ImportOptions{Strict: true})
		var ie *guides.ImportError
		if !errors.Is(err, guides.ErrImport) || !errors.As(err, &ie) || !strings.Contains(err.Error(), "Coloured guide") {
			t.Fatalf("strict import: %v, want the refused guide named", err)
		}
		if n := stored(t, app); n != 0 {
			t.Fatalf("strict import of a file with a refused guide stored %d guides", n)
		}
	})

	t.Run("default", func(t *testing.T) {
		app, _, _ := clitest.OpenApp(t)
		res, err := guides.Import(ctx, app.Sys, data, guides.ImportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Added != 2 || res.Updated != 0 || len(res.Refused) != 1 || !strings.Contains(res.Refused[0].Error(), "Coloured guide") {
			t.Fatalf("import = %+v, want 2 added and the coloured guide refused", res)
		}
		gs, err := guides.LoadGuides(app.DB, "Hero_Parallax")
		if err != nil || len(gs) != 1 || gs[0].Intro != "Step one: farm.\r\nStep two:\r\n\t- rotate\r\n\t- gank (café break)\r\n" {
			t.Fatalf("stored Hero_Parallax guides %+v, %v", gs, err)
		}
	})

	t.Run("every guide refused", func(t *testing.T) {
		app, _, _ := clitest.OpenApp(t)
		_, err := guides.Import(ctx, app.Sys, []byte(`[{"gid": 1}, {"gid": 2, "txt_intro": "\u0007"}]`), guides.ImportOptions{})
		if !errors.Is(err, guides.ErrImport) || !strings.Contains(err.Error(), "guide 1") || !strings.Contains(err.Error(), "guide 2") {
			t.Fatalf("import of only bad guides: %v, want both named", err)
		}
		if n := stored(t, app); n != 0 {
			t.Fatalf("stored %d guides", n)
		}
	})
}
