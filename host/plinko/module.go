package plinko

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"html/template"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/console/consolepage"
	"github.com/honmaster/masterserver/host/failure/detail"
	"github.com/honmaster/masterserver/host/internal/opmsg"
	bundled "github.com/honmaster/masterserver/plugins/plinko"
	"github.com/honmaster/masterserver/plugins/plinko/plinkoapi"
	"github.com/honmaster/masterserver/storage"
)

// The area registers itself with the host (host/area): its bundled
// plugin, its routes, its metrics (honmaster_plinko_*), its console page
// (/console/plinko: the tier distribution, the ticket economy and the
// catalog, with an import form), its demo catalog and its operator
// command, "honmaster products import FILE". Its settings are the
// [plinko] table (Settings); a reload puts its drop and purchase rates
// (write_burst, write_every) in force at once, the rest at the next start.
func init() {
	area.Register(area.Module{Area: plinkoapi.Area, Bundled: bundled.Plugin, Start: start, Demo: demo,
		LiveSettings: []string{"plinko.write_burst", "plinko.write_every"},
		Commands: []area.Command{{Name: "products import",
			Usage: "FILE (JSON catalog, see host/plinko/catalog.md; it replaces the stored one)",
			Flags: func(*flag.FlagSet) area.CommandRequest { return &importRequest{} }}}})
}

func start(e area.Env) (*area.Live, error) {
	m, err := newMetrics(e.Metrics)
	if err != nil {
		return nil, err
	}
	a, err := New(Deps{Sys: e.Sys, Login: e.Login, Decider: e.Plugin, Config: SettingsOf(e.Config), Log: e.Log, OnDrop: m.observe,
		Nodes: e.Config.Limits.SharedBy})
	if err != nil {
		return nil, err
	}
	p := &page{db: a.d.Sys.DB(), a: a, m: m}
	return &area.Live{Routes: a.Routes(),
		Reload: func(c *config.Config) { a.SetWriteRates(SettingsOf(c)) },
		Pages: []consolepage.Page{{Path: "/console/plinko", Title: "Plinko",
			Handler: http.HandlerFunc(p.show), Routes: map[string]http.Handler{"POST /console/plinko/import": http.HandlerFunc(p.importCatalog)}}},
		Cards: []consolepage.Card{{ID: "drops", Title: "Drops / min", Total: m.totalDrops},
			{ID: "tickets", Title: "Tickets in / out", Value: func() string {
				return strconv.FormatFloat(m.ticketsMoved("in"), 'f', -1, 64) + " / " + strconv.FormatFloat(m.ticketsMoved("out"), 'f', -1, 64)
			}}}}, nil
}

// demo stores the demo catalog unless one was imported.
func demo(ctx context.Context, e area.CommandEnv) error {
	if _, err := StoredCatalog(e.Sys.DB()); !errors.Is(err, storage.ErrNotFound) {
		return err
	}
	return PutCatalog(ctx, e.Sys, DemoCatalog())
}

// importRequest is "products import FILE", read by whichever process runs
// the request.
type importRequest struct {
	area.FileArg
}

func (r *importRequest) Validate() error { return r.Check("products import") }

func (r *importRequest) Run(ctx context.Context, e area.CommandEnv, out io.Writer) error {
	f, err := r.Open("catalog")
	if err != nil {
		return err
	}
	defer f.Close()
	if err := ImportCatalog(ctx, e.Sys, f, out); err != nil {
		if errors.Is(err, ErrCatalog) {
			d, ok := detail.Of(err, ErrCatalog)
			if !ok {
				d = opmsg.Strip(err.Error())
			}
			return &area.OperatorError{Cause: err, Msg: fmt.Sprintf("catalog %s is not valid, nothing imported: %s", r.File, d)}
		}
		return err
	}
	return nil
}

//go:embed templates/plinko.html
var templates embed.FS

var pageTemplate = template.Must(template.ParseFS(templates, "templates/plinko.html"))

