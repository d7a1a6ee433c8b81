package cli_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/cli/clitest"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/storage/storagetest"
)

// TestPostgresRestartUnderServe restarts PostgreSQL (pg_ctl stop -m fast,
// then start on the same data directory and port) under running servers
// while players drop: a single node, and a cluster of two nodes. It
// checks that every node process stays up; that every drop sent while the
// database is down is answered with the area's reply (an HTTP 200 PHP
// array), "storage refuses writes, nothing happened, try again" (Plinko
// status 12) or, for a drop whose COMMIT was cut, "outcome unknown" (11),
// never an error page or a dropped connection; that every account is
// served again within a minute of the database's return (the time is
// logged; docs/cluster.md gives the figures); and that no acknowledged
// drop was lost or counted twice (each balance is its start plus its
// acknowledged drops plus some of those of unknown outcome).
//
// It runs in the plain test pass (the nodes are separate processes, built
// without the race detector), on a PostgreSQL server of its own
// (storagetest.OwnPostgres: Debian's postgresql package).
func TestPostgresRestartUnderServe(t *testing.T) {
	if os.Getenv(clitest.EnvBackend) != "" || raceDetector {
		t.Skip("runs in the plain test pass, on a PostgreSQL server of its own")
	}
	t.Run("single", func(t *testing.T) { postgresRestart(t, 1) })
	t.Run("cluster", func(t *testing.T) { postgresRestart(t, 2) })
}

func postgresRestart(t *testing.T, nodes int) {
	pg := storagetest.OwnPostgres(t)
	bin := buildHost(t)
	const accounts = 4
	confs, datas := clusterConfigs(t, bin, pg.URL, nodes)
	logins := clusterAccounts(t, bin, confs[0], datas[0], "pr", accounts)
	cmds := make([]*exec.Cmd, nodes)
	games := make([]string, nodes)
	exited := make([]chan error, nodes)
	for i := range nodes {
		cmds[i], games[i], _ = startHostOperator(t, bin, datas[i], confs[i])
		exited[i] = make(chan error, 1)
		go func() { exited[i] <- cmds[i].Wait() }()
	}
	if nodes > 1 {
		waitClusterSize(t, games, nodes)
	}
	sp := &spread{nodes: append([]string(nil), games...), base: &http.Transport{MaxIdleConnsPerHost: 64}}
	c := client.New("http://nodes")
	c.HTTP = &http.Client{Transport: sp, Timeout: 20 * time.Second}

	// Replies while the database is away, by kind.
	var outage atomic.Bool
	var mu sync.Mutex
	during := map[string]int{}
	ledgers := make([]*clusterLedger, accounts)
	sessions := make([]*client.Session, accounts)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i, login := range logins {
		ledgers[i] = &clusterLedger{failKinds: map[string]int{}}
		s, err := c.Login(context.Background(), login, "pw")
		if err != nil {
			t.Fatalf("login %s: %v", login, err)
		}
		sessions[i] = s
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					away := outage.Load()
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					r, status, err := dropReply(ctx, c, s.Cookie)
					cancel()
					ledgers[i].record(r, err)
					if away {
						kind := fmt.Sprintf("status_code %d", r.code)
						switch {
						case err != nil && status != 0:
							kind = fmt.Sprintf("HTTP %d", status)
						case err != nil:
							kind = "transport: " + errKind(err)
						}
						mu.Lock()
						during[kind]++
						mu.Unlock()
						time.Sleep(20 * time.Millisecond) // a player retries, not a tight loop
					}
				}
			}()
		}
	}
	time.Sleep(time.Second) // load with the database up

	pg.Stop(t)
	outage.Store(true)
	time.Sleep(2 * time.Second) // load with the database down
	pg.Start(t)
	back := time.Now()
	outage.Store(false)
	// Every account served again: one acknowledged drop each, sent after
	// the database accepted connections.
	worst := servedAgain(t, c, sessions, ledgers, back, "PostgreSQL's restart")
	time.Sleep(time.Second) // load after the restart
	close(stop)
	wg.Wait()
	t.Logf("%d node(s): replies while PostgreSQL was down: %v; every account served again %v after it accepted connections",
		nodes, during, worst.Round(time.Millisecond))

	for i := range nodes {
		select {
		case err := <-exited[i]:
			t.Fatalf("node %d exited during or after the PostgreSQL restart: %v", i, err)
		default:
		}
	}
	tryAgain := 0
	for kind, n := range during {
		switch kind {
		case "status_code 12":
			tryAgain += n
		case "status_code 11", "status_code 1": // a COMMIT cut by the shutdown; one served before it
		default:
			t.Errorf("%d drops while PostgreSQL was down answered %s; want the try-again reply (status_code 12)", n, kind)
		}
	}
	if tryAgain == 0 {
		t.Errorf("no drop while PostgreSQL was down was answered try-again (status_code 12): %v", during)
	}
	for i := range nodes {
		cmds[i].Process.Signal(syscall.SIGTERM)
		if err := <-exited[i]; err != nil {
			t.Errorf("node %d stopped with %v", i, err)
		}
	}

	// Nothing acknowledged lost, nothing counted twice.
	total, _, _ := checkClusterBalances(t, bin, confs[0], datas[0], logins, ledgers)
	if total < accounts*4 {
		t.Errorf("only %d drops acknowledged: the load did not run", total)
	}
}

// dropReply is drop with the reply's HTTP status: an error with a status
// is a reply that was not the area's (an error page).
func dropReply(ctx context.Context, c *client.Client, cookie string) (dropResult, int, error) {
	r, err := c.PostForm(ctx, "/master/casino/drop/", url.Values{"cookie": {cookie}, "currency": {"tickets"}})
	if err != nil {
		return dropResult{}, 0, err
	}
	if r.Status != http.StatusOK {
		return dropResult{}, r.Status, errors.New(http.StatusText(r.Status))
	}
	a, err := r.PHP()
	if err != nil {
		return dropResult{}, r.Status, err
	}
	res := dropResult{ok: num(a, "status_code") == 1, tier: int(num(a, "random_tier")), tickets: num(a, "user_tickets"),
		payout: num(a, "ticket_amount"), code: num(a, "status_code")}
	res.exhausted, _ = a.Bool("products_exhausted")
	res.product, _ = a.String("product_name")
	return res, r.Status, nil
}

// servedAgain sends, from began on, one drop per session through c,
// repeating each until one is acknowledged (a minute at most), records
// every reply in the account's ledger, and returns the longest wait: how
// long after began (a failure, a restart) every account was served again.
func servedAgain(t *testing.T, c *client.Client, sessions []*client.Session, ledgers []*clusterLedger, began time.Time, what string) time.Duration {
	var worst atomic.Int64
	var pw sync.WaitGroup
	for i := range sessions {
		pw.Add(1)
		go func() {
			defer pw.Done()
			for time.Since(began) < time.Minute {
				r, err := drop(context.Background(), c, sessions[i].Cookie)
				ledgers[i].record(r, err)
				if err == nil && r.ok {
					d := int64(time.Since(began))
					for old := worst.Load(); d > old && !worst.CompareAndSwap(old, d); old = worst.Load() {
					}
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
			t.Errorf("after %s, %s was not served again within a minute", what, sessions[i].Login)
		}()
	}
	pw.Wait()
	return time.Duration(worst.Load())
}
