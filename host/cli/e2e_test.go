package cli_test

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/plinko"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage/storagetest"
	"github.com/honmaster/masterserver/wire"
)

func start(t *testing.T, mutate func(*config.Config)) *clitest.Server {
	return clitest.Start(t, mutate)
}

// unlimitedDrops turns Plinko's drop and purchase limits off ([plinko]
// write_burst = 0), for a test that sends one account's drops by the
// hundred in a moment, as no player's client does.
func unlimitedDrops(c *config.Config) {
	s := plinko.SettingsOf(c)
	s.WriteBurst = 0
	config.SetSection(c, "plinko", s)
}

// onPebble keeps a test's server on Pebble when the suite runs on
// PostgreSQL (clitest.EnvBackend): for what only a data directory has
// (backup into a directory, a copy out of it).
func onPebble(c *config.Config) { c.Storage.Backend = config.BackendPebble }

// eachBackend runs fn as a subtest per storage backend, with the setting
// that selects it: Pebble in the data directory, and PostgreSQL in a fresh
// database of the test's own when HONMASTER_TEST_POSTGRES_URL is set
// (skipped otherwise).
func eachBackend(t *testing.T, fn func(t *testing.T, backend func(*config.Config))) {
	t.Run("pebble", func(t *testing.T) { fn(t, func(*config.Config) {}) })
	t.Run("postgres", func(t *testing.T) {
		url := storagetest.PostgresURL(t)
		fn(t, func(c *config.Config) { c.Storage.Backend, c.Storage.Postgres.URL = config.BackendPostgres, url })
	})
}

func healthy(t *testing.T, ts *clitest.Server) {
	t.Helper()
	r, err := ts.Client.HTTP.Get(ts.Client.Base + "/healthz")
	if err != nil {
		t.Fatalf("healthz: %v", err)
	}
	r.Body.Close()
	if r.StatusCode != 200 {
		t.Fatalf("healthz status %d", r.StatusCode)
	}
}

// sessionKeys is the wire order of the 60-entry record (protocol-notes §1)
// with the type the specification gives each entry.
var sessionKeys = []struct{ key, kind string }{
	{"proof", "string"}, {"sec_info", "array"}, {"super_id", "string"}, {"account_id", "string"},
	{"garena_id", "null"}, {"nickname", "string"}, {"email", "string"}, {"account_type", "string"},
	{"trial", "string"}, {"susp_id", "string"}, {"prepay_only", "null"}, {"standing", "string"},
	{"use_cloud", "string"}, {"pass_exp", "null"}, {"is_new", "int"}, {"cookie", "string"}, {"ip", "string"},
	{"minimum_ranked_level", "string"}, {"leaverthreshold", "string"}, {"is_under_24", "bool"},
	{"is_subaccount", "bool"}, {"is_current_subaccount", "bool"}, {"icb_url", "string"}, {"auth_hash", "string"},
	{"host_time", "string"}, {"chat_url", "string"}, {"chat_port", "string"}, {"cafe_id", "null"},
	{"gca_regular", "null"}, {"gca_prime", "null"}, {"commenting_url", "string"}, {"commenting_port", "int"},
	{"hero_list", "array"}, {"buddy_list", "array"}, {"ignored_list", "array"}, {"banned_list", "array"},
	{"infos", "array"}, {"clan_member_info", "array"}, {"chatrooms", "array"}, {"notifications", "array"},
	{"clan_roster", "array"}, {"identities", "array"}, {"points", "string"}, {"mmpoints", "string"},
	{"dice_tokens", "string"}, {"season_level", "int"}, {"my_upgrades", "array"}, {"selected_upgrades", "array"},
	{"game_tokens", "int"}, {"my_upgrades_info", "array"}, {"creep_level", "int"}, {"timestamp", "int"},
	{"awards_tooltip", "array"}, {"quest_system", "array"}, {"campaign_current_season", "string"},
	{"mmr_rank", "string"}, {"account_cloud_storage_info", "bool"}, {"mute_expiration", "int"},
	{"vested_threshold", "int"}, {"0", "bool"},
}

