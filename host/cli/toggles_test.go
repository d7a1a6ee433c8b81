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
	dir := t.TempDir()
	base := fmt.Sprintf("[storage]\ndata_dir = %q\n[operator]\nenabled = false\n[server]\nlisten = \"127.0.0.1:0\"\n", filepath.Join(dir, "data"))
	limits := func(perAccount, perAddress int) string {
		return fmt.Sprintf("[limits]\ntoggles_per_account = { burst = %d, every = \"1h\" }\ntoggles_per_address = { burst = %d, every = \"1h\" }\n", perAccount, perAddress)
	}
	rt, write := startReloadable(t, dir, base+limits(2, 3), nil, false)
	c := client.New("http://" + rt.Addr.String())
	defer c.HTTP.CloseIdleConnections()
	ctx := context.Background()
	demo := guides.DemoGuides()
	if _, err := guides.Seed(ctx, rt.App.Sys, demo[:2]); err != nil {
		t.Fatal(err)
	}
	g1, g2 := strconv.Itoa(int(demo[0].Gid)), strconv.Itoa(int(demo[1].Gid))
	login := func(name string) *client.Session {
		t.Helper()
		if r, err := c.PostForm(ctx, "/portal/register", url.Values{"login": {name}, "password": {"pw"}}); err != nil || r.Status != http.StatusOK {
			t.Fatalf("register %s: %v %v", name, r, err)
		}
		s, err := c.Login(ctx, name, "pw")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
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
	enroll := func(s *client.Session, use string) string {
		t.Helper()
		r, err := c.PostMultipart(ctx, cloud.PathEnrollment, url.Values{"cookie": {s.Cookie}, "enroll": {use}})
		if err != nil {
			t.Fatal(err)
		}
		a, err := r.PHP()
		if err != nil {
			t.Fatalf("enrollment reply %q: %v", r.Body, err)
		}
		if ok, _ := a.Bool("success"); ok {
			return ""
		}
		msg, _ := a.String("messages")
		return msg
	}
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
	write(base + limits(0, 0))
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
	dir := t.TempDir()
	body := fmt.Sprintf("[storage]\ndata_dir = %q\n[operator]\nenabled = false\n[server]\nlisten = \"127.0.0.1:0\"\n"+
		"[limits]\ntoggles_per_account = { burst = 2, every = \"1h\" }\ntoggles_per_address = { burst = 2, every = \"1h\" }\n",
		filepath.Join(dir, "data"))
	rt, _ := startReloadable(t, dir, body, nil, false)
	c := client.New("http://" + rt.Addr.String())
	defer c.HTTP.CloseIdleConnections()
	ctx := context.Background()
	demo := guides.DemoGuides()
	if _, err := guides.Seed(ctx, rt.App.Sys, demo[:1]); err != nil {
		t.Fatal(err)
	}
	gid := strconv.Itoa(int(demo[0].Gid))
	if r, err := c.PostForm(ctx, "/portal/register", url.Values{"login": {"player"}, "password": {"pw"}}); err != nil || r.Status != http.StatusOK {
		t.Fatalf("register: %v %v", r, err)
	}
	s, err := c.Login(ctx, "player", "pw")
	if err != nil {
		t.Fatal(err)
	}
	g := &guideClient{c: c, account: s.AccountID, cookie: s.Cookie}
	enroll := func() string {
		t.Helper()
		r, err := c.PostMultipart(ctx, cloud.PathEnrollment, url.Values{"cookie": {s.Cookie}, "enroll": {"1"}})
		if err != nil {
			t.Fatal(err)
		}
		a, err := r.PHP()
		if err != nil {
			t.Fatal(err)
		}
		if ok, _ := a.Bool("success"); ok {
			return ""
		}
		m, _ := a.String("messages")
		return m
	}

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
