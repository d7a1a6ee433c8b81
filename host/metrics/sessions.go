package metrics

import "github.com/prometheus/client_golang/prometheus"

// WatchSessions registers honmaster_sessions_live: the sessions that have
// not expired (logged-in players, one per client, sub-account switches
// included), read from live at scrape time. It falls at a logout, when a
// login past the per-account limit ends the oldest session, when an
// account is deleted, and as sessions expire.
func (m *Metrics) WatchSessions(live func() int) {
	m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace, Name: "sessions_live",
		Help: "Sessions that have not expired."}, func() float64 { return float64(live()) }))
}
