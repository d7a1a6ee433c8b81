package plinko

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	hostmetrics "github.com/honmaster/masterserver/host/metrics"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
)

// metrics are the area's own metrics: completed drops by tier and the
// tickets they moved (the console's Plinko page reads them too).
type metrics struct {
	drops   *prometheus.CounterVec
	tickets *prometheus.CounterVec
}

// newMetrics registers the area's metrics on reg, or takes the ones a
// previous start registered there.
func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		drops: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: hostmetrics.Namespace, Name: "plinko_drops_total",
			Help: "Completed Plinko drops, by prize tier (1 Diamond .. 6 tickets) and currency."}, []string{"tier", "currency"}),
		tickets: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: hostmetrics.Namespace, Name: "plinko_tickets_total",
			Help: "Tickets moved by Plinko drops: paid in (drops paid with tickets) and out (ticket prizes)."}, []string{"direction"}),
	}
	var err error
	if m.drops, err = hostmetrics.Register(reg, m.drops); err != nil {
		return nil, err
	}
	if m.tickets, err = hostmetrics.Register(reg, m.tickets); err != nil {
		return nil, err
	}
	// Every series exists from the start at 0, so that rate() and absent()
	// work before the first drop.
	for t := 1; t <= plinkoapi.NumTiers; t++ {
		for _, c := range []plinkoapi.Currency{plinkoapi.CurrencyTickets, plinkoapi.CurrencyGold} {
			m.drops.WithLabelValues(strconv.Itoa(t), string(c))
		}
	}
	m.tickets.WithLabelValues("in")
	m.tickets.WithLabelValues("out")
	return m, nil
}

// observe counts a completed drop (Deps.OnDrop).
func (m *metrics) observe(d Drop) {
	m.drops.WithLabelValues(strconv.Itoa(int(d.Tier)), string(d.Currency)).Inc()
	if d.Currency == plinkoapi.CurrencyTickets {
		m.tickets.WithLabelValues("in").Add(float64(d.Cost))
	}
	if d.TicketsOut > 0 {
		m.tickets.WithLabelValues("out").Add(float64(d.TicketsOut))
	}
}

// tierDrops is the drops of tier t so far, in both currencies.
func (m *metrics) tierDrops(t plinkoapi.Tier) float64 {
	var sum float64
	for _, c := range []plinkoapi.Currency{plinkoapi.CurrencyTickets, plinkoapi.CurrencyGold} {
		sum += value(m.drops.WithLabelValues(strconv.Itoa(int(t)), string(c)))
	}
	return sum
}

// totalDrops is the drops so far, every tier and currency.
func (m *metrics) totalDrops() float64 {
	var sum float64
	for t := 1; t <= plinkoapi.NumTiers; t++ {
		sum += m.tierDrops(plinkoapi.Tier(t))
	}
	return sum
}

// ticketsMoved is the tickets paid in ("in") or out ("out") so far.
func (m *metrics) ticketsMoved(direction string) float64 {
	return value(m.tickets.WithLabelValues(direction))
}

func value(c prometheus.Counter) float64 {
	var d dto.Metric
	if err := c.Write(&d); err != nil {
		return 0
	}
	return d.GetCounter().GetValue()
}