// pageTimeout bounds one page's work.
const pageTimeout = 10 * time.Second

// page is the area's console page.
type page struct {
	db *storage.DB
	a  *Area
	m  *metrics
}

type tierRow struct {
	Tier                      string
	Configured, Observed      float64
	Drops                     int64 // a count, shown as one (a float prints 3.950628e+06)
	CfgX, ObsX, Y, CfgW, ObsW int
	CfgLabel, ObsLabel        string
}

type pageData struct {
	CSRF       template.HTML
	Chests     [4][]Product
	ChestNames [4]string
	Exchange   []ExchangeItem
	HasCatalog bool
	Tiers      []tierRow
	TotalDrops int64 // counts, shown as such (see tierRow.Drops)
	TicketsIn  int64
	TicketsOut int64
	Height     int
}

// show is the page: the configured odds (the bundled plugin's, as
// plinkoapi.DefaultOdds) against the drops observed since the server
// started, the tickets moved, and the stored catalog.
func (p *page) show(w http.ResponseWriter, r *http.Request) {
	d := pageData{CSRF: consolepage.CSRFField(r), ChestNames: [4]string{"Diamond", "Gold", "Silver", "Bronze"}}
	if cat, err := StoredCatalog(p.db); err == nil {
		d.Chests, d.Exchange, d.HasCatalog = cat.Chests, cat.Exchange, true
	} else if !errors.Is(err, storage.ErrNotFound) {
		p.a.log.Error("console: reading the catalog", "err", err)
		q := r.URL.Query()
		q.Set("error", "the stored catalog could not be read (see the server's log)")
		r.URL.RawQuery = q.Encode()
	}
	var counts [plinkoapi.NumTiers]float64
	var total float64
	for t := 1; t <= plinkoapi.NumTiers; t++ {
		counts[t-1] = p.m.tierDrops(plinkoapi.Tier(t))
		total += counts[t-1]
	}
	d.TotalDrops = int64(math.Round(total))
	d.TicketsIn, d.TicketsOut = int64(math.Round(p.m.ticketsMoved("in"))), int64(math.Round(p.m.ticketsMoved("out")))
	const barMax = 300 // px for 100%
	for t := 1; t <= plinkoapi.NumTiers; t++ {
		row := tierRow{Tier: plinkoapi.Tier(t).String(), Configured: plinkoapi.DefaultOdds.Of(plinkoapi.Tier(t)) * 100, Drops: int64(math.Round(counts[t-1]))}
		if total > 0 {
			row.Observed = counts[t-1] / total * 100
		}
		row.Y = 10 + (t-1)*40
		row.CfgX, row.ObsX = 130, 130
		row.CfgW = int(row.Configured / 100 * barMax)
		row.ObsW = int(row.Observed / 100 * barMax)
		row.CfgLabel = strconv.FormatFloat(row.Configured, 'f', 1, 64) + "%"
		row.ObsLabel = strconv.FormatFloat(row.Observed, 'f', 1, 64) + "%"
		d.Tiers = append(d.Tiers, row)
	}
	d.Height = 20 + plinkoapi.NumTiers*40
	if err := consolepage.RenderTemplate(w, r, "Plinko", pageTemplate, d); err != nil {
		p.a.log.Error("console: plinko page", "err", err)
	}
}

// importCatalog is the page's import form: the file replaces the stored
// catalog, as "products import" does.
func (p *page) importCatalog(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), pageTimeout)
	defer cancel()
	f, _, err := r.FormFile("catalog")
	if err != nil {
		consolepage.Back(w, r, "/console/plinko", "", errors.New("choose a catalog file (JSON) to import"))
		return
	}
	defer f.Close()
	var out bytes.Buffer
	if err := ImportCatalog(ctx, p.a.d.Sys, f, &out); err != nil {
		consolepage.Back(w, r, "/console/plinko", "", err)
		return
	}
	consolepage.Back(w, r, "/console/plinko", strings.TrimSpace(out.String()), nil)
}
