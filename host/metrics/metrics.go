// Package metrics defines the server's Prometheus metrics and the small
// hooks that feed them: the HTTP server's request observer, the actor
// system's mailbox observer, storage's commit observer, a wrapper around
// plugin deciders, and collectors that read the engine's, the actors' and
// the supervisors' own counters at scrape time. Every metric is listed in
// docs/metrics.md.
package metrics

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
)

// Namespace prefixes every metric of the server.
const Namespace = "honmaster"

// Buckets for latencies (seconds): 100 µs to 10 s.
var latencyBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// Metrics holds the server's metrics and their registry.
type Metrics struct {
	Registry *prometheus.Registry

	requests       *prometheus.CounterVec
	requestLatency *prometheus.HistogramVec
	logins         *prometheus.CounterVec
	sessions       *prometheus.CounterVec
	mailboxWait    prometheus.Histogram
	commitLatency  prometheus.Histogram
	commitOps      prometheus.Histogram
	commitBytes    prometheus.Histogram
	commitErrors   prometheus.Counter
	pluginCalls    *prometheus.CounterVec
	pluginLatency  *prometheus.HistogramVec
	node           string   // see SetNode
	act            activity // counts.go
}

// New returns the metrics registered on a fresh registry, with the Go
// runtime and process collectors.
func New() *Metrics {
	r := prometheus.NewRegistry()
	m := &Metrics{Registry: r}
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "http_requests_total",
		Help: "Game-port requests answered, by route and outcome."}, []string{"route", "outcome"})
	m.requestLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "http_request_duration_seconds",
		Help: "Time from reading a request to its reply being ready, by route and outcome.", Buckets: latencyBuckets}, []string{"route", "outcome"})
	m.logins = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "logins_total",
		Help: "Completed login proofs (srpAuth), by outcome."}, []string{"outcome"})
	m.sessions = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "sessions_created_total",
		Help: "Sessions created, by how (login or switch)."}, []string{"via"})
	m.mailboxWait = prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: Namespace, Name: "actor_mailbox_wait_seconds",
		Help: "Time a request to an account waited between being sent and its account actor starting on it.", Buckets: latencyBuckets})
	m.commitLatency = prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: Namespace, Name: "storage_commit_duration_seconds",
		Help: "Duration of one synced commit.", Buckets: latencyBuckets})
	m.commitOps = prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: Namespace, Name: "storage_commit_records",
		Help: "Records written or deleted by one commit.", Buckets: []float64{1, 2, 3, 4, 6, 8, 16, 32, 64, 128}})
	m.commitBytes = prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: Namespace, Name: "storage_commit_bytes",
		Help: "Encoded size of one commit's batch.", Buckets: prometheus.ExponentialBuckets(64, 4, 10)})
	m.commitErrors = prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "storage_commit_errors_total",
		Help: "Commits that failed."})
	m.pluginCalls = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "plugin_calls_total",
		Help: "Plugin decisions, by area, method (the decision) and outcome (ok, unavailable, invalid, timeout, failed)."}, []string{"area", "method", "outcome"})
	m.pluginLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "plugin_call_duration_seconds",
		Help: "Duration of calls into plugins as the host sees them (batching included), by area and method.", Buckets: latencyBuckets}, []string{"area", "method"})
	r.MustRegister(m.requests, m.requestLatency, m.logins, m.sessions, m.mailboxWait, m.commitLatency, m.commitOps,
		m.commitBytes, m.commitErrors, m.pluginCalls, m.pluginLatency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.registerActivity()
	return m
}

// Handler serves the metrics in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.gatherer(), promhttp.HandlerOpts{Registry: m.Registry})
}