func checkRecord(t *testing.T, rec *wire.Array, switched bool) {
	t.Helper()
	want := sessionKeys
	if switched {
		want = append([]struct{ key, kind string }{{"client_disco", "string"}}, sessionKeys[1:]...)
		want = append(want[:len(want)-3:len(want)-3], want[len(want)-2:]...) // no mute_expiration
	}
	keys := rec.Keys()
	if len(keys) != len(want) {
		t.Fatalf("record has %d entries, want %d", len(keys), len(want))
	}
	for i, w := range want {
		k := keys[i]
		name, isString := k.(string)
		if !isString {
			name = "0"
		}
		if name != w.key {
			t.Errorf("entry %d is %v, want %s", i, k, w.key)
			continue
		}
		v, _ := rec.Get(k)
		if wire.Kind(v) != w.kind {
			t.Errorf("%s is %s (%v), want %s", w.key, wire.Kind(v), v, w.kind)
		}
	}
	infos, _ := rec.Array("infos")
	stats, _ := infos.Array(int64(0))
	if stats == nil || stats.Len() != 32 {
		t.Fatalf("infos[0] = %v, want 32 fields", stats)
	}
	sec, _ := rec.Array("sec_info")
	for key, n := range map[string]int{"initial_vector": 16, "hash_code": 40, "key_version": 4} {
		if v, _ := sec.String(key); len(v) != n {
			t.Errorf("sec_info.%s = %q, want %d characters", key, v, n)
		}
	}
	if v, _ := rec.String("auth_hash"); len(v) != 40 {
		t.Errorf("auth_hash = %q", v)
	}
	if v, _ := rec.String("cookie"); len(v) != 32 || strings.Trim(v, "0123456789abcdef") != "" {
		t.Errorf("cookie = %q, want 32 lowercase hex", v)
	}
}

func TestLoginEndToEnd(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend func(*config.Config)) {
		ts := start(t, backend)
		ctx := context.Background()
		created := ts.Host(t, "account", "create", "--login", "SouL", "--password", "s3cret", "--nickname", "TheSoul")
		createdSub := ts.Host(t, "account", "create", "--login", "SouL_alt", "--password", "other", "--parent", "SouL")
		ts.Host(t, "account", "grant", "--login", "SouL", "--gold", "100", "--tickets", "7", "--upgrade", "aa.Hero_Pyromancer.Alt2")
		if created != `account 1 "SouL" created` || createdSub != `account 2 "SouL_alt" created, a sub-account of "SouL"` {
			t.Fatalf("account create said %q, %q", created, createdSub)
		}
		if got, want := ts.Host(t, "account", "show", "--login", "SouL"), "\nsub-account 2 \"SouL_alt\""; !strings.Contains(got, want) {
			t.Errorf("account show of the main account:\n%s\nwithout %q", got, want)
		}
		got := ts.Host(t, "account", "show", "--login", "SouL_alt")
		for _, want := range []string{"\nmain account 1 \"SouL\"", "\nsub-account 2 \"SouL_alt\" (this one)"} {
			if !strings.Contains(got, want) {
				t.Errorf("account show of the sub-account:\n%s\nwithout %q", got, want)
			}
		}

		s, err := ts.Client.Login(ctx, "SouL", "s3cret") // checks M2
		if err != nil {
			t.Fatal(err)
		}
		checkRecord(t, s.Record, false)
		for key, want := range map[string]string{"account_id": "1", "super_id": "1", "nickname": "TheSoul", "ip": "127.0.0.1"} {
			if got, _ := s.Record.String(key); got != want {
				t.Errorf("%s = %q, want %q", key, got, want)
			}
		}
		if b, _ := s.Record.Bool("is_subaccount"); !b {
			t.Error("is_subaccount false for an account with sub-accounts")
		}
		if b, _ := s.Record.Bool("is_current_subaccount"); b {
			t.Error("is_current_subaccount true on the main account")
		}
		ups, _ := s.Record.Array("my_upgrades")
		if v, _ := ups.String(int64(0)); v != "aa.Hero_Pyromancer.Alt2" {
			t.Errorf("my_upgrades = %v", ups)
		}
		ids, _ := s.Record.Array("identities")
		if ids.Len() != 2 {
			t.Errorf("identities has %d entries, want 2", ids.Len())
		}

		// Logins are case-sensitive: the same password under another case fails.
		if _, err := ts.Client.Login(ctx, "soul", "s3cret"); !errors.Is(err, client.ErrLogin) {
			t.Errorf("login with other case: %v", err)
		}

		sub, err := ts.Client.Switch(ctx, s, "SouL_alt", "2")
		if err != nil {
			t.Fatal(err)
		}
		checkRecord(t, sub.Record, true)
		if sub.Cookie == s.Cookie || sub.AccountID != "2" {
			t.Errorf("switch: cookie %q (old %q), account %q", sub.Cookie, s.Cookie, sub.AccountID)
		}
		if v, _ := sub.Record.String("client_disco"); v != "OK" {
			t.Errorf("client_disco = %q", v)
		}
		if b, _ := sub.Record.Bool("is_current_subaccount"); !b {
			t.Error("is_current_subaccount false after switching")
		}
		// The old cookie still belongs to the main account, which is untouched.
		back, err := ts.Client.Switch(ctx, s, "SouL", "1")
		if err != nil {
			t.Fatalf("old cookie after switch: %v", err)
		}
		if v, _ := back.Record.String("account_id"); v != "1" {
			t.Errorf("old cookie now opens account %q", v)
		}
		if got := ts.Host(t, "account", "show", "--login", "SouL"); !strings.Contains(got, "gold 100 silver 0 tickets 7") {
			t.Errorf("main account changed: %s", got)
		}

		r, err := ts.Client.PostForm(ctx, "/patcher/patcher.php", url.Values{"update": {"1"}, "version": {"0.0.0.0"},
			"current_version": {"4.9.5"}, "os": {"wac"}, "arch": {"x86_64"}, "cookie": {s.Cookie}})
		if err != nil {
			t.Fatal(err)
		}
		patch, err := r.PHP()
		if err != nil {
			t.Fatal(err)
		}
		if patch.Len() != 5 || !strings.HasPrefix(r.ContentType, "text/plain") {
			t.Fatalf("patch reply %d entries, %q", patch.Len(), r.ContentType)
		}
		entry, _ := patch.Array(int64(0))
		if v, _ := entry.String("latest_manifest_checksum"); len(v) != 40 {
			t.Errorf("patch entry %v", entry)
		}
		if v, _ := patch.String("current_version"); v != ts.Config.Patches[0].LatestVersion {
			t.Errorf("current_version = %q", v)
		}
	})
}

