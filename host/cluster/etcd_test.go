// Not under the race detector, like cluster_test.go (several members in
// one process race in gRPC's process-wide logger).

//go:build !race

package cluster

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/honmaster/masterserver/host/cluster/clustertest"
	"github.com/honmaster/masterserver/storage"
)

// etcdBinary is where Debian's etcd-server package puts etcd (.ci/run
// installs it).
const etcdBinary = "/usr/bin/etcd"

// startEtcd runs a throw-away single-member etcd on loopback ports in a
// temporary directory, and returns its client endpoint once it answers
// (bounded: a minute). It skips the test when etcd is not installed,
// except in CI (CI=true), where that is a failure.
func startEtcd(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(etcdBinary); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing (apt-get install etcd-server): %v", etcdBinary, err)
		}
		t.Skipf("%s is missing: install Debian's etcd-server to run the etcd provider's tests", etcdBinary)
	}
	dir := t.TempDir()
	addrs := clustertest.FreeAddrs(t, 2)
	client, peer := "http://"+addrs[0], "http://"+addrs[1]
	logPath := filepath.Join(dir, "etcd.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := exec.Command(etcdBinary, "--name", "test", "--data-dir", filepath.Join(dir, "data"),
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer,
		"--initial-cluster", "test="+peer, "--initial-cluster-state", "new")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
		if t.Failed() {
			if b, err := os.ReadFile(logPath); err == nil {
				t.Logf("etcd's log:\n%s", b)
			}
		}
	})
	cfg := Config{EtcdEndpoints: []string{addrs[0]}, EtcdPrefix: "/", EtcdDialTimeout: time.Second}
	deadline := time.Now().Add(time.Minute)
	for {
		select {
		case <-exited:
			b, _ := os.ReadFile(logPath)
			t.Fatalf("etcd exited:\n%s", b)
		default:
		}
		err := pingEtcd(cfg)
		if err == nil {
			return addrs[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("etcd at %s does not answer: %v", addrs[0], err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func withEtcd(endpoint string) func(Config) Config {
	return func(c Config) Config {
		c.Provider, c.Peers = ProviderEtcd, nil
		c.EtcdEndpoints, c.EtcdDialTimeout = []string{endpoint}, 5*time.Second
		return c
	}
}

// TestEtcdMembersServeAccountsAndTakeOver is
// TestRequestsReachTheAccountsHomeAndMoveWhenItLeaves with members that
// find each other through etcd: each sees all, every account is served by
// one home node, and when that node stops the others drop it and serve its
// accounts.
func TestEtcdMembersServeAccountsAndTakeOver(t *testing.T) {
	endpoint := startEtcd(t)
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	nodes := startNodesWith(t, db, withEtcd(endpoint), "a", "b", "c")
	waitMembers(t, nodes, 3)
	for _, tn := range nodes {
		var self []string
		for _, m := range tn.n.Members() {
			if m.Self {
				self = append(self, m.Node)
			}
			if m.Node == "" {
				t.Errorf("%s: member %s has no name", tn.name, m.ID)
			}
		}
		if len(self) != 1 || self[0] != tn.name {
			t.Errorf("%s sees itself as %v", tn.name, self)
		}
		if err := tn.n.Health(); err != nil {
			t.Errorf("%s: Health() = %v", tn.name, err)
		}
	}
	homesServeAndTakeOver(t, nodes)
}

// TestEtcdMemberWhoseKeyExpiresLeaves: when a member's key leaves etcd
// (its lease expired: the process was paused or cut off from etcd longer
// than EtcdLeaseTTL), the others drop it, and it leaves the cluster
// (Fatal), since protoactor never lets its member id back in. The key is
// deleted here, as etcd does at a lease's expiry.
func TestEtcdMemberWhoseKeyExpiresLeaves(t *testing.T) {
	endpoint := startEtcd(t)
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	nodes := startNodesWith(t, db, withEtcd(endpoint), "a", "b")
	waitMembers(t, nodes, 2)
	gone := nodes[1].n
	key := EtcdKeyPrefix("test") + "/test/test@" + gone.as.ID
	c, err := clientv3.New(clientv3.Config{Endpoints: []string{endpoint}, DialTimeout: 5 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.Delete(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if res.Deleted != 1 {
		t.Fatalf("no member key %s in etcd", key)
	}
	select {
	case <-gone.Fatal():
	case <-time.After(time.Minute):
		t.Fatal("the member whose key was deleted did not leave")
	}
	if gone.Health() == nil {
		t.Error("the removed member says it is healthy")
	}
	waitMembers(t, nodes[:1], 1)
}
