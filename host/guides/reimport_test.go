package guides_test

import (
	"context"
	"errors"
	"testing"

	"github.com/honmaster/masterserver/host/guides"
)

// A re-import that gave a stored gid to another hero's guide kept every
// player's vote on the gid: the new guide started with ratings nobody gave
// it, and a voter saw their old thumb. Such an import is refused, nothing
// stored. (From a review of the area; failed before.)
func TestAReimportCannotMoveAGidToAnotherHero(t *testing.T) {
	f := newYoungFixture(t, 1, 0)
	ctx := context.Background()
	f.vote(t, f.old[0], 3, guides.VoteDown)
	before, err := f.svc.Guide(ctx, f.old[0], 3)
	if err != nil {
		t.Fatal(err)
	}
	file := `[{"gid":3,"hero_cli_name":"Hero_B","guide_name":"A new guide","author_name":"someone","datetime":"2024-02-01T00:00:00Z","upvotes":0,"downvotes":0}]`
	if res, err := guides.Import(ctx, f.app.Sys, []byte(file), guides.ImportOptions{}); !errors.Is(err, guides.ErrImport) {
		t.Fatalf("import moving gid 3 to Hero_B: %+v, %v; want refused", res, err)
	}
	after, err := f.svc.Guide(ctx, f.old[0], 3)
	if err != nil {
		t.Fatal(err)
	}
	if after.Guide.Hero != before.Guide.Hero || after.Guide.Name != before.Guide.Name {
		t.Errorf("gid 3 after the refused import: %s %q, want %s %q", after.Guide.Hero, after.Guide.Name, before.Guide.Hero, before.Guide.Name)
	}
}
