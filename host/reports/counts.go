package reports

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sync"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// Kept counts of open reports (storage.CountKeyspace), so that filing a
// report reads a few counts instead of every report against the player:
//
//	reports.open       <reportee:4><reporter created ns:8><reporter:4>
//	                   the reporter's open reports against the reportee
//	reports.reporters  <reportee:4>
//	                   how many reporters have an open report against the
//	                   reportee (reports.open above zero)
//	reports.by_hour    <reportee:4><hour:8>
//	                   how many of those were created in that hour (UTC
//	                   hours since 1970; reporters of unknown creation are
//	                   in none)
//
// Filing adds one to the reporter's reports.open (in the reporter's
// actor, in the commit that files); a resolution takes one away, never
// below zero (in the reportee's actor, in the commit that resolves; see
// closeOpen; for a reportee deleted since, in the reporter's actor, in
// the commit that dismisses); deleting the reporter
// sets it to zero (in its actor, in the commit that deletes it). The two
// other counts follow reports.open's crossings of zero (storage.AddMember),
// so they count distinct reporters, whoever changes which. Every change
// commits with the records it follows, through the actor that writes
// them, and is serialized by the storage engine: no scan of the reports
// against a player, whatever their number.
//
// "New" reporters (younger than Limits.NewAccountAge) change with time
// without any write: the hours after the one where the age limit falls are
// summed (at most age/1h counts: 168 for a week), and when that one hour's
// count is not zero, its reporters' own reports.open counts are read,
// ordered by creation, so that the boundary is exact to the nanosecond, as
// the scan it replaces was. (That read is as long as the reporters of the
// player created in one hour: bounded by the registration limits, and
// needed for one hour a week after they were created.) Counts about a deleted reportee stay (unread: it cannot be
// reported any more), like the reports against it; a dismissal of one of
// those reports still takes its count away, so that they stay what the
// reports give.
var (
	openCounts     = storage.NewCountKeyspace("reports.open")
	reporterCounts = storage.NewCountKeyspace("reports.reporters")
	hourCounts     = storage.NewCountKeyspace("reports.by_hour")
	// countsKept marks a database whose counts were built from its
	// reports (keepCounts): key "" holds countsVersion.
	countsKept = storage.NewCountKeyspace("reports.counts_kept")
)

// countsVersion is the version of the counts' layout that countsKept
// records.
const countsVersion = 1

func openKey(reportee storage.AccountID, created time.Time, reporter storage.AccountID) string {
	return storage.KeyUint32(uint32(reportee)) + storage.KeyUint64(uint64(nanos(created))) + storage.KeyUint32(uint32(reporter))
}

func hourKey(reportee storage.AccountID, hour int64) string {
	return storage.KeyUint32(uint32(reportee)) + storage.KeyUint64(uint64(hour))
}

func hourOf(ns int64) int64 { return ns / int64(time.Hour) }

// countSets are the counts a reporter's open count of reportee feeds.
func countSets(reportee storage.AccountID, created time.Time) []storage.Counter {
	sets := []storage.Counter{reporterCounts.At(storage.KeyUint32(uint32(reportee)))}
	if ns := nanos(created); ns > 0 {
		sets = append(sets, hourCounts.At(hourKey(reportee, hourOf(ns))))
	}
	return sets
}

// countOpen adds delta to the reporter's open reports against reportee
// (created: the reporter's account creation, the same at every change).
func countOpen(w storage.AccountWriter, reportee, reporter storage.AccountID, created time.Time, delta int64) {
	storage.AddMember(w, openCounts.At(openKey(reportee, created, reporter)), delta, countSets(reportee, created)...)
}

// closeOpen takes one report away from the reporter's open reports
// against reportee (a resolution), stopping at zero: the reporter's
// deletion may have zeroed the count (its commit can fall between the
// resolution's read of the reporter and its own commit), and a -1 would
// stay on a key nothing reads.
func closeOpen(w storage.AccountWriter, reportee, reporter storage.AccountID, created time.Time) {
	storage.TakeMember(w, openCounts.At(openKey(reportee, created, reporter)), 1, countSets(reportee, created)...)
}

