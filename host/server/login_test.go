package server

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// TestPreAuthFloodOverHTTP is issue 22's first attack through the handlers:
// nine addresses (told apart by X-Forwarded-For from a trusted proxy) send
// only pre_auth for the player's login, 10 a second each, on a simulated
// clock, while the player logs in like the real client. Every login of the
// player succeeds; before the fix none did. A proof sent after its
// handshake expired is answered "please log in again" and charged nowhere.
func TestPreAuthFloodOverHTTP(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	sys := actors.New(db, actors.Options{})
	t.Cleanup(func() { sys.Shutdown(); db.Close() })
	grp := srp.DefaultGroup()
	salt, salt2, v, err := grp.NewVerifier("victim", "pw", rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sys.CreateAccount(context.Background(), &actors.NewAccount{Login: "victim",
		Account: storage.Account{Nickname: "victim", SRP: storage.SRPVerifier{Salt: salt, Salt2: salt2, Verifier: v}}}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	clock := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
	setClock := func(t time.Time) { mu.Lock(); defer mu.Unlock(); clock = t }
	start := clock
	cfg := config.Default()
	cfg.Server.TrustForwardedFor = true
	svc := login.New(grp, sys, login.Settings{Secret: []byte("test-secret-test-secret"), KeyVersion: "0001",
		FailedProofsAddress: limitRate(cfg.Limits.FailedProofsAddress), FailedProofsLogin: limitRate(cfg.Limits.FailedProofsLogin)}, now, nil)
	s := New(Deps{Config: cfg, Logger: slog.New(slog.DiscardHandler), Login: svc})
	c := serve(t, s)

	post := func(fn, from string, form url.Values) string {
		t.Helper()
		req, _ := http.NewRequest("POST", "http://host/client_requester.php?f="+fn, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", from)
		r, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	const player = "198.51.100.7"
	// preAuth sends the player's pre_auth and returns the proof for it.
	preAuth := func() string {
		t.Helper()
		cl, _ := grp.NewClient("victim", "pw", rand.Reader)
		body := post("pre_auth", player, url.Values{"login": {"victim"}, "A": {cl.AHex()}})
		v, err := wire.Unmarshal([]byte(body))
		a, ok := v.(*wire.Array)
		if err != nil || !ok {
			t.Fatalf("pre_auth: %v %s", err, body)
		}
		salt, _ := a.String("salt")
		salt2, _ := a.String("salt2")
		b, _ := a.String("B")
		m1, err := cl.Proof(salt, salt2, b)
		if err != nil {
			t.Fatalf("pre_auth reply %s: %v", body, err)
		}
		return m1
	}
	proofOK := func(body string) bool { return strings.Contains(body, `s:6:"cookie";`) }

	attackA := func() string { cl, _ := grp.NewClient("victim", "guess", rand.Reader); return cl.AHex() }()
	const logins, gap, every = 5, 400 * time.Millisecond, 100 * time.Millisecond
	ok := 0
	var proof string
	// Steps of 10 ms; each attacker sends at its own offset in each 100 ms.
	for step := time.Duration(0); step < logins*gap; step += 10 * time.Millisecond {
		setClock(start.Add(step))
		for i := range 9 {
			if step%every == time.Duration(i)*10*time.Millisecond {
				post("pre_auth", fmt.Sprintf("203.0.113.%d", i+1), url.Values{"login": {"victim"}, "A": {attackA}})
			}
		}
		switch step % gap {
		case gap / 2:
			proof = preAuth()
		case gap/2 + 150*time.Millisecond:
			if body := post("srpAuth", player, url.Values{"login": {"victim"}, "proof": {proof}}); proofOK(body) {
				ok++
			} else {
				t.Logf("at %v: %s", step, body)
			}
		}
	}
	if ok != logins {
		t.Errorf("%d of %d of the player's logins succeeded under the flood, want all", ok, logins)
	}

	// A proof after its handshake expired: "please log in again", and
	// not a failure: more of them than the failure burst leave the next
	// login working.
	noPending, err := wire.Marshal(login.Failure(&login.Error{Reason: login.ReasonNoPendingLogin}))
	if err != nil {
		t.Fatal(err)
	}
	for i := range cfg.Limits.FailedProofsLogin.Burst + 1 {
		proof := preAuth()
		setClock(now().Add(cfg.Login.PreAuthLifetime.Duration))
		if body := post("srpAuth", player, url.Values{"login": {"victim"}, "proof": {proof}}); body != string(noPending) {
			t.Fatalf("expired handshake %d: %s, want %s", i, body, noPending)
		}
	}
	proof = preAuth()
	if body := post("srpAuth", player, url.Values{"login": {"victim"}, "proof": {proof}}); !proofOK(body) {
		t.Errorf("the login after expired handshakes: %s", body)
	}
}

func limitRate(r config.Rate) limit.Rate { return limit.Rate{Burst: r.Burst, Every: r.Every.Duration} }
