// Package cli provides the host binary's commands: serve, the operator
// commands (account, backup ...) and plugin mode. Operator commands run the
// same code whether the server is stopped (they open the data directory) or
// running (they send their arguments over the admin socket in the data
// directory, so the running server's actors stay the single writers).
package cli

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/accounts"
	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/cluster"
	"github.com/honmaster/masterserver/host/console"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/metrics"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/plugins/supervisor"
	"github.com/honmaster/masterserver/storage"
)

// App is the assembled runtime over one data directory: storage, actors and
// the services built on them. serve adds the HTTP host and plugins on top.
type App struct {
	Cfg      *config.Config
	Log      *slog.Logger
	DB       *storage.DB
	Sys      *actors.System
	Group    *srp.Group
	Login    *login.Service
	Accounts *accounts.Service
	Plugins  Plugins // none unless serving
	// Cluster is this node's membership in cluster mode (nil: one node).
	Cluster *cluster.Node

	// Metrics are the server's metrics (fed only while serving).
	Metrics *metrics.Metrics

	// console is the web console while it serves (nil: none), runtime
	// the started server (a configuration reload reaches both).
	console *console.Console
	runtime atomic.Pointer[Runtime]
	// lives are the areas being served (set when their routes are built,
	// before serving; nil until, and in a command on a stopped server).
	lives map[sdk.Area]*hostarea.Live
	// accessLog writes the access lines as server.access_log says.
	accessLog accessLog

	// configSource reads the configuration again for a reload (nil: no
	// reloads; WithConfigSource).
	configSource func() (*config.Config, error)

	// pluginClock times each area's plugin supervisor (WithPluginClock);
	// nil: the real clock.
	pluginClock func(sdk.Area) supervisor.Clock
}

// dbDirName is the database directory inside the data directory.
const dbDirName = "db"

// metaAuthSecret names the generated auth_hash secret in storage.
const metaAuthSecret = "auth_hash_secret"

// OpenApp opens the data directory and starts the actors, for a command
// (never a cluster member: see Start).
func OpenApp(cfg *config.Config, log *slog.Logger) (*App, error) { return openApp(cfg, log, false) }

// openApp opens the data directory and starts the actors; a server (serve)
// joins the cluster first when cluster mode is on.
func openApp(cfg *config.Config, log *slog.Logger, serve bool) (*App, error) {
	// Commands read client addresses too (account by-address groups an
	// IPv6 address by the configured prefix, as the server does).
	limit.SetIPv6Prefix(cfg.Limits.IPv6Prefix)
	limit.SetDefaultMaxKeys(cfg.Limits.TrackedKeys) // the limiters made without a bound of their own
	group, err := srp.NewGroup(cfg.SRP.N, int64(cfg.SRP.G), cfg.SRP.Magic1, cfg.SRP.Magic2, srp.HashForm(cfg.Login.PasswordHash))
	if err != nil {
		return nil, fmt.Errorf("srp settings: %w", err)
	}
	if err := os.MkdirAll(cfg.Storage.DataDir, 0o700); err != nil {
		return nil, err
	}
	// Private whatever it was created with: it holds the database (on
	// Pebble) and the admin socket.
	if err := os.Chmod(cfg.Storage.DataDir, 0o700); err != nil {
		return nil, err
	}
	db, err := openStorage(cfg, log, serve && cfg.Cluster.Enabled)
	if err != nil {
		return nil, err
	}
	sessions := cfg.Actors.SessionCacheSize
	if sessions == 0 {
		sessions = -1 // the setting's 0 means no cache
	}
	app := &App{Cfg: cfg, Log: log, DB: db, Group: group, Metrics: metrics.New()}
	var node *cluster.Node
	if serve {
		if node, err = startCluster(cfg, app); err != nil {
			db.Close()
			return nil, err
		}
	}
	app.Cluster = node
	release := cfg.Actors.ReleaseMemoryAfter
	if release == 0 || !serve {
		release = -1 // the setting's 0 means never; a command's process is short-lived
	}
	var effectRetry time.Duration // a command leaves unfinished effects to the server
	if serve {
		effectRetry = actors.DefaultEffectRetry
	}
	sys := actors.New(db, actors.Options{IdleTimeout: cfg.Actors.IdleTimeout.Duration, AskTimeout: cfg.Actors.AskTimeout.Duration,
		SessionCacheSize: sessions, ReleaseMemoryAfter: release, Logger: log, Placement: placement(node), EffectRetry: effectRetry})
	app.Sys = sys
	for _, m := range hostarea.Modules() { // the areas' work on a deleted account, offline too
		if m.OnDelete != nil {
			sys.OnDelete(m.OnDelete)
		}
	}
	verifiers := cfg.Actors.VerifierCacheSize
	if verifiers == 0 || node != nil {
		// The setting's 0 means no cache. A cluster node keeps none either:
		// a login deleted and registered again on another node would keep
		// its old id here.
		verifiers = -1
	}
	secret, err := app.secret()
	if err != nil {
		app.Close()
		return nil, err
	}
	app.Accounts = &accounts.Service{Group: group, Sys: sys, MaxEmail: cfg.Limits.MaxEmailLength}
	app.Login = login.New(group, sys, login.Settings{
		CookieLifetime: cfg.Login.CookieLifetime.Duration, PreAuthLifetime: cfg.Login.PreAuthLifetime.Duration,
		PreAuthMaxPending: cfg.Login.PreAuthMaxPending, Secret: secret,
		PreAuthPerAddress: cfg.Limits.PreAuthPerAddress, LoginsAddress: limitRate(cfg.Limits.LoginsAddress),
		FailedProofsAddress: limitRate(cfg.Limits.FailedProofsAddress), FailedProofsLogin: limitRate(cfg.Limits.FailedProofsLogin),
		SessionsPerAccount: cfg.Limits.SessionsPerAccount, TrackedKeys: cfg.Limits.TrackedKeys,
		Switches: hostarea.Toggles(cfg.Limits),
		ChatHost: cfg.Chat.Host, ChatPort: cfg.Chat.Port, CommentingHost: cfg.Commenting.Host, CommentingPort: cfg.Commenting.Port,
		ICBURL: cfg.ICBURL(), LeaverThreshold: cfg.Client.LeaverThreshold, MMRRank: cfg.Client.MMRRank,
		FreeHeroes: cfg.Client.FreeHeroes, KeyVersion: cfg.Client.KeyVersion, MinRankedLevel: cfg.Client.MinRankedLevel,
		CampaignSeason: cfg.Client.CampaignCurrentSeason, Chatrooms: cfg.Client.Chatrooms,
		VerifierCacheSize: verifiers,
	}, nil, nil)
	return app, nil
}

