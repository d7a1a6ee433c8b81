package matchsim_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/cli"
	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/matches/matchsim"
	"github.com/honmaster/masterserver/host/operator"
)

// envServe, in the environment of this test binary run again, holds the
// arguments (tab-separated) of the honmaster command it runs instead of
// the tests: "serve ..." for the kill -9 and cluster tests' servers.
const envServe = "HONMASTER_MATCHSIM_SERVE"

// TestMain lets the test binary act as the host binary: in plugin mode
// (the server under test re-executes it to run the bundled plugins), and
// as a whole server process of the tests' own (envServe).
func TestMain(m *testing.M) {
	if len(os.Args) < 2 || os.Args[1] != "plugin" {
		if args := os.Getenv(envServe); args != "" {
			os.Exit(cli.Main(context.Background(), strings.Split(args, "\t"), os.Stdout, os.Stderr))
		}
	}
	clitest.Main(m)
}

// opAPI is a client of the operator API.
type opAPI struct {
	base, token string
	http        *http.Client
}

func newOpAPI(t testing.TB, addr, dataDir string) *opAPI {
	t.Helper()
	tok, err := os.ReadFile(filepath.Join(dataDir, operator.TokenFile))
	if err != nil {
		t.Fatal(err)
	}
	return &opAPI{base: "http://" + addr, token: strings.TrimSpace(string(tok)), http: &http.Client{Timeout: 30 * time.Second}}
}

// call sends a request to the operator API and decodes its JSON answer
// into out; the status other than 200 is an error.
func (o *opAPI) call(method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, o.base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+o.token)
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := o.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return fmt.Errorf("%s %s: HTTP %d %s", method, path, resp.StatusCode, b)
	}
	return json.Unmarshal(b, out)
}

// gameHost makes login a game host.
func (o *opAPI) gameHost(t testing.TB, login string) int64 {
	t.Helper()
	var j struct {
		AccountID int64 `json:"account_id"`
		GameHost  bool  `json:"game_host"`
	}
	if err := o.call("POST", "/api/matches/game-host", map[string]any{"login": login, "game_host": true}, &j); err != nil {
		t.Fatal(err)
	}
	if !j.GameHost || j.AccountID == 0 {
		t.Fatalf("game-host %s: %+v", login, j)
	}
	return j.AccountID
}

func (o *opAPI) totals(id int64) (*matchsim.Totals, error) {
	var j matchsim.Totals
	err := o.call("GET", "/api/matches/totals?account_id="+strconv.FormatInt(id, 10), nil, &j)
	return &j, err
}

func (o *opAPI) match(t testing.TB, id int64) *matchsim.MatchRecord {
	t.Helper()
	var j matchsim.MatchRecord
	if err := o.call("GET", "/api/matches/match?id="+strconv.FormatInt(id, 10), nil, &j); err != nil {
		t.Fatal(err)
	}
	return &j
}

// world is a server under test as the game's side and its operator see
// it: a game-host account (its manager logged in), and players.
type world struct {
	c        *client.Client
	op       *opAPI
	host     string
	password string
	mgr      *matchsim.Manager
	next     int // the next player's number
	prefix   string
	inst     int // the next game server's instance
}

const password = "pw"

// startWorld starts a server (clitest, mutate after the load-test
// limits) with a game host "gh".
func startWorld(t *testing.T, mutate func(*config.Config)) (*world, *clitest.Server) {
	t.Helper()
	ts := clitest.Start(t, func(c *config.Config) {
		clitest.LoadTestLimits(c)
		if mutate != nil {
			mutate(c)
		}
	})
	w := newWorld(t, ts.Client, newOpAPI(t, ts.Runtime.OperatorAddr.String(), ts.DataDir), "w")
	return w, ts
}

// newWorld registers the game host PREFIXgh and logs its manager in.
func newWorld(t *testing.T, c *client.Client, op *opAPI, prefix string) *world {
	t.Helper()
	w := &world{c: c, op: op, host: prefix + "gh", password: password, prefix: prefix, inst: 1}
	register(t, c, w.host)
	op.gameHost(t, w.host)
	w.mgr = matchsim.NewManager(c, w.host, password)
	if _, err := w.mgr.ReplayAuth(context.Background()); err != nil {
		t.Fatal(err)
	}
	return w
}

