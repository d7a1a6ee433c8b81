package actors

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/honmaster/masterserver/storage"
)

// BenchmarkCreateAccountConcurrent: many callers creating accounts at once
// on an on-disk Pebble database (synced commits), as registrations under
// load do: each account committed alone (the registry's createAccount, as
// CreateAccount did before its group commit) against CreateAccount's group
// commit. Compare within one run: commits/account and ns/op.
func BenchmarkCreateAccountConcurrent(b *testing.B) {
	for _, mode := range []string{"alone", "grouped"} {
		b.Run(mode, func(b *testing.B) {
			db, err := storage.Open(b.TempDir(), &storage.Options{})
			if err != nil {
				b.Fatal(err)
			}
			sys := New(db, Options{})
			defer func() { sys.Shutdown(); db.Close() }()
			var commits, n atomic.Int64
			db.SetCommitObserver(func(storage.CommitInfo) { commits.Add(1) })
			ctx := context.Background()
			b.SetParallelism(16)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					l := fmt.Sprintf("b%d", n.Add(1))
					req := &NewAccount{Login: l, LoginSkeleton: "sk-" + l}
					var err error
					if mode == "alone" {
						_, err = mutate[*created](ctx, sys, sys.registry, func(dl time.Time) *envelope {
							return &envelope{Msg: &createAccount{Req: req, Deadline: dl}}
						})
					} else {
						_, err = sys.CreateAccount(ctx, req)
					}
					if err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(commits.Load())/float64(b.N), "commits/account")
		})
	}
}