// authBody is the failure shape of the login calls (protocol-notes §1).
func authBody(msg string) string {
	b, _ := wire.Marshal(struct {
		Auth string `php:"auth"`
		OK   bool   `php:"0"`
	}{Auth: msg})
	return string(b)
}

func TestLoginBadInput(t *testing.T) {
	ts := start(t, func(*config.Config) {})
	ctx := context.Background()
	ts.Host(t, "account", "create", "--login", "alice", "--password", "pw-alice")
	ts.Host(t, "account", "create", "--login", "alice2", "--password", "pw", "--parent", "alice")
	ts.Host(t, "account", "create", "--login", "bob", "--password", "pw-bob")
	// bobCookie logs bob in when a case needs his session.
	bobCookie := func() string {
		bob, err := ts.Client.Login(ctx, "bob", "pw-bob")
		if err != nil {
			t.Errorf("log bob in: %v", err)
			return ""
		}
		return bob.Cookie
	}
	grp := srp.DefaultGroup()
	validA := func() string {
		cl, _ := grp.NewClient("alice", "pw-alice", rand.Reader)
		return cl.AHex()
	}
	preAuth := func(login, a string) url.Values { return url.Values{"login": {login}, "A": {a}} }
	const (
		pre    = "/client_requester.php?f=pre_auth"
		auth   = "/client_requester.php?f=srpAuth"
		swtch  = "/client_requester.php?f=switch_auth"
		nHex   = srp.DefaultNHex
		zero64 = "0000000000000000000000000000000000000000000000000000000000000000"
	)
	var (
		malformed = authBody("Malformed login request.")
		// Unknown account and wrong password read the same (issue 9).
		wrongPw   = authBody("Incorrect login or password.")
		noPending = authBody("No login in progress for this account; please log in again.")
		tooLong   = authBody("Login names are at most 12 characters.")
		badCookie = authBody("Invalid cookie.1")
		notYours  = authBody("That account does not belong to you.")
	)
	type step struct {
		path string
		form url.Values
	}
	cases := []struct {
		name  string
		setup []step // sent first, replies ignored
		path  string
		form  func() url.Values
		want  string
	}{
		{name: "pre_auth without A", path: pre, form: func() url.Values { return url.Values{"login": {"alice"}} }, want: malformed},
		{name: "pre_auth without login", path: pre, form: func() url.Values { return url.Values{"A": {validA()}} }, want: malformed},
		{name: "empty A", path: pre, form: func() url.Values { return preAuth("alice", "") }, want: malformed},
		{name: "non-hex A", path: pre, form: func() url.Values { return preAuth("alice", "xyz123") }, want: malformed},
		{name: "A = 0", path: pre, form: func() url.Values { return preAuth("alice", "00") }, want: malformed},
		{name: "A = N", path: pre, form: func() url.Values { return preAuth("alice", nHex) }, want: malformed},
		{name: "over-long login", path: pre, form: func() url.Values { return preAuth("abcdefghijklm", validA()) }, want: tooLong},
		{name: "unknown account", setup: []step{{pre, preAuth("nobody", validA())}}, path: auth,
			form: func() url.Values { return url.Values{"login": {"nobody"}, "proof": {zero64}} }, want: wrongPw},
		{name: "srpAuth without pre_auth", path: auth, form: func() url.Values { return url.Values{"login": {"alice"}, "proof": {zero64}} }, want: noPending},
		{name: "srpAuth without proof", path: auth, form: func() url.Values { return url.Values{"login": {"alice"}} }, want: malformed},
		{name: "wrong password", setup: []step{{pre, preAuth("alice", validA())}}, path: auth,
			form: func() url.Values { return url.Values{"login": {"alice"}, "proof": {zero64}} }, want: wrongPw},
		{name: "switch without cookie", path: swtch, form: func() url.Values { return url.Values{"login": {"alice2"}, "account_id": {"2"}} }, want: malformed},
		{name: "switch with unknown cookie", path: swtch,
			form: func() url.Values {
				return url.Values{"login": {"alice2"}, "account_id": {"2"}, "cookie": {"0123456789abcdef0123456789abcdef"}}
			}, want: badCookie},
		{name: "switch to another main account's sub-account", path: swtch,
			form: func() url.Values {
				return url.Values{"login": {"alice2"}, "account_id": {"2"}, "cookie": {bobCookie()}}
			}, want: notYours},
		{name: "body over the limit", path: pre,
			form: func() url.Values {
				return url.Values{"login": {"alice"}, "A": {strings.Repeat("a", int(ts.Config.Server.BodyLimit))}}
			},
			want: authBody("Request too large.")},
		{name: "unknown function", path: "/client_requester.php?f=nope", form: func() url.Values { return url.Values{} },
			want: `a:3:{s:5:"error";s:16:"unknown function";s:16:"vested_threshold";i:5;i:0;b:1;}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range tc.setup {
				if _, err := ts.Client.PostForm(ctx, s.path, s.form); err != nil {
					t.Fatal(err)
				}
			}
			r, err := ts.Client.PostForm(ctx, tc.path, tc.form())
			if err != nil {
				t.Fatal(err)
			}
			if tc.path == "/client_requester.php?f=nope" {
				if r.Status != 404 {
					t.Errorf("status %d, want 404", r.Status)
				}
			} else if r.Status != 200 {
				t.Errorf("status %d, want 200", r.Status)
			}
			if string(r.Body) != tc.want {
				t.Errorf("body\n got %s\nwant %s", r.Body, tc.want)
			}
			healthy(t, ts)
		})
	}

	t.Run("replayed proof", func(t *testing.T) {
		cl, _ := grp.NewClient("alice", "pw-alice", rand.Reader)
		r, _ := ts.Client.PostForm(ctx, pre, preAuth("alice", cl.AHex()))
		a, err := r.PHP()
		if err != nil {
			t.Fatal(err)
		}
		salt, _ := a.String("salt")
		salt2, _ := a.String("salt2")
		b, _ := a.String("B")
		m1, err := cl.Proof(salt, salt2, b)
		if err != nil {
			t.Fatal(err)
		}
		form := url.Values{"login": {"alice"}, "proof": {m1}}
		first, _ := ts.Client.PostForm(ctx, auth, form)
		if rec, err := first.PHP(); err != nil || rec.Len() != 60 {
			t.Fatalf("first proof: %s", first.Body)
		}
		again, _ := ts.Client.PostForm(ctx, auth, form)
		if string(again.Body) != noPending {
			t.Errorf("replayed proof got %s", again.Body)
		}
	})

	t.Run("newer pre_auth replaces the older", func(t *testing.T) {
		old, _ := grp.NewClient("alice", "pw-alice", rand.Reader)
		r, _ := ts.Client.PostForm(ctx, pre, preAuth("alice", old.AHex()))
		a, _ := r.PHP()
		salt, _ := a.String("salt")
		salt2, _ := a.String("salt2")
		b, _ := a.String("B")
		m1, _ := old.Proof(salt, salt2, b)
		if _, err := ts.Client.PostForm(ctx, pre, preAuth("alice", validA())); err != nil {
			t.Fatal(err)
		}
		got, _ := ts.Client.PostForm(ctx, auth, url.Values{"login": {"alice"}, "proof": {m1}})
		if string(got.Body) != wrongPw {
			t.Errorf("proof for a replaced handshake got %s", got.Body)
		}
	})
	healthy(t, ts)
}

// TestLoginCookieExpires: a cookie works until login.cookie_lifetime has
// passed since its login, and is refused after.
func TestLoginCookieExpires(t *testing.T) {
	const lifetime = 1500 * time.Millisecond
	ts := start(t, func(c *config.Config) { c.Login.CookieLifetime = config.Duration{Duration: lifetime} })
	ctx := context.Background()
	ts.Host(t, "account", "create", "--login", "alice", "--password", "pw-alice")
	ts.Host(t, "account", "create", "--login", "alice2", "--password", "pw", "--parent", "alice")
	// A login and a switch on its cookie. A loaded machine may take longer
	// than the lifetime over both: a refusal then proves nothing, and the
	// pair is tried again; a refusal within the lifetime fails the test.
	var cookie string
	var issuedBy time.Time // the cookie was issued by then
	for try := 0; cookie == ""; try++ {
		if try == 10 {
			t.Fatalf("10 logins each took over %v before their switch was answered", lifetime)
		}
		asked := time.Now() // the cookie is issued later: it lives at least until asked+lifetime
		s, err := ts.Client.Login(ctx, "alice", "pw-alice")
		if err != nil {
			t.Fatal(err)
		}
		issuedBy = time.Now()
		_, err = ts.Client.Switch(ctx, s, "alice2", "2")
		switch {
		case err == nil:
			cookie = s.Cookie
		case time.Since(asked) < lifetime:
			t.Fatalf("fresh cookie refused: %v", err)
		}
	}
	time.Sleep(time.Until(issuedBy.Add(lifetime + 100*time.Millisecond))) // past the cookie's lifetime
	r, _ := ts.Client.PostForm(ctx, "/client_requester.php?f=switch_auth", url.Values{"login": {"alice2"}, "account_id": {"2"}, "cookie": {cookie}})
	if want := authBody("Invalid cookie.1"); string(r.Body) != want {
		t.Errorf("expired cookie got %s, want %s", r.Body, want)
	}
	healthy(t, ts)
}

// TestSessionsSurviveRestart stops the server and starts another on the same
// data directory: the cookie issued before still works.
func TestSessionsSurviveRestart(t *testing.T) {
	eachBackend(t, func(t *testing.T, backend func(*config.Config)) {
		ts := start(t, backend)
		ctx := context.Background()
		ts.Host(t, "account", "create", "--login", "carol", "--password", "pw")
		ts.Host(t, "account", "create", "--login", "carol2", "--password", "pw", "--parent", "carol")
		s, err := ts.Client.Login(ctx, "carol", "pw")
		if err != nil {
			t.Fatal(err)
		}
		if err := ts.Runtime.Stop(); err != nil {
			t.Fatal(err)
		}
		cfg := ts.Config
		rt, err := cli.Start(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)), false, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		ts.Runtime = rt // the cleanup stops the new one
		c := client.New("http://" + rt.Addr.String())
		if _, err := c.Switch(ctx, s, "carol2", "2"); err != nil {
			t.Fatalf("cookie after restart: %v", err)
		}
	})
}