// ObserveRequest is the HTTP server's observer (server.SetObserver); it
// returns the request's outcome (for the access log).
func (m *Metrics) ObserveRequest(r *server.RequestInfo) (outcome string) {
	outcome = Outcome(r)
	m.requests.WithLabelValues(r.Route, outcome).Inc()
	m.requestLatency.WithLabelValues(r.Route, outcome).Observe(r.Duration.Seconds())
	m.observeActivity(r, outcome)
	if r.Counted != nil {
		r.Counted(outcome)
	}
	switch r.Route {
	case "client_requester.php?f=" + server.FuncSRPAuth:
		m.logins.WithLabelValues(outcome).Inc()
		if outcome == OutcomeOK {
			m.sessions.WithLabelValues("login").Inc()
		}
	case "client_requester.php?f=" + server.FuncSwitchAuth:
		if outcome == OutcomeOK {
			m.sessions.WithLabelValues("switch").Inc()
		}
	}
	return outcome
}

// ObserveMailboxWait is the actor system's mailbox observer.
func (m *Metrics) ObserveMailboxWait(d time.Duration) { m.mailboxWait.Observe(d.Seconds()) }

// ObserveCommit is storage's commit observer.
func (m *Metrics) ObserveCommit(c storage.CommitInfo) {
	if c.Err != nil {
		m.commitErrors.Inc()
		return
	}
	m.commitLatency.Observe(c.Duration.Seconds())
	m.commitOps.Observe(float64(c.Ops))
	m.commitBytes.Observe(float64(c.Bytes))
}

// pluginOutcome names the outcome of a plugin call.
func pluginOutcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, sdk.ErrUnavailable):
		return "unavailable"
	case errors.Is(err, sdk.ErrInvalidDecision), errors.Is(err, sdk.ErrInvalidFacts):
		return "invalid"
	case errors.Is(err, sdk.ErrPluginFailed):
		return "failed"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	}
	return "failed"
}

// observePlugin records one plugin call.
func (m *Metrics) observePlugin(area sdk.Area, method string, start time.Time, err error) {
	m.pluginCalls.WithLabelValues(string(area), method, pluginOutcome(err)).Inc()
	m.pluginLatency.WithLabelValues(string(area), method).Observe(time.Since(start).Seconds())
}

// Caller wraps an area's plugin caller so that every decision it asks for
// is counted and timed, whatever the area (method = the decision's name).
func (m *Metrics) Caller(area sdk.Area, c sdk.Caller) sdk.Caller {
	if c == nil {
		return nil
	}
	return caller{m: m, area: area, c: c}
}

type caller struct {
	m    *Metrics
	area sdk.Area
	c    sdk.Caller
}

func (c caller) Decide(ctx context.Context, decision string, facts, state []byte) (sdk.RawResult, error) {
	start := time.Now()
	r, err := c.c.Decide(ctx, decision, facts, state)
	c.m.observePlugin(c.area, strings.TrimPrefix(decision, string(c.area)+"."), start, err)
	return r, err
}

// Sources are the counters other parts keep themselves, read at scrape
// time. Nil fields are left out.
type Sources struct {
	LiveActors func() int64
	// CachedSessions is the number of sessions held in memory.
	CachedSessions func() int
	// LiveSessions is the number of sessions stored (logged-in players,
	// one per client, sub-account switches included), as the login
	// service keeps it (login.Service.LiveSessions): it falls at a logout,
	// when a login past the per-account limit ends the oldest session,
	// when an account is deleted, and at the sweep of expired sessions.
	LiveSessions func() int
	Passivations func() int64
	Engine       func() storage.EngineStats
	Plugins      func() []PluginStatus
	// Connections are the game listener's open and shed connections.
	Connections func() server.ConnStats
}

// PluginStatus is what the collector reads from one plugin supervisor.
type PluginStatus struct {
	Area     string
	Running  bool
	Restarts int
}

// Watch registers collectors reading src.
func (m *Metrics) Watch(src Sources) {
	m.Registry.MustRegister(&sourceCollector{src: src})
}