// openStorage opens the database of the configured backend: Pebble in the
// data directory (guarded by limits.disk_free_margin), or PostgreSQL
// (whose disk is the database server's: the guard only tracks failures).
//
// A cluster node (clustered) shares the PostgreSQL database with the other
// nodes; a command takes it alone.
func openStorage(cfg *config.Config, log *slog.Logger, clustered bool) (*storage.DB, error) {
	if cfg.Storage.Backend == config.BackendPostgres {
		cluster := ""
		if clustered {
			cluster = cfg.Cluster.Name
		}
		db, err := openPostgres(cfg.Storage.Postgres, log, "", cluster)
		if err != nil {
			return nil, err
		}
		db.SetDiskGuard(storage.NewDiskGuard(cfg.Storage.DataDir, 0, nil, log))
		return db, nil
	}
	bloom := cfg.Storage.BloomBitsPerKey
	if bloom == 0 {
		bloom = -1 // the setting's 0 means no filters
	}
	db, err := storage.Open(filepath.Join(cfg.Storage.DataDir, dbDirName), &storage.Options{Logger: storage.RateLimitedLogger(log, 5*time.Second),
		CacheSize: int64(cfg.Storage.CacheSize), MemTableSize: int64(cfg.Storage.MemTableSize), BloomBitsPerKey: bloom,
		WALMinSyncInterval: cfg.Storage.WALMinSyncInterval.Duration})
	if err != nil {
		return nil, err
	}
	db.SetDiskGuard(storage.NewDiskGuard(cfg.Storage.DataDir, uint64(cfg.Limits.DiskFreeMargin), nil, log))
	return db, nil
}

