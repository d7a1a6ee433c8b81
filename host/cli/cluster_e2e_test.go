package cli_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/storage/storagetest"
)

// clusterLedger is what one account's player learned of its drops.
type clusterLedger struct {
	mu        sync.Mutex
	acked     int64 // sum of acknowledged drops' deltas
	drops     int
	unknown   int // drops whose outcome the player never learned
	failKinds map[string]int
}

// spread is an http.RoundTripper that sends each request to a random node
// of a cluster (one account's requests cross nodes, as behind a load
// balancer without affinity). A node that refuses the connection never got
// the request: the next node is tried.
type spread struct {
	mu    sync.Mutex
	nodes []string // host:port of the nodes' game listeners; "" once dead
	base  http.RoundTripper
}

func (s *spread) live() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, n := range s.nodes {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}

func (s *spread) RoundTrip(r *http.Request) (*http.Response, error) {
	nodes := s.live()
	start := rand.IntN(len(nodes))
	var err error
	for i := range nodes {
		r2 := r.Clone(r.Context())
		r2.URL.Host = nodes[(start+i)%len(nodes)]
		r2.Host = r2.URL.Host
		if r.GetBody != nil {
			r2.Body, _ = r.GetBody()
		}
		var resp *http.Response
		resp, err = s.base.RoundTrip(r2)
		var op *net.OpError
		if err != nil && errors.As(err, &op) && op.Op == "dial" {
			continue // refused: never sent, another node may serve it
		}
		return resp, err
	}
	return nil, err
}

// TestClusterEndToEnd runs three nodes on one PostgreSQL with the static
// provider on loopback. Players' requests go to random nodes while one node
// is killed with SIGKILL and, later, another is paused with SIGSTOP for
// longer than the others' failure detection. It checks: no acknowledged
// drop lost and none counted twice (every account's balance is its starting balance plus its
// acknowledged drops, plus some of the drops whose outcome it did not
// learn), the paused node leaves and exits when it resumes, every account
// is served again after each failure, a login whose pre_auth and srpAuth
// go to different nodes succeeds, and a cookie issued by the killed node
// works on the others.
//
// It runs once per CI run: not again in the pass that runs the host's
// tests on PostgreSQL (it is on PostgreSQL already), nor under the race
// detector (its nodes are separate processes, built without it).
func TestClusterEndToEnd(t *testing.T) {
	if os.Getenv(clitest.EnvBackend) != "" || raceDetector {
		t.Skip("runs in the plain test pass (go test ./... with " + storagetest.EnvURL + " set)")
	}
	pg := storagetest.PostgresURL(t)
	bin := buildHost(t)
	const nodes, accounts = 3, 8
	confs, datas := clusterConfigs(t, bin, pg, nodes)
	logins := clusterAccounts(t, bin, confs[0], datas[0], "cl", accounts)
	cmds := make([]*exec.Cmd, nodes)
	games := make([]string, nodes)
	var op0 string
	for i := range nodes {
		var op string
		cmds[i], games[i], op = startHostOperator(t, bin, datas[i], confs[i])
		if i == 0 {
			op0 = op
		}
	}
	waitClusterSize(t, games, nodes)

	// The load tester's durable mix through all three nodes (each request
	// to one at random): its own checks (balances and cloud archives as the
	// replies left them) must hold.
	ltArgs := []string{"loadtest", "--operator", "http://" + op0, "--token-file", filepath.Join(datas[0], "operator.token"),
		"--mix", "login=1,drop=4,store=2,board=1", "--accounts", "12", "--concurrency", "12", "--duration", "4s", "--requests", "3000"}
	for _, g := range games {
		ltArgs = append(ltArgs, "--target", "http://"+g)
	}
	if out, err := exec.Command(bin, ltArgs...).CombinedOutput(); err != nil {
		t.Fatalf("loadtest through three nodes: %v\n%s", err, out)
	} else {
		t.Logf("loadtest through three nodes:\n%s", out)
	}

	sp := &spread{nodes: append([]string(nil), games...), base: &http.Transport{MaxIdleConnsPerHost: 64}}
	c := client.New("http://cluster")
	c.HTTP = &http.Client{Transport: sp, Timeout: 10 * time.Second}

	// A login through node 0 only, to check its cookie after node 0 dies.
	only0 := client.New("http://" + games[0])
	s0, err := only0.Login(context.Background(), logins[0], "pw")
	if err != nil {
		t.Fatal(err)
	}

	ledgers := make([]*clusterLedger, accounts)
	sessions := make([]*client.Session, accounts)
	var loggedIn atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i, login := range logins {
		l := &clusterLedger{failKinds: map[string]int{}}
		ledgers[i] = l
		// Every login's pre_auth and srpAuth go to random nodes.
		var s *client.Session
		for try := 0; ; try++ {
			if s, err = c.Login(context.Background(), login, "pw"); err == nil {
				break
			}
			if try == 5 {
				t.Fatalf("login %s across nodes: %v", login, err)
			}
		}
		loggedIn.Add(1)
		sessions[i] = s
		for w := range 2 { // two drop streams per account: its actor orders them
			_ = w
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					r, err := drop(ctx, c, s.Cookie)
					cancel()
					l.record(r, err)
				}
			}()
		}
	}
	// takeover sends, right after a failure, one drop per account through
	// the node via (another client than the load's, whose streams may be
	// held by requests in flight to the failed node), repeating each until
	// one is acknowledged, and returns the longest wait: how long after the
	// failure every account is served again.
	takeover := func(via, what string) time.Duration {
		cv := client.New("http://" + via)
		cv.HTTP.Timeout = 10 * time.Second
		return servedAgain(t, cv, sessions, ledgers, time.Now(), what)
	}

	time.Sleep(2 * time.Second) // load on three nodes
	// 1. kill -9 node 0.
	if err := cmds[0].Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmds[0].Wait()
	sp.mu.Lock()
	sp.nodes[0] = ""
	sp.mu.Unlock()
	killTakeover := takeover(games[1], "kill -9")
	waitClusterSize(t, games[1:], nodes-1)
	// The cookie node 0 issued works on the others.
	c1 := client.New("http://" + games[1])
	r, err := drop(context.Background(), c1, s0.Cookie)
	ledgers[0].record(r, err)
	if err != nil || !r.ok {
		t.Fatalf("cookie issued by the killed node, on another: %+v %v", r, err)
	}

	// 2. SIGSTOP node 1 for longer than the others' failure detection
	// (1.5 s), then SIGCONT: its accounts move to node 2 meanwhile; when it
	// resumes it learns that node 2 dropped it, leaves and exits, and
	// whatever it had in flight is refused by the owner epochs.
	if err := cmds[1].Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	pauseOver := time.Now().Add(7 * time.Second)
	// The load balancer's health check (every second, on /healthz) takes
	// the paused node out of rotation; requests it had are lost to it.
	pausedTakeover := takeover(games[2], "SIGSTOP")
	time.Sleep(time.Second)
	sp.mu.Lock()
	sp.nodes[1] = ""
	sp.mu.Unlock()
	time.Sleep(time.Until(pauseOver))
	if err := cmds[1].Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmds[1].Wait() }()
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() == 0 {
			t.Errorf("the paused node exited with %v, want a non-zero status", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the paused node did not leave within a minute of resuming")
	}
	time.Sleep(time.Second) // load on the last node
	close(stop)
	wg.Wait()
	cmds[2].Process.Signal(syscall.SIGTERM)
	cmds[2].Wait()

	// Every balance: start + acknowledged + a subset of the unknown drops.
	total, unknown, kinds := checkClusterBalances(t, bin, confs[0], datas[0], logins, ledgers)
	t.Logf("%d acknowledged drops, %d of unknown outcome; failures by kind: %v", total, unknown, kinds)
	t.Logf("every account served again (a request sent after the failure acknowledged) %v after kill -9, %v after SIGSTOP",
		killTakeover.Round(time.Millisecond), pausedTakeover.Round(time.Millisecond))
	if total < accounts*4 {
		t.Errorf("only %d drops acknowledged: the load did not run", total)
	}
}