var (
	descLive         = prometheus.NewDesc(Namespace+"_actors_live", "Account actors alive now.", nil, nil)
	descSessions     = prometheus.NewDesc(Namespace+"_sessions_cached", "Sessions held in memory (the session cache in front of storage).", nil, nil)
	descSessionsLive = prometheus.NewDesc(Namespace+"_sessions_live", "Sessions stored: counted at the hourly sweep of expired ones, plus those issued and less those ended since.", nil, nil)
	descPassivations = prometheus.NewDesc(Namespace+"_actors_passivated_total", "Account actors stopped for being idle.", nil, nil)
	descPluginUp     = prometheus.NewDesc(Namespace+"_plugin_up", "1 when the area's plugin is running and passed its health check.", []string{"area"}, nil)
	descRestarts     = prometheus.NewDesc(Namespace+"_plugin_restarts_total", "Restarts of the area's plugin after it died.", []string{"area"}, nil)
	descConnsOpen    = prometheus.NewDesc(Namespace+"_http_connections_open", "Open connections of the game listener.", nil, nil)
	descConnsShed    = prometheus.NewDesc(Namespace+"_http_connections_shed_total",
		"Game-listener connections refused or closed by a limit, by reason: address_limit (refused: the client address or IPv6 /64 holds limits.max_connections_per_address), "+
			"total_limit (refused: limits.max_connections open and all handling a request), evicted_idle (an idle or silent connection closed to make room for a new one), "+
			"evicted_slow (the slowest connection still receiving its request closed to make room for a new one).", []string{"reason"}, nil)
)

// engineMetric is one figure of the storage engine.
type engineMetric struct {
	desc  *prometheus.Desc
	kind  prometheus.ValueType
	value func(*storage.EngineStats) float64
}

func gauge(name, help string, f func(*storage.EngineStats) float64) engineMetric {
	return engineMetric{prometheus.NewDesc(Namespace+"_pebble_"+name, help, nil, nil), prometheus.GaugeValue, f}
}

func counter(name, help string, f func(*storage.EngineStats) float64) engineMetric {
	return engineMetric{prometheus.NewDesc(Namespace+"_pebble_"+name, help, nil, nil), prometheus.CounterValue, f}
}

// engineMetrics are Pebble's own figures (storage.EngineStats).
var engineMetrics = []engineMetric{
	gauge("disk_space_bytes", "Bytes the database keeps on disk.", func(s *storage.EngineStats) float64 { return float64(s.DiskSpaceBytes) }),
	gauge("live_table_bytes", "Bytes of live sstables.", func(s *storage.EngineStats) float64 { return float64(s.LiveTableBytes) }),
	gauge("live_tables", "Live sstables.", func(s *storage.EngineStats) float64 { return float64(s.LiveTables) }),
	gauge("read_amplification", "Sublevels of L0 plus non-empty lower levels.", func(s *storage.EngineStats) float64 { return float64(s.ReadAmplification) }),
	gauge("l0_sublevels", "Sublevels of L0.", func(s *storage.EngineStats) float64 { return float64(s.L0Sublevels) }),
	gauge("l0_tables", "Sstables in L0.", func(s *storage.EngineStats) float64 { return float64(s.L0Tables) }),
	gauge("memtable_bytes", "Bytes in memtables.", func(s *storage.EngineStats) float64 { return float64(s.MemtableBytes) }),
	gauge("memtables", "Memtables.", func(s *storage.EngineStats) float64 { return float64(s.Memtables) }),
	gauge("wal_bytes", "Live WAL bytes.", func(s *storage.EngineStats) float64 { return float64(s.WALBytes) }),
	counter("wal_written_bytes_total", "Physical bytes written to the WAL.", func(s *storage.EngineStats) float64 { return float64(s.WALBytesWritten) }),
	counter("wal_in_bytes_total", "Logical bytes written to the WAL.", func(s *storage.EngineStats) float64 { return float64(s.WALBytesIn) }),
	counter("flushes_total", "Memtable flushes.", func(s *storage.EngineStats) float64 { return float64(s.Flushes) }),
	counter("compactions_total", "Compactions.", func(s *storage.EngineStats) float64 { return float64(s.Compactions) }),
	gauge("compaction_debt_bytes", "Estimated bytes compactions still owe.", func(s *storage.EngineStats) float64 { return float64(s.CompactionDebtBytes) }),
	gauge("compactions_running", "Compactions in progress.", func(s *storage.EngineStats) float64 { return float64(s.CompactionsRunning) }),
	gauge("block_cache_bytes", "Bytes in the block cache.", func(s *storage.EngineStats) float64 { return float64(s.BlockCacheBytes) }),
	counter("block_cache_hits_total", "Block cache hits.", func(s *storage.EngineStats) float64 { return float64(s.BlockCacheHits) }),
	counter("block_cache_misses_total", "Block cache misses.", func(s *storage.EngineStats) float64 { return float64(s.BlockCacheMisses) }),
	counter("table_cache_hits_total", "Table (file) cache hits.", func(s *storage.EngineStats) float64 { return float64(s.TableCacheHits) }),
	counter("table_cache_misses_total", "Table (file) cache misses.", func(s *storage.EngineStats) float64 { return float64(s.TableCacheMisses) }),
	gauge("table_iterators", "Open sstable iterators.", func(s *storage.EngineStats) float64 { return float64(s.TableIterators) }),
	gauge("snapshots", "Open snapshots.", func(s *storage.EngineStats) float64 { return float64(s.Snapshots) }),
}