func register(t testing.TB, c *client.Client, login string) {
	t.Helper()
	for try := 0; ; try++ {
		r, err := c.PostForm(context.Background(), "/portal/register", url.Values{"login": {login}, "password": {password}})
		if err == nil && r.Status == 200 {
			return
		}
		if try == 5 {
			if err == nil {
				err = fmt.Errorf("HTTP %d %s", r.Status, r.Body)
			}
			t.Fatalf("register %s: %v", login, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// player is a logged-in player.
type player struct {
	login  string
	id     int64
	cookie string
}

// players registers n new players and logs them in.
func (w *world) players(t testing.TB, n int) []*player {
	t.Helper()
	out := make([]*player, n)
	for i := range out {
		login := fmt.Sprintf("%sp%d", w.prefix, w.next)
		w.next++
		register(t, w.c, login)
		var s *client.Session
		var err error
		for try := 0; try < 5; try++ {
			if s, err = w.c.Login(context.Background(), login, password); err == nil {
				break
			}
		}
		if err != nil {
			t.Fatalf("login %s: %v", login, err)
		}
		id, err := strconv.ParseInt(s.AccountID, 10, 64)
		if err != nil {
			t.Fatalf("account id %q", s.AccountID)
		}
		out[i] = &player{login: login, id: id, cookie: s.Cookie}
	}
	return out
}

// server logs a new game server of the host in and sends its first
// heartbeat.
func (w *world) server(t testing.TB) *matchsim.GameServer {
	t.Helper()
	g := matchsim.NewGameServer(w.c, w.host, w.inst, w.password)
	w.inst++
	if _, err := g.NewSession(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := g.SetOnline(context.Background(), matchsim.StateIdle); err != nil {
		t.Fatal(err)
	}
	return g
}

// start starts a match on g and connects the players: the match to submit.
func start(t testing.TB, g *matchsim.GameServer, ps []*player, seed uint64) *matchsim.Match {
	t.Helper()
	m, err := startE(g, ps, seed)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// startE is start returning its error (for goroutines).
func startE(g *matchsim.GameServer, ps []*player, seed uint64) (*matchsim.Match, error) {
	ctx := context.Background()
	if _, err := g.StartGame(ctx); err != nil {
		return nil, err
	}
	if _, err := g.SetOnline(ctx, matchsim.StateInGame); err != nil {
		return nil, err
	}
	ids, nicks := make([]int64, len(ps)), make([]string, len(ps))
	for i, p := range ps {
		c, err := g.CConn(ctx, p.cookie)
		if err != nil {
			return nil, fmt.Errorf("c_conn %s: %w", p.login, err)
		}
		if c.AccountID != p.id {
			return nil, fmt.Errorf("c_conn %s: account %d, want %d", p.login, c.AccountID, p.id)
		}
		if c.GameCookie == p.cookie {
			return nil, fmt.Errorf("c_conn %s: game_cookie is the player's client cookie", p.login)
		}
		ids[i], nicks[i] = p.id, p.login
	}
	return matchsim.NewMatch(rngOf(seed), g.MatchID, g.ServerID, ids, nicks), nil
}

// want adds up the players' totals of the matches.
func want(ms ...*matchsim.Match) map[int64]*matchsim.Totals {
	out := map[int64]*matchsim.Totals{}
	for _, m := range ms {
		for _, p := range m.Players {
			if out[p.AccountID] == nil {
				out[p.AccountID] = &matchsim.Totals{AccountID: p.AccountID}
			}
			out[p.AccountID].Add(p, m.Winner)
		}
	}
	return out
}

// zero is the totals of players of no match.
func zero(ps []*player) map[int64]*matchsim.Totals {
	out := map[int64]*matchsim.Totals{}
	for _, p := range ps {
		out[p.id] = &matchsim.Totals{AccountID: p.id}
	}
	return out
}

// checkTotals waits (at most a minute: each player's actor applies the
// match after it is durable) until every account's totals are the wanted
// ones, and fails the test with the differences otherwise.
func checkTotals(t testing.TB, op *opAPI, wanted map[int64]*matchsim.Totals) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var diffs []string
		for _, id := range slices.Sorted(maps.Keys(wanted)) {
			got, err := op.totals(id)
			if err != nil {
				diffs = append(diffs, fmt.Sprintf("account %d: %v", id, err))
				continue
			}
			if d := wanted[id].Diff(got); d != "" {
				diffs = append(diffs, fmt.Sprintf("account %d: %s", id, d))
			}
		}
		if len(diffs) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("match totals differ after a minute:\n%s", strings.Join(diffs, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// rngOf is a random source of the seed, for a match's heroes and K/D/A.
func rngOf(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 3)) }

// child is a server process: this test binary run again as
// "honmaster serve" (envServe).
type child struct {
	cmd          *exec.Cmd
	addr, opAddr string
}

// startChild starts a server on data with the configuration file conf and
// waits until it serves.
func startChild(t *testing.T, data, conf string) *child {
	t.Helper()
	args := []string{"serve", "--data", data, "--listen", "127.0.0.1:0", "--config", conf}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envServe+"="+strings.Join(args, "\t"))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &tail{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("the server's last log lines:\n%s", stderr.String())
		}
	})
	ready := make(chan *child, 1)
	go func() {
		c := &child{cmd: cmd}
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "operator listener on "); ok {
				c.opAddr, _, _ = strings.Cut(a, " ")
			}
			if a, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				c.addr = a
				ready <- c
			}
		}
		io.Copy(io.Discard, stdout)
	}()
	select {
	case c := <-ready:
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			if r, err := http.Get("http://" + c.addr + "/healthz"); err == nil {
				r.Body.Close()
				if r.StatusCode == 200 {
					return c
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatal("the server never became healthy")
	case <-time.After(time.Minute):
		t.Fatal("the server did not start within a minute")
	}
	return nil
}

// kill9 kills the server with SIGKILL and waits for it.
func (c *child) kill9(t *testing.T) {
	t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	c.cmd.Wait()
}

// stop stops the server gracefully.
func (c *child) stop() {
	c.cmd.Process.Signal(syscall.SIGTERM)
	c.cmd.Wait()
}

// childConfig writes a configuration file for child servers: the operator
// listener on a free loopback port, the per-address limits off (the tests
// act as many players from 127.0.0.1), and extra appended.
func childConfig(t *testing.T, extra ...string) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "child.toml")
	conf := "[operator]\nlisten = \"127.0.0.1:0\"\n" +
		"[limits]\nregistrations_per_address = { burst = 1000000, every = \"1ms\" }\n" +
		"max_connections_per_address = 10000\n"
	if err := os.WriteFile(file, []byte(conf+strings.Join(extra, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// tail keeps the last 16 KiB written to it (a child server's log, shown
// when the test fails).
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (w *tail) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if over := len(w.buf) - 16<<10; over > 0 {
		w.buf = append(w.buf[:0], w.buf[over:]...)
	}
	return len(p), nil
}

func (w *tail) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.buf)
}
