package storage

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/honmaster/masterserver/storage/storagetest"
)

// BenchmarkDurableCommit commits, one after another, the batch of a
// typical mutation (an account's profile record and one owned upgrade),
// synced, on each engine: Pebble on disk, PostgreSQL at
// HONMASTER_TEST_POSTGRES_URL. Besides the wall time it reports this
// process's CPU per commit (cpu-ns/op, from getrusage): the server's own
// cost, without the database server's on PostgreSQL.
//
//	go test ./storage/ -run '^$' -bench DurableCommit -benchtime 2000x
func BenchmarkDurableCommit(b *testing.B) {
	run := func(b *testing.B, db *DB) {
		a := sampleAccount(1, "bench")
		ups := a.Upgrades
		b.ReportAllocs()
		cpu0 := processCPU()
		b.ResetTimer()
		for i := range b.N {
			a.Gold = int64(i)
			bt := db.NewBatch()
			bt.PutAccount(a, nil)
			bt.PutUpgrades(1, 0, ups)
			if err := db.Commit(bt); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	}
	b.Run("pebble", func(b *testing.B) {
		db, err := Open(filepath.Join(b.TempDir(), "db"), nil)
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		run(b, db)
	})
	b.Run("postgres", func(b *testing.B) {
		db, err := OpenPostgres(PostgresOptions{URL: storagetest.PostgresURL(b)})
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		run(b, db)
	})
}

// processCPU is the CPU time (user and system) this process used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
