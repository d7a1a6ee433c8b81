package matches

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/honmaster/masterserver/host/area"
	hostmetrics "github.com/honmaster/masterserver/host/metrics"
)

// metrics are the area's own metrics.
type metrics struct {
	started, recorded, duplicates, statsBytes prometheus.Counter
	refusedBy                                 *prometheus.CounterVec
}

// current is the serving area, read by the servers-online gauge (a
// collector registered once per registry outlives a restart's Area).
var current atomic.Pointer[Area]

// refusalReasons are the reasons of refused requests, each a series from
// the start.
var refusalReasons = []string{"session", "not_game_host", "credentials", "foreign_server", "unknown_match",
	"unknown_player", "ambiguous_player", "resubmission_key", "no_players", "player_cookie", "match_full", "bad_request", "too_many_failures", "too_many_servers", "too_many_starts", "too_many_writes", "bad_counter", "bad_rating", "inconsistent_result", "form_too_large", "form_too_many_values", "form_name_too_long",
	"form_too_deep", "form_bad_name", "form_bad_encoding", "form_bad_shape", "other"}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	c := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Namespace: hostmetrics.Namespace, Name: name, Help: help})
	}
	m := &metrics{
		started:    c("matches_started_total", "Matches started by game servers (start_game)."),
		recorded:   c("matches_recorded_total", "Matches whose statistics were recorded (submit_stats or resubmit_stats)."),
		duplicates: c("matches_duplicate_submissions_total", "Submissions of a match recorded already (answered OK, nothing changed)."),
		statsBytes: c("matches_stats_bytes_total", "Bytes of the recorded statistics submissions' fields."),
		refusedBy: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: hostmetrics.Namespace, Name: "matches_refused_total",
			Help: "Refused game-server and statistics requests, by function and reason."}, []string{"function", "reason"}),
	}
	var err error
	for _, p := range []*prometheus.Counter{&m.started, &m.recorded, &m.duplicates, &m.statsBytes} {
		if *p, err = hostmetrics.Register(reg, *p); err != nil {
			return nil, err
		}
	}
	if m.refusedBy, err = hostmetrics.Register(reg, m.refusedBy); err != nil {
		return nil, err
	}
	for _, r := range refusalReasons {
		m.refusedBy.WithLabelValues(FuncSubmitStats, r)
	}
	online := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: hostmetrics.Namespace, Name: "matches_servers_online",
		Help: "Game servers heard from within heartbeat_timeout by this node."}, func() float64 {
		if a := current.Load(); a != nil {
			return float64(a.onlineHere(time.Now()))
		}
		return 0
	})
	if _, err := hostmetrics.Register(reg, prometheus.Collector(online)); err != nil {
		return nil, err
	}
	return m, nil
}

// refused counts a refused request of function fn.
func (m *metrics) refused(fn string, err error) {
	reason := "other"
	var rf *refusal
	if errors.As(err, &rf) {
		reason = rf.reason
	} else if errors.Is(err, area.ErrBadRequest) {
		reason = "bad_request"
	}
	m.refusedBy.WithLabelValues(fn, reason).Inc()
}

// onlineHere counts the servers this node heard from within the timeout.
func (a *Area) onlineHere(now time.Time) int {
	n := 0
	a.heard.Range(func(_, v any) bool {
		if now.Sub(time.Unix(0, v.(*atomic.Int64).Load())) <= a.set.HeartbeatTimeout.Duration {
			n++
		}
		return true
	})
	return n
}