// record counts one drop's outcome in the ledger.
func (l *clusterLedger) record(r dropResult, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case err == nil && r.ok:
		l.acked += won(r) - 66
		l.drops++
	case err != nil:
		l.unknown++
		l.failKinds["transport: "+errKind(err)]++
	default:
		l.unknown++
		l.failKinds[fmt.Sprintf("reply status_code %d", r.code)]++
	}
}

// won is a drop's payout in tickets: ticket_amount, or an exhausted
// chest's tickets (its ticket_amount is 0, the payout is in user_tickets).
func won(r dropResult) int64 {
	if r.exhausted {
		return int64(plinkoapi.Tier(r.tier).Tickets())
	}
	return r.payout
}

// reachable reports whether d is a sum of at most n drop deltas (payout -
// 66 for a payout in payouts): the drops whose outcome was unknown that
// landed.
func reachable(d int64, n int, payouts map[int64]bool) bool {
	sums := map[int64]bool{0: true}
	for range n {
		next := map[int64]bool{}
		for s := range sums {
			next[s] = true
			for p := range payouts {
				next[s+p-66] = true
			}
		}
		sums = next
		if sums[d] {
			return true
		}
	}
	return sums[d]
}

func errKind(err error) string {
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "connection closed"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	}
	return "other"
}

var clusterSizeRE = regexp.MustCompile(`member, (\d+) nodes`)

// waitClusterSize waits (a minute at most) until every node's /healthz
// counts want members.
func waitClusterSize(t *testing.T, games []string, want int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for _, g := range games {
		for {
			if r, err := http.Get("http://" + g + "/healthz"); err == nil {
				b, _ := io.ReadAll(r.Body)
				r.Body.Close()
				if m := clusterSizeRE.FindSubmatch(b); m != nil && string(m[1]) == strconv.Itoa(want) {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("node %s does not see %d members within a minute", g, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}
