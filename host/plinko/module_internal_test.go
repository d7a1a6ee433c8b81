package plinko

import (
	"html/template"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/honmaster/masterserver/host/console/consolepage"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/storage"
)

// bodyRenderer is a console renderer that writes the page's body alone.
type bodyRenderer struct{}

func (bodyRenderer) Render(w http.ResponseWriter, _ *http.Request, title string, body template.HTML) {
	w.Write([]byte("<title>" + title + "</title>" + string(body)))
}
func (bodyRenderer) CSRF() string     { return "token" }
func (bodyRenderer) Operator() string { return "admin" }

// TestPlinkoPageChart: the console page's observed tier distribution and
// ticket economy are the area's own drop counts, which the metrics
// registry serves too; a second start on the same registry keeps them.
func TestPlinkoPageChart(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	reg := prometheus.NewRegistry()
	m, err := newMetrics(reg)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		m.observe(Drop{Tier: plinkoapi.TierBronze, Currency: plinkoapi.CurrencyTickets, Cost: 66})
	}
	m.observe(Drop{Tier: plinkoapi.Tier(6), Currency: plinkoapi.CurrencyGold, Cost: 54, TicketsOut: 30})
	again, err := newMetrics(reg) // the area started again (a test's second server on one App)
	if err != nil {
		t.Fatal(err)
	}
	p := &page{db: db, a: &Area{log: slog.New(slog.DiscardHandler)}, m: again}
	r := consolepage.WithRenderer(httptest.NewRequest("GET", "/console/plinko", nil), bodyRenderer{})
	w := httptest.NewRecorder()
	p.show(w, r)
	body := w.Body.String()
	if n := strings.Count(body, `<rect class="cfg" x=`); n != 6 {
		t.Errorf("%d configured bars, want 6", n)
	}
	for _, want := range []string{"75.0% (3)", "25.0% (1)", `<span id="total-drops">4</span>`, "Tickets paid in: 198 · paid out: 30", `id="no-catalog"`, `name="csrf" value="token"`} {
		if !strings.Contains(body, want) {
			t.Errorf("plinko page lacks %q:\n%s", want, body)
		}
	}
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var drops float64
	for _, f := range fams {
		if f.GetName() == "honmaster_plinko_drops_total" {
			for _, mt := range f.GetMetric() {
				drops += mt.GetCounter().GetValue()
			}
		}
	}
	if drops != 4 {
		t.Errorf("honmaster_plinko_drops_total sums to %v, want 4", drops)
	}
}

// TestPlinkoPageLargeCounts: counts of millions show as whole numbers (a
// float64 in the template printed 3.950628e+06), and the chart scales to
// a phone's width (a viewBox, which the console's CSS shrinks).
func TestPlinkoPageLargeCounts(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m, err := newMetrics(prometheus.NewRegistry())
	if err != nil {
		t.Fatal(err)
	}
	m.observe(Drop{Tier: plinkoapi.TierBronze, Currency: plinkoapi.CurrencyTickets, Cost: 3950628})
	m.drops.WithLabelValues("5", string(plinkoapi.CurrencyTickets)).Add(2_500_000)
	p := &page{db: db, a: &Area{log: slog.New(slog.DiscardHandler)}, m: m}
	r := consolepage.WithRenderer(httptest.NewRequest("GET", "/console/plinko", nil), bodyRenderer{})
	w := httptest.NewRecorder()
	p.show(w, r)
	body := w.Body.String()
	for _, want := range []string{`<span id="total-drops">2500001</span>`, "Tickets paid in: 3950628 ·", "(2500000)", `viewBox="0 0 560 `} {
		if !strings.Contains(body, want) {
			t.Errorf("plinko page lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "e+0") {
		t.Errorf("plinko page shows a number in scientific notation:\n%s", body)
	}
}