// openReporters reads the facts about reportee's other reporters: how many
// accounts other than self (created selfCreated) have an open report
// against it, and how many of those were created less than age before now
// (none when age is 0). Two counts, at most age/1h+1 hour counts, and,
// when some exist, the open counts of reporters created in the hour where
// the age limit falls: none of it grows with the reports.
func openReporters(db *storage.DB, reportee, self storage.AccountID, selfCreated, now time.Time, age time.Duration) (all, young int, err error) {
	total, err := reporterCounts.Get(db, storage.KeyUint32(uint32(reportee)))
	if err != nil {
		return 0, 0, err
	}
	mine, err := openCounts.Get(db, openKey(reportee, selfCreated, self))
	if err != nil {
		return 0, 0, err
	}
	selfOpen := mine > 0
	if selfOpen {
		total--
	}
	if age <= 0 {
		return int(max(total, 0)), 0, nil
	}
	// Young: created after cutoff (now - created < age).
	cutoff := now.Add(-age).UnixNano()
	var n int64
	if cutoff < 0 {
		err = hourCounts.Each(db, hourKey(reportee, 0), hourKey(reportee, math.MaxInt64), func(_ string, c int64) error { n += c; return nil })
	} else {
		h0 := hourOf(cutoff)
		boundary := false // someone of the hour where the limit falls has an open report
		first := hourKey(reportee, h0)
		err = hourCounts.Each(db, first, hourKey(reportee, math.MaxInt64), func(k string, c int64) error {
			if k == first {
				boundary = c > 0
			} else {
				n += c
			}
			return nil
		})
		if err == nil && boundary {
			lo := storage.KeyUint32(uint32(reportee)) + storage.KeyUint64(uint64(cutoff+1))
			hi := storage.KeyUint32(uint32(reportee)) + storage.KeyUint64(uint64((h0+1)*int64(time.Hour)))
			err = openCounts.Each(db, lo, hi, func(_ string, c int64) error {
				if c > 0 {
					n++
				}
				return nil
			})
		}
	}
	if err != nil {
		return 0, 0, err
	}
	if selfOpen && !selfCreated.IsZero() && now.Sub(selfCreated) < age {
		n--
	}
	all = int(max(total, 0))
	return all, min(int(max(n, 0)), all), nil
}

// reporterCreated is the account creation a reporter's counts are kept
// under: the one its reportee index entry keeps, else its profile's
// (entries of earlier versions). found is false when the reporter's
// account is gone (its deletion zeroed its counts).
func reporterCreated(db *storage.DB, reportee storage.AccountID, id ReportID) (created time.Time, found bool, err error) {
	var entry *indexValue
	err = reporteeIndex.Each(db, reporteeKey(reportee, id.Seq), func(_ string, writer storage.AccountID, v *indexValue) error {
		if writer == id.Reporter {
			entry = v
		}
		return nil
	})
	if err != nil {
		return time.Time{}, false, err
	}
	if entry != nil && !entry.ReporterCreated.IsZero() {
		return entry.ReporterCreated, true, nil
	}
	a, err := db.AccountProfile(id.Reporter)
	if errors.Is(err, storage.ErrNotFound) {
		return time.Time{}, false, nil
	} else if err != nil {
		return time.Time{}, false, err
	}
	return a.Created, true, nil
}