// sourceCollector reads Sources at scrape time.
type sourceCollector struct{ src Sources }

func (c *sourceCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- descLive
	ch <- descPassivations
	ch <- descSessions
	ch <- descSessionsLive
	ch <- descPluginUp
	ch <- descRestarts
	ch <- descConnsOpen
	ch <- descConnsShed
	for _, e := range engineMetrics {
		ch <- e.desc
	}
}

func (c *sourceCollector) Collect(ch chan<- prometheus.Metric) {
	if c.src.LiveActors != nil {
		ch <- prometheus.MustNewConstMetric(descLive, prometheus.GaugeValue, float64(c.src.LiveActors()))
	}
	if c.src.CachedSessions != nil {
		ch <- prometheus.MustNewConstMetric(descSessions, prometheus.GaugeValue, float64(c.src.CachedSessions()))
	}
	if c.src.LiveSessions != nil {
		ch <- prometheus.MustNewConstMetric(descSessionsLive, prometheus.GaugeValue, float64(c.src.LiveSessions()))
	}
	if c.src.Passivations != nil {
		ch <- prometheus.MustNewConstMetric(descPassivations, prometheus.CounterValue, float64(c.src.Passivations()))
	}
	if c.src.Plugins != nil {
		for _, p := range c.src.Plugins() {
			up := 0.0
			if p.Running {
				up = 1
			}
			ch <- prometheus.MustNewConstMetric(descPluginUp, prometheus.GaugeValue, up, p.Area)
			ch <- prometheus.MustNewConstMetric(descRestarts, prometheus.CounterValue, float64(p.Restarts), p.Area)
		}
	}
	if c.src.Connections != nil {
		st := c.src.Connections()
		ch <- prometheus.MustNewConstMetric(descConnsOpen, prometheus.GaugeValue, float64(st.Open))
		for _, r := range []string{server.ShedAddressLimit, server.ShedTotalLimit, server.ShedEvictedIdle, server.ShedEvictedSlow} {
			ch <- prometheus.MustNewConstMetric(descConnsShed, prometheus.CounterValue, float64(st.Shed[r]), r)
		}
	}
	if c.src.Engine != nil {
		s := c.src.Engine()
		for _, e := range engineMetrics {
			ch <- prometheus.MustNewConstMetric(e.desc, e.kind, e.value(&s))
		}
	}
}
