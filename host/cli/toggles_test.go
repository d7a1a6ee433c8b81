package cli_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/cloud"
	"github.com/honmaster/masterserver/host/guides"
	"github.com/honmaster/masterserver/storage"
)

// TestRepeatableWritesHaveABudget: a switch_auth, a guide's default or
// favourite mark and the cloud enrollment each stored a synced commit
// with no budget: a client sending one in a loop cost a disk flush per
// request. Each kind now spends from limits.toggles_per_account and
// toggles_per_address (each kind its own budget; every client of the test
// is 127.0.0.1, so the address's is shared by both accounts) when it
// writes: a request that finds things as asked spends nothing. A refused
// one writes nothing. A reload turns the budgets off at once.
func TestRepeatableWritesHaveABudget(t *testing.T) {
	f := newToggleServer(t, 2, 3)
	c, ctx, rt := f.c, context.Background(), f.rt
	demo := f.seed(2)
	g1, g2 := strconv.Itoa(int(demo[0].Gid)), strconv.Itoa(int(demo[1].Gid))
	login := f.login
	marker, other := login("marker"), login("other")

	// Guides.
	mg := &guideClient{c: c, account: marker.AccountID, cookie: marker.Cookie}
	og := &guideClient{c: c, account: other.AccountID, cookie: other.Cookie}
	okReply(t, mg.must(t, "guide_favorite_set", "gid", g1), 6)    // 1 of the account's 2
	okReply(t, mg.must(t, "guide_favorite_set", "gid", g1), 6)    // already one: free
	okReply(t, mg.must(t, "guide_favorite_remove", "gid", g2), 6) // not one: free
	okReply(t, mg.must(t, "guide_default_set", "gid", g1), 6)     // 2 of 2
	failReply(t, mg.must(t, "guide_favorite_set", "gid", g2), "too_many_changes")
	if a := mg.must(t, "get_guide", "gid", g2); num(a, "favorite") != 0 {
		t.Errorf("a refused favourite was stored: %v", a)
	}
	if a := mg.must(t, "get_guide", "gid", g1); num(a, "favorite") != 1 || num(a, "default") != 1 {
		t.Errorf("the marks within the budget: %v", a)
	}
	okReply(t, og.must(t, "guide_favorite_set", "gid", g2), 6)                    // the address's 3rd
	failReply(t, og.must(t, "guide_favorite_set", "gid", g1), "too_many_changes") // its 4th

	// Cloud enrollment: a budget of its own.
	enroll := f.enroll
	tooMany := cloud.ReasonTooManyChanges.Message()
	for i, step := range []struct {
		s         *client.Session
		use, want string
	}{
		{marker, "1", ""}, {marker, "1", ""} /* as asked: free */, {marker, "0", ""}, {marker, "1", tooMany},
		{other, "1", ""}, {other, "0", tooMany}, // the address's 3rd, then its 4th
	} {
		if got := enroll(step.s, step.use); got != step.want {
			t.Errorf("enrollment %d (%s, enroll %s): %q, want %q", i, step.s.Login, step.use, got, step.want)
		}
	}
	if s, err := c.Login(ctx, "marker", "pw"); err != nil {
		t.Fatal(err)
	} else if v, _ := s.Record.String("use_cloud"); v != "0" {
		t.Errorf("use_cloud %q after a refused enrollment, want 0 (the last one stored)", v)
	}

	// switch_auth: the account switched to, and the address.
	switchTo := func(s *client.Session) error {
		_, err := c.Switch(ctx, s, s.Login, s.AccountID)
		return err
	}
	for i, step := range []struct {
		s      *client.Session
		refuse bool
	}{{marker, false}, {marker, false}, {marker, true}, {other, false}, {other, true}} {
		if err := switchTo(step.s); (err != nil) != step.refuse {
			t.Errorf("switch %d (%s): %v, want refused %v", i, step.s.Login, err, step.refuse)
		}
	}

	// A reload turns them off: every kind is allowed again at once.
	f.write(f.base + toggleLimits(0, 0))
	res, err := rt.Reload(ctx)
	if err != nil || !slices.Contains(res.Applied, "limits.toggles_per_account") || !slices.Contains(res.Applied, "limits.toggles_per_address") {
		t.Fatalf("reload: %v, %v; want both budgets applied", res, err)
	}
	okReply(t, mg.must(t, "guide_favorite_set", "gid", g2), 6)
	if got := enroll(other, "0"); got != "" {
		t.Errorf("enrollment after the reload: %q", got)
	}
	if err := switchTo(marker); err != nil {
		t.Errorf("switch after the reload: %v", err)
	}
}