// DeleteHook is the area's actors.DeleteHook (the server and the offline
// commands register it): a deleted reporter's open reports leave the
// counts (its reports and index entries go with it). It reads the
// account's reports: one scan of its own records.
func DeleteHook(tx *actors.Tx) (func(), error) {
	reportees := map[storage.AccountID]bool{}
	err := reportRecords.Each(tx.DB(), tx.ID(), "", func(_ string, r *Report) error {
		reportees[r.Reportee.ID] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(reportees) > 0 {
		if err := checkCountsKept(tx.DB()); err != nil {
			return nil, err
		}
	}
	created := tx.View().Created
	for e := range reportees {
		storage.ResetMember(tx, openCounts.At(openKey(e, created, tx.ID())), countSets(e, created)...)
	}
	return nil, nil
}

// ErrCountsNotKept refuses a change of the kept counts while the database
// has none built (keepCounts): the build replaces every count with what it
// read before its commit, so a change committed in between would be lost.
var ErrCountsNotKept = errors.New("reports: the open reports are not counted yet (the server counts them when it starts); try again once it has started")

// countsBuilt holds the databases whose counts this process has seen
// built: a build is never undone, so a writer reads countsKept once.
var countsBuilt sync.Map // *storage.DB -> struct{}

// checkCountsKept returns ErrCountsNotKept unless the counts of db are
// built. A change that changes counts calls it in its actor, before it
// commits: a build commits either before that read (the change's counts
// then apply after it) or after the change's commit, which it then
// includes, since the change was refused and wrote nothing.
func checkCountsKept(db *storage.DB) error {
	if _, ok := countsBuilt.Load(db); ok {
		return nil
	}
	v, err := countsKept.Get(db, "")
	if err != nil {
		return err
	}
	if v != countsVersion {
		return ErrCountsNotKept
	}
	countsBuilt.Store(db, struct{}{})
	return nil
}

// rebuildRead, set by tests only, runs after the build has read the
// reports and before it commits.
var rebuildRead func()

// keepCounts builds the counts from the stored reports when the database
// has none yet (written by an earlier version), in one global update:
// every open report against each player, from the reportee index and the
// resolutions. Until it has committed, every change of the counts is
// refused (checkCountsKept): filing, resolving (Resolve builds the counts
// first, offline too) and deleting an account that filed reports. It runs before the area
// serves; in a cluster, the first node of this version to start builds
// them (the global update's seal makes a second node find them built).
// Nodes of an earlier version filing reports at the same time would leave
// their reports out of the counts: upgrade a cluster by stopping them
// first.
func keepCounts(ctx context.Context, sys *actors.System, log *slog.Logger) error {
	kept, err := countsKept.Get(sys.DB(), "")
	if err != nil || kept == countsVersion {
		return err
	}
	start := time.Now()
	res, err := sys.UpdateGlobal(ctx, func(g *actors.GlobalTx) (any, error) {
		db := g.DB()
		if v, err := countsKept.Get(db, ""); err != nil || v == countsVersion {
			return 0, err
		}
		counts, err := countOpenReports(db)
		if err != nil {
			return nil, err
		}
		if rebuildRead != nil {
			rebuildRead()
		}
		for _, ks := range []*storage.CountKeyspace{openCounts, reporterCounts, hourCounts} {
			err := ks.Each(db, "", "", func(k string, _ int64) error {
				if _, ok := counts[ks][k]; !ok {
					ks.Set(g, k, 0)
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			for k, n := range counts[ks] {
				ks.Set(g, k, n)
			}
		}
		countsKept.Set(g, "", countsVersion)
		return len(counts[openCounts]), nil
	})
	if err != nil {
		return fmt.Errorf("count the open reports: %w", err)
	}
	log.Info("reports: counted the open reports against each player", "reporters", res, "took", time.Since(start))
	return nil
}

// countOpenReports computes every count from the reportee index and the
// resolutions, the reportees' and the reporters' dismissals of reports
// against deleted accounts (keepCounts; the tests compare the kept counts
// with it).
func countOpenReports(db *storage.DB) (map[*storage.CountKeyspace]map[string]int64, error) {
	resolved := map[ReportID]bool{}
	for _, ks := range []*storage.AccountKeyspace[*Resolution]{resolutionRecords, orphanResolutions} {
		err := ks.EachAll(db, func(_ storage.AccountID, _ string, r *Resolution) error {
			resolved[r.Report] = true
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	out := map[*storage.CountKeyspace]map[string]int64{openCounts: {}, reporterCounts: {}, hourCounts: {}}
	profiles := map[storage.AccountID]time.Time{}
	err := reporteeIndex.Each(db, "", func(key string, writer storage.AccountID, v *indexValue) error {
		seq, err := seqOfReporteeKey(key)
		if err != nil {
			return err
		}
		if resolved[ReportID{Reporter: writer, Seq: seq}] {
			return nil
		}
		reportee := storage.AccountID(uint32(key[0])<<24 | uint32(key[1])<<16 | uint32(key[2])<<8 | uint32(key[3]))
		created := v.ReporterCreated
		if created.IsZero() {
			c, ok := profiles[writer]
			if !ok {
				a, err := db.AccountProfile(writer)
				if errors.Is(err, storage.ErrNotFound) {
					return nil // deleted since: its entries go with it
				} else if err != nil {
					return err
				}
				c = a.Created
				profiles[writer] = c
			}
			created = c
		}
		k := openKey(reportee, created, writer)
		if out[openCounts][k]++; out[openCounts][k] == 1 {
			out[reporterCounts][storage.KeyUint32(uint32(reportee))]++
			if ns := nanos(created); ns > 0 {
				out[hourCounts][hourKey(reportee, hourOf(ns))]++
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