// openPostgres opens the [storage.postgres] database (password, when
// given, wins over password_file), as a node of cluster when it is not ""
// (sharing the database with the other nodes of that name). Its failures
// are worded for the operator, without the password: a setting that
// cannot work (exit status 2) or a database that cannot be used now (1).
func openPostgres(pc config.StoragePostgres, log *slog.Logger, password, cluster string) (*storage.DB, error) {
	opts := storage.PostgresOptions{URL: pc.URL, Password: password, MaxConns: pc.MaxConns, StatementTimeout: pc.StatementTimeout.Duration,
		Logger: log, Cluster: cluster != "", ClusterName: cluster}
	if pc.PasswordFile != "" && password == "" {
		if err := privateFile("storage.postgres.password_file", pc.PasswordFile); err != nil {
			return nil, err
		}
		b, err := os.ReadFile(pc.PasswordFile)
		if err != nil {
			return nil, &opError{cause: errors.Join(errConfig, err),
				msg: fmt.Sprintf("storage.postgres.password_file: cannot read %s: %s", pc.PasswordFile, unwrapPath(err))}
		}
		opts.Password, _, _ = strings.Cut(string(b), "\n")
		opts.Password = strings.TrimRight(opts.Password, "\r")
	}
	db, err := storage.OpenPostgres(opts)
	var oc *storage.OtherClusterError
	switch {
	case errors.Is(err, storage.ErrPostgresURL):
		return nil, &opError{cause: errors.Join(errConfig, err),
			msg: "storage.postgres.url: " + stripInternal(specifics(err, storage.ErrPostgresURL))}
	case errors.Is(err, storage.ErrPostgresInUseByCluster):
		return nil, &opError{cause: err, msg: fmt.Sprintf("the PostgreSQL database at %s is in use by the nodes of a cluster: "+
			"a command runs on it only while no node does (operator commands reach a running node through its admin socket), "+
			"and a server joins them only with [cluster] enabled", storage.RedactURL(pc.URL))}
	case errors.As(err, &oc):
		return nil, &opError{cause: errors.Join(errConfig, err), msg: fmt.Sprintf("the PostgreSQL database at %s belongs to cluster %q, "+
			"whose first node recorded its name there, and this node's cluster.name is %q: give every node of one cluster the same name, "+
			"and each cluster a database of its own", storage.RedactURL(pc.URL), oc.Recorded, oc.Node)}
	case errors.Is(err, storage.ErrPostgresInUse):
		return nil, &opError{cause: err, msg: fmt.Sprintf("the PostgreSQL database at %s is in use by another process (a server running "+
			"on it, here or on another machine, or another command): stop it, or retry in a moment", storage.RedactURL(pc.URL))}
	case errors.Is(err, storage.ErrPostgresUnreachable):
		return nil, &opError{cause: err, msg: fmt.Sprintf("cannot use the PostgreSQL database at %s (storage.postgres.url): %s",
			storage.RedactURL(pc.URL), oneLine(stripInternal(specifics(err, storage.ErrPostgresUnreachable))))}
	case err != nil:
		return nil, err
	}
	log.Info("storage: PostgreSQL", "url", storage.RedactURL(pc.URL), "max_conns", pc.MaxConns)
	return db, nil
}

// privateFile refuses a password file that group or others may read or
// write, as ssh refuses such a private key: the password would be anyone's
// on the machine (or theirs to change). A file that cannot be examined is
// left to the read, which says why.
func privateFile(what, path string) error {
	fi, err := os.Stat(path)
	if err != nil || runtime.GOOS == "windows" {
		return nil
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return &opError{cause: errConfig, msg: fmt.Sprintf("%s: %s is open to group or others (mode %04o): "+
			"a password file must be readable by its owner only; run chmod 600 %s (a Docker or Kubernetes secret: mount it with mode 0400)",
			what, path, perm, path)}
	}
	return nil
}

// oneLine joins the lines of a multi-line error (the driver lists every
// address it tried, one per line) into one, dropping repeats.
func oneLine(s string) string {
	var parts []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(parts, l) {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}

func limitRate(r config.Rate) limit.Rate { return limit.Rate{Burst: r.Burst, Every: r.Every.Duration} }

// secret returns the configured auth_hash secret, or the one generated on
// the first start and kept in the database.
func (a *App) secret() ([]byte, error) {
	if s := a.Cfg.Login.AuthHashSecret; s != "" {
		return []byte(s), nil
	}
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return a.Sys.EnsureMeta(ctx, metaAuthSecret, fresh)
}

// Close stops the actors (after their queued work) and closes storage.
func (a *App) Close() {
	// The cluster first: it stops taking forwarded requests (the other
	// nodes serve them) and lets those it serves finish while the plugins
	// and the actors still run.
	if a.Cluster != nil {
		a.Cluster.Stop()
	}
	a.Plugins.Stop()
	a.Sys.Shutdown()
	if err := a.DB.Close(); err != nil {
		a.Log.Error("close storage", "err", err)
	}
}
