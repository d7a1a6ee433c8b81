package metrics

import (
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/honmaster/masterserver/host/plinko"
)

// plinkoMetrics count completed drops by tier and the tickets they moved.
type plinkoMetrics struct {
	once    sync.Once
	drops   *prometheus.CounterVec
	tickets *prometheus.CounterVec
}

func (m *Metrics) plinko() *plinkoMetrics {
	p := &m.plk
	p.once.Do(func() {
		p.drops = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "plinko_drops_total",
			Help: "Completed Plinko drops, by prize tier (1 Diamond .. 6 tickets) and currency."}, []string{"tier", "currency"})
		p.tickets = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "plinko_tickets_total",
			Help: "Tickets moved by Plinko drops: paid in (drops paid with tickets) and out (ticket prizes)."}, []string{"direction"})
		m.Registry.MustRegister(p.drops, p.tickets)
		for t := 1; t <= 6; t++ {
			for _, c := range []string{"tickets", "gold"} {
				p.drops.WithLabelValues(strconv.Itoa(t), c)
			}
		}
		p.tickets.WithLabelValues("in")
		p.tickets.WithLabelValues("out")
	})
	return p
}

// ObserveDrop is the Plinko area's drop observer (plinko.Deps.OnDrop).
func (m *Metrics) ObserveDrop(d plinko.Drop) {
	p := m.plinko()
	p.drops.WithLabelValues(strconv.Itoa(int(d.Tier)), string(d.Currency)).Inc()
	if d.Currency == "tickets" {
		p.tickets.WithLabelValues("in").Add(float64(d.Cost))
	}
	if d.TicketsOut > 0 {
		p.tickets.WithLabelValues("out").Add(float64(d.TicketsOut))
	}
}