// TestARefusedWriteSpendsNoToggle: a mark, an enrollment or a switch
// refused with nothing written (here: the disk below its margin,
// storage_full) gave its budget nothing back, so a player retrying on a
// full disk found the budget spent once space returned. Per account burst
// 2: two refused attempts of each kind, then the first real ones pass.
func TestARefusedWriteSpendsNoToggle(t *testing.T) {
	f := newToggleServer(t, 2, 2)
	c, ctx, rt := f.c, context.Background(), f.rt
	gid := strconv.Itoa(int(f.seed(1)[0].Gid))
	s := f.login("player")
	g := &guideClient{c: c, account: s.AccountID, cookie: s.Cookie}
	enroll := func() string { return f.enroll(s, "1") }

	rt.App.DB.SetDiskGuard(storage.NewDiskGuard("", 64<<20, func() (uint64, error) { return 1 << 20, nil }, nil))
	for range 2 {
		failReply(t, g.must(t, "guide_favorite_set", "gid", gid), "storage_full")
		if m := enroll(); m != cloud.ReasonStorageFull.Message() {
			t.Fatalf("enrollment on a full disk: %q", m)
		}
		if _, err := c.Switch(ctx, s, s.Login, s.AccountID); err == nil || !strings.Contains(err.Error(), "cannot save") {
			t.Fatalf("switch on a full disk: %v", err)
		}
	}
	rt.App.DB.SetDiskGuard(nil) // space is back

	if a := g.must(t, "guide_favorite_set", "gid", gid); num(a, "success") != 1 {
		t.Errorf("the first favourite written: %v", a)
	}
	if m := enroll(); m != "" {
		t.Errorf("the first enrollment written: %q", m)
	}
	if _, err := c.Switch(ctx, s, s.Login, s.AccountID); err != nil {
		t.Errorf("the first switch written: %v", err)
	}
}

// TestARefusedVoteSpendsNoVote: a vote refused with nothing written (a
// full disk) kept its spend from the address's vote budgets, as the
// toggles did before b652391: three retries on a full disk used up the
// default per-guide budget (3 in 8 hours), and the vote the player cast
// once space was back was refused. (A vote the guides plugin does not
// count stays spent: its rule was asked.)
func TestARefusedVoteSpendsNoVote(t *testing.T) {
	f := newToggleServer(t, 100, 100)
	gid := strconv.Itoa(int(f.seed(1)[0].Gid))
	s := f.login("voter")
	g := &guideClient{c: f.c, account: s.AccountID, cookie: s.Cookie}

	f.rt.App.DB.SetDiskGuard(storage.NewDiskGuard("", 64<<20, func() (uint64, error) { return 1 << 20, nil }, nil))
	for range 4 { // one over guide_votes_per_guide_address's default burst
		failReply(t, g.must(t, "guide_vote", "gid", gid, "v", "1"), "storage_full")
	}
	f.rt.App.DB.SetDiskGuard(nil)
	if a := g.must(t, "guide_vote", "gid", gid, "v", "1"); num(a, "success") != 1 {
		t.Errorf("the first vote written: %v", a)
	}
}

// toggleServer is a server with the toggles budgets of its configuration
// (reloadable), and a client of it.
type toggleServer struct {
	t     *testing.T
	rt    *cli.Runtime
	c     *client.Client
	base  string
	write func(string)
}

func toggleLimits(perAccount, perAddress int) string {
	return fmt.Sprintf("[limits]\ntoggles_per_account = { burst = %d, every = \"1h\" }\ntoggles_per_address = { burst = %d, every = \"1h\" }\n", perAccount, perAddress)
}

func newToggleServer(t *testing.T, perAccount, perAddress int) *toggleServer {
	t.Helper()
	dir := t.TempDir()
	f := &toggleServer{t: t, base: fmt.Sprintf("[storage]\ndata_dir = %q\n[operator]\nenabled = false\n[server]\nlisten = \"127.0.0.1:0\"\n", filepath.Join(dir, "data"))}
	f.rt, f.write = startReloadable(t, dir, f.base+toggleLimits(perAccount, perAddress), nil, false)
	f.c = client.New("http://" + f.rt.Addr.String())
	t.Cleanup(f.c.HTTP.CloseIdleConnections)
	return f
}

// seed stores the first n demo guides.
func (f *toggleServer) seed(n int) []guides.Guide {
	f.t.Helper()
	demo := guides.DemoGuides()[:n]
	if _, err := guides.Seed(context.Background(), f.rt.App.Sys, demo); err != nil {
		f.t.Fatal(err)
	}
	return demo
}

// login registers name (password pw) and logs in.
func (f *toggleServer) login(name string) *client.Session {
	f.t.Helper()
	ctx := context.Background()
	if r, err := f.c.PostForm(ctx, "/portal/register", url.Values{"login": {name}, "password": {"pw"}}); err != nil || r.Status != http.StatusOK {
		f.t.Fatalf("register %s: %v %v", name, r, err)
	}
	s, err := f.c.Login(ctx, name, "pw")
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

// enroll sets s's cloud enrollment: "" when it succeeded, else the
// reply's message.
func (f *toggleServer) enroll(s *client.Session, use string) string {
	f.t.Helper()
	r, err := f.c.PostMultipart(context.Background(), cloud.PathEnrollment, url.Values{"cookie": {s.Cookie}, "enroll": {use}})
	if err != nil {
		f.t.Fatal(err)
	}
	a, err := r.PHP()
	if err != nil {
		f.t.Fatalf("enrollment reply %q: %v", r.Body, err)
	}
	if ok, _ := a.Bool("success"); ok {
		return ""
	}
	msg, _ := a.String("messages")
	return msg
}
