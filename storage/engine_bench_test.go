package storage

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/honmaster/masterserver/storage/storagetest"
)

// BenchmarkDurableCommit commits, one after another, the batch of a
// typical mutation (an account's profile record and one owned upgrade),
// synced, on each engine: Pebble on disk, PostgreSQL at
// HONMASTER_TEST_POSTGRES_URL as one server uses it, and as a cluster node
// does (its database lock shared, every commit fenced by the account's
// owner epoch). Besides the wall time it reports this process's CPU per
// commit (cpu-ns/op, from getrusage): the server's own cost, without the
// database server's on PostgreSQL. On PostgreSQL it also reports the
// database server's CPU per commit (pg-cpu-ns/op: the time on a CPU of
// the one session's backend process, from /proc/PID/schedstat, when
// PostgreSQL runs on this machine and that file can be read): what a
// cluster node's fencing costs PostgreSQL at each write, without the
// other load of a cluster (issue 35 item 7).
//
//	bash .ci/postgres go test ./storage/ -run '^$' -bench DurableCommit -benchtime 2000x
func BenchmarkDurableCommit(b *testing.B) {
	run := func(b *testing.B, db *DB, fence bool) {
		a := sampleAccount(1, "bench")
		first := db.NewBatch()
		first.PutAccount(a, nil)
		first.PutUpgrades(a.ID, 0, a.Upgrades)
		if err := db.Commit(first); err != nil {
			b.Fatal(err)
		}
		epoch := uint64(0)
		if fence {
			var err error
			if epoch, a, err = db.ActivateAccount(a.ID, "bench"); err != nil {
				b.Fatal(err)
			}
		}
		ups := a.Upgrades
		var backend func() (time.Duration, bool)
		if _, ok := db.eng.(*pgEngine); ok {
			backend = pgBackendCPU(b, db)
		}
		b.ReportAllocs()
		cpu0 := processCPU()
		var pg0 time.Duration
		if backend != nil {
			pg0, _ = backend()
		}
		b.ResetTimer()
		for i := range b.N {
			a.Gold = int64(i)
			bt := db.NewBatch()
			if fence {
				bt.Fence(a.ID, epoch)
			}
			bt.PutAccount(a, nil)
			bt.PutUpgrades(1, 0, ups)
			if err := db.Commit(bt); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		if backend != nil {
			if pg1, ok := backend(); ok {
				b.ReportMetric(float64(pg1-pg0)/float64(b.N), "pg-cpu-ns/op")
			}
		}
	}
	b.Run("pebble", func(b *testing.B) {
		db, err := Open(filepath.Join(b.TempDir(), "db"), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		run(b, db, false)
	})
	b.Run("postgres", func(b *testing.B) {
		db, err := OpenPostgres(PostgresOptions{URL: storagetest.PostgresURL(b), MaxConns: 1})
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		run(b, db, false)
	})
	b.Run("postgres-cluster", func(b *testing.B) {
		db, err := OpenPostgres(PostgresOptions{URL: storagetest.PostgresURL(b), Cluster: true, MaxConns: 1})
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		run(b, db, true)
	})
}

// pgBackendCPU returns a function that reads the CPU time of the backend
// process of db's one pooled session (false: it cannot be read, as when
// PostgreSQL runs on another machine).
func pgBackendCPU(b *testing.B, db *DB) func() (time.Duration, bool) {
	pid, err := pgStore(db).BackendPID()
	if err != nil {
		b.Fatal(err)
	}
	return func() (time.Duration, bool) {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid))
		if err != nil {
			return 0, false
		}
		f := strings.Fields(string(raw))
		if len(f) == 0 {
			return 0, false
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		return time.Duration(ns), err == nil
	}
}

// processCPU is the CPU time (user and system) this process used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
