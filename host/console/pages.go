package console

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"html/template"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/accounts"
	"github.com/honmaster/masterserver/host/console/consolepage"
	"github.com/honmaster/masterserver/host/failure/detail"
	"github.com/honmaster/masterserver/host/internal/opmsg"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

func urlQuery(s string) string { return url.QueryEscape(s) }

// pageTimeout bounds one page's work.
const pageTimeout = 10 * time.Second

// operatorError words err for the operator: a sentence, without package
// prefixes or the storage's internals.
func operatorError(err error) string {
	var partial *login.PartialReset
	switch {
	case errors.As(err, &partial):
		// The reset happened: never worded by the failure after it.
		return fmt.Sprintf("the password was reset and %d game sessions ended, but ending those of the other accounts of its main account failed (%s): reset it again to end them",
			partial.Ended, operatorError(partial.Err))
	case errors.Is(err, storage.ErrNotFound), errors.Is(err, actors.ErrNoAccount):
		return "no such account"
	case errors.Is(err, accounts.ErrBadGrant):
		msg, _ := detail.Of(err, accounts.ErrBadGrant)
		return "grant refused: " + msg
	case errors.Is(err, actors.ErrLoginTaken):
		return "that login is already taken; nothing was created"
	case errors.Is(err, actors.ErrBadParent):
		return "a sub-account's main account must be an existing account that is not itself a sub-account; nothing was created"
	case errors.Is(err, actors.ErrIDSpace):
		return "no account can be created: the account numbers are exhausted"
	case errors.Is(err, actors.ErrTimeout):
		return "the server did not answer in time; the action may or may not have been applied (check, then retry)"
	case errors.Is(err, actors.ErrExpired):
		// Refused before it ran, unlike a timeout: nothing was written.
		return "the server was too busy to get to the action in time; nothing was changed, try again"
	case errors.Is(err, actors.ErrStopped), errors.Is(err, storage.ErrClosed):
		return "the server is shutting down; retry once it runs again"
	case opmsg.InvalidUTF8(err):
		return opmsg.NotUTF8
	}
	if msg := accounts.RuleMessage(err); msg != "" {
		return msg
	}
	return opmsg.Strip(err.Error())
}

func back(w http.ResponseWriter, r *http.Request, to string, notice string, err error) {
	q := "notice=" + urlQuery(notice)
	if err != nil {
		q = "error=" + urlQuery(operatorError(err))
	}
	sep := "?"
	if strings.Contains(to, "?") {
		sep = "&"
	}
	http.Redirect(w, r, to+sep+q, http.StatusSeeOther)
}

// Dashboard.

// counters are the cumulative counts the dashboard turns into rates, by
// card: the logins, and the areas' cards with a Total.
type counters map[string]float64

// loginsCard is the dashboard's own rate card.
const loginsCard = "logins"

func (c *Console) gather() map[string]*dto.MetricFamily {
	out := map[string]*dto.MetricFamily{}
	if c.d.Metrics == nil {
		return out
	}
	fams, err := c.d.Metrics.Registry.Gather()
	if err != nil {
		c.d.Log.Warn("console metrics", "err", err)
	}
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

// sum adds the counters of family name whose label lab (when not "") is val.
func sum(fams map[string]*dto.MetricFamily, name, lab, val string) float64 {
	var t float64
	f := fams[name]
	if f == nil {
		return 0
	}
	for _, m := range f.GetMetric() {
		if lab != "" {
			ok := false
			for _, l := range m.GetLabel() {
				if l.GetName() == lab && l.GetValue() == val {
					ok = true
				}
			}
			if !ok {
				continue
			}
		}
		t += m.GetCounter().GetValue() + m.GetGauge().GetValue()
	}
	return t
}

// count is sum's total of a family of counts, whole.
func count(fams map[string]*dto.MetricFamily, name string) int64 {
	return int64(math.Round(sum(fams, name, "", "")))
}

func (c *Console) counters() counters {
	out := counters{loginsCard: sum(c.gather(), "honmaster_logins_total", "outcome", "ok")}
	for _, card := range c.cards {
		if card.Total != nil {
			out[card.ID] = card.Total()
		}
	}
	return out
}

// rateSampler keeps recent samples of the counters; a rate is taken over the
// last five minutes (or since the console started, when younger).
type rateSampler struct {
	mu      sync.Mutex
	samples []sample
}

type sample struct {
	at time.Time
	c  counters
}

func (s *rateSampler) add(now time.Time, c counters) (perMin counters, window time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.samples); n == 0 || now.Sub(s.samples[n-1].at) >= 10*time.Second {
		s.samples = append(s.samples, sample{now, c})
	}
	for len(s.samples) > 2 && now.Sub(s.samples[1].at) >= 5*time.Minute {
		s.samples = s.samples[1:]
	}
	old := s.samples[0]
	window = now.Sub(old.at)
	mins := window.Minutes()
	if mins < 1 {
		mins = 1 // young console: counts so far, per minute at most
	}
	perMin = counters{}
	for id, v := range c {
		perMin[id] = (v - old.c[id]) / mins // a card added since counts from 0
	}
	return perMin, window
}

type dashboardData struct {
	Online          int
	LoginsPerMin    string
	Cards           []cardRow // the areas'
	Window          string
	Plugins         []pluginRow
	Storage         string
	StorageOK       bool
	LiveActors      int64 // counts, shown as such (a float prints 3.950628e+06)
	CommitErrors    int64
	SessionsCreated int64
	Clustered       bool
	Nodes           []Node
	CanReload       bool // Deps.Reload is set: show the button
}

type cardRow struct{ ID, Title, Value string }

type pluginRow struct {
	Area     string
	State    string
	Restarts int
}

// onlineScanLimit bounds the session scan of the dashboard.
const onlineScanLimit = 1_000_000

var errStop = errors.New("stop")

func (c *Console) online() int {
	now := c.d.Now()
	seen := map[storage.AccountID]bool{}
	n := 0
	_ = c.d.Sys.DB().EachSession(func(s *storage.Session) error {
		if n++; n > onlineScanLimit {
			return errStop
		}
		if s.Expires.After(now) {
			seen[s.AccountID] = true
		}
		return nil
	})
	return len(seen)
}

func (c *Console) dashboard(w http.ResponseWriter, r *http.Request) {
	fams := c.gather()
	rate, window := c.rates.add(c.d.Now(), c.counters())
	d := dashboardData{Online: c.online(), LoginsPerMin: strconv.FormatFloat(rate[loginsCard], 'f', 1, 64),
		Window: window.Round(time.Second).String(), StorageOK: true, Storage: "healthy",
		LiveActors: count(fams, "honmaster_actors_live"), CommitErrors: count(fams, "honmaster_storage_commit_errors_total"),
		SessionsCreated: count(fams, "honmaster_sessions_created_total"), CanReload: c.d.Reload != nil}
	for _, card := range c.cards {
		row := cardRow{ID: card.ID, Title: card.Title}
		if card.Total != nil {
			row.Value = strconv.FormatFloat(rate[card.ID], 'f', 1, 64)
		} else if card.Value != nil {
			row.Value = card.Value()
		}
		d.Cards = append(d.Cards, row)
	}
	if c.d.Health != nil {
		if err := c.d.Health(); err != nil {
			d.StorageOK, d.Storage = false, err.Error()
		}
	}
	if c.d.Plugins != nil {
		for _, p := range sortedAreas(c.d.Plugins()) {
			st := "running"
			if !p.Running {
				st = "down (restarting)"
			}
			d.Plugins = append(d.Plugins, pluginRow{Area: p.Area, State: st, Restarts: p.Restarts})
		}
	}
	if c.d.Nodes != nil {
		d.Clustered, d.Nodes = true, c.d.Nodes()
	}
	c.render(w, r, "dashboard", "Dashboard", d, "")
}

// reload reloads the server's configuration file, as SIGHUP does; the
// outcome (what changed, what needs a restart, or why the file was refused)
// comes back as the dashboard's notice or error.
func (c *Console) reload(w http.ResponseWriter, r *http.Request) {
	if c.d.Reload == nil {
		http.Error(w, "this server cannot reload its configuration from the console", http.StatusNotFound)
		return
	}
	msg, err := c.d.Reload(r.Context())
	if err != nil {
		back(w, r, Prefix, "", err)
		return
	}
	back(w, r, Prefix, msg, nil)
}

// Accounts.

type accountRow struct {
	ID                       storage.AccountID
	Login, Nickname          string
	Gold, Silver, Tickets    int64
	Suspended, Sub, Operator bool
}

// searchLimit bounds the rows of a search.
const searchLimit = 50

func (c *Console) accountsPage(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	var rows []accountRow
	if q != "" {
		needle := strings.ToLower(q)
		err := c.d.Sys.DB().EachAccount(func(a *storage.Account) error {
			if strings.Contains(strings.ToLower(a.Login), needle) || strings.Contains(strings.ToLower(a.Nickname), needle) {
				rows = append(rows, c.row(a))
				if len(rows) == searchLimit {
					return errStop
				}
			}
			return nil
		})
		if err != nil && !errors.Is(err, errStop) {
			r.URL.RawQuery += "&error=" + urlQuery(operatorError(err))
		}
	}
	c.render(w, r, "accounts", "Accounts", struct {
		Q    string
		Rows []accountRow
		More bool
	}{q, rows, len(rows) == searchLimit}, "")
}

// row is a's row: suspended directly (susp_id) or in an area's state
// (an unreadable state shows as not suspended, as an unreadable role as
// no operator).
func (c *Console) row(a *storage.Account) accountRow {
	susp, _ := c.suspendedByArea(a, c.d.Now())
	op, _ := IsOperator(c.d.Sys.DB(), a.ID)
	return accountRow{ID: a.ID, Login: a.Login, Nickname: a.Nickname, Gold: a.Gold, Silver: a.Silver, Tickets: a.Tickets,
		Suspended: a.SuspID != 0 || susp, Sub: a.SuperID != a.ID, Operator: op}
}

type field struct {
	Name, Value string
}

type accountData struct {
	Row      accountRow
	Email    string
	SuperID  storage.AccountID
	Subs     []accountRow
	Upgrades []string
	Record   []field
	// Summary and Panels are the areas' rows of the summary table and
	// sections (hostarea.Live.AccountPanels), rendered.
	Summary, Panels []template.HTML
}

func (c *Console) accountPage(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), pageTimeout)
	defer cancel()
	loginName := r.URL.Query().Get("login")
	db := c.d.Sys.DB()
	id, err := db.LoginID(loginName)
	if err != nil {
		back(w, r, "/console/accounts", "", fmt.Errorf("%q: %w", loginName, err))
		return
	}
	a, err := c.d.Sys.Account(ctx, id)
	if err != nil {
		back(w, r, "/console/accounts", "", err)
		return
	}
	now := c.d.Now()
	if _, err := c.suspendedByArea(a, now); err != nil { // the page's status must not guess
		back(w, r, "/console/accounts", "", err)
		return
	}
	d := accountData{Row: c.row(a), Email: a.Email, SuperID: a.SuperID}
	for _, u := range a.Upgrades {
		d.Upgrades = append(d.Upgrades, u.ID)
	}
	sort.Strings(d.Upgrades)
	if subs, err := db.SubAccounts(a.SuperID); err == nil {
		for _, s := range append([]storage.AccountID{a.SuperID}, subs...) {
			if s == a.ID {
				continue
			}
			if sa, err := db.Account(s); err == nil {
				d.Subs = append(d.Subs, c.row(sa))
			}
		}
	}
	if c.d.Login != nil {
		if rec, err := c.d.Login.Preview(ctx, id); err == nil {
			for _, h := range c.accounts {
				if h.fields == nil {
					continue
				}
				if f, err := h.fields(db, a, now); err == nil && f.SuspID != "" {
					rec.SuspID = f.SuspID
				}
			}
			d.Record = recordFields(rec)
		}
	}
	d.Summary, d.Panels = c.accountPanels(r, a)
	c.render(w, r, "account", "Account "+a.Login, d, "")
}

// accountPanels renders the areas' rows of the summary table and
// sections of account a's page, with the signed-in operator's form token.
// A panel that fails is logged and left out: the rest of the page still
// serves.
func (c *Console) accountPanels(r *http.Request, a *storage.Account) (summary, sections []template.HTML) {
	csrf := ""
	if s, _ := r.Context().Value(ctxKey{}).(*session); s != nil {
		csrf = s.csrf
	}
	for _, p := range c.panels {
		data, err := p.Data(r, a)
		var b bytes.Buffer
		if err == nil {
			err = p.Template.Execute(&b, consolepage.AccountView{CSRF: csrf, Login: a.Login, Data: data})
		}
		if err != nil {
			c.d.Log.Error("console account page section", "template", p.Template.Name(), "err", err)
			continue
		}
		if p.Summary {
			summary = append(summary, template.HTML(b.String()))
		} else {
			sections = append(sections, template.HTML(b.String()))
		}
	}
	return summary, sections
}

// recordFields encodes the record as the client receives it (PHP
// serialization) and decodes it again, so the view shows exactly the keys
// and values the client reads.
func recordFields(rec any) []field {
	b, err := wire.Marshal(rec)
	if err != nil {
		return []field{{"(error)", err.Error()}}
	}
	v, err := wire.Unmarshal(b)
	if err != nil {
		return []field{{"(error)", err.Error()}}
	}
	a, ok := v.(*wire.Array)
	if !ok {
		return []field{{"(record)", phpText(v)}}
	}
	var out []field
	for k, v := range a.All() {
		val := phpText(v)
		if len(val) > 600 {
			val = val[:600] + " …"
		}
		out = append(out, field{fmt.Sprint(k), val})
	}
	return out
}

// phpText writes a decoded PHP value compactly: lists as [a, b], maps as
// {k: v}, null as null.
func phpText(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case *wire.Array:
		var sb strings.Builder
		list := true
		i := int64(0)
		for k := range x.All() {
			if n, ok := k.(int64); !ok || n != i {
				list = false
				break
			}
			i++
		}
		open, close := "{", "}"
		if list {
			open, close = "[", "]"
		}
		sb.WriteString(open)
		first := true
		for k, e := range x.All() {
			if !first {
				sb.WriteString(", ")
			}
			first = false
			if !list {
				fmt.Fprintf(&sb, "%v: ", k)
			}
			sb.WriteString(phpText(e))
		}
		sb.WriteString(close)
		return sb.String()
	case string:
		return x
	default:
		return fmt.Sprint(x)
	}
}

func (c *Console) accountURL(loginName string) string {
	return "/console/account?login=" + urlQuery(loginName)
}

func (c *Console) grant(w http.ResponseWriter, r *http.Request) {
	if err := checkForm(r); err != nil {
		back(w, r, c.accountURL(r.PostFormValue("login")), "", err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), pageTimeout)
	defer cancel()
	loginName := r.PostFormValue("login")
	var g accounts.Grant
	for _, f := range []struct {
		name string
		to   *int64
	}{{"gold", &g.Gold}, {"silver", &g.Silver}, {"tickets", &g.Tickets}} {
		if v := strings.TrimSpace(r.PostFormValue(f.name)); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				back(w, r, c.accountURL(loginName), "", fmt.Errorf("%s must be a whole number", f.name))
				return
			}
			*f.to = n
		}
	}
	g.Upgrades = append(g.Upgrades, strings.Fields(r.PostFormValue("upgrades"))...)
	if g.Gold == 0 && g.Silver == 0 && g.Tickets == 0 && len(g.Upgrades) == 0 {
		back(w, r, c.accountURL(loginName), "", errors.New("nothing to grant: give an amount or an upgrade (nothing was changed)"))
		return
	}
	a, err := c.d.Accounts.GrantTo(ctx, loginName, &g)
	if err != nil {
		back(w, r, c.accountURL(loginName), "", err)
		return
	}
	back(w, r, c.accountURL(loginName), fmt.Sprintf("granted; balances now gold %d, silver %d, tickets %d", a.Gold, a.Silver, a.Tickets), nil)
}

// setVerifier replaces the account's SRP credentials.
type setVerifier struct{ v storage.SRPVerifier }

func (s setVerifier) Apply(tx *actors.Tx) (any, error) {
	tx.Account().SRP = s.v
	return nil, nil
}

func (c *Console) resetPassword(w http.ResponseWriter, r *http.Request) {
	if err := checkForm(r); err != nil {
		back(w, r, c.accountURL(r.PostFormValue("login")), "", err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), pageTimeout)
	defer cancel()
	loginName, pw := r.PostFormValue("login"), r.PostFormValue("password")
	to := c.accountURL(loginName)
	if err := accounts.CheckPassword(pw); err != nil {
		back(w, r, to, "", err)
		return
	}
	id, err := c.d.Sys.DB().LoginID(loginName)
	if err != nil {
		back(w, r, to, "", err)
		return
	}
	a, err := c.d.Sys.Account(ctx, id)
	if err != nil {
		back(w, r, to, "", err)
		return
	}
	salt, salt2, v, err := c.d.Group.NewVerifier(a.Login, pw, rand.Reader)
	if err != nil {
		back(w, r, to, "", err)
		return
	}
	cred := storage.SRPVerifier{Salt: salt, Salt2: salt2, Verifier: v}
	notice := "password reset"
	if c.d.Login != nil {
		// The old password's game sessions end, with the new credentials
		// in one commit, and those of the other accounts of its main
		// account (which may switch into it): a reset is often for a
		// stolen password.
		var n int
		var partial *login.PartialReset
		switch n, err = c.d.Login.ResetPassword(ctx, id, cred); {
		case err == nil:
			notice = fmt.Sprintf("password reset; %d game sessions ended", n)
		case errors.As(err, &partial):
			// Applied: said as done (and audited so), with what is left.
			notice = "password reset; " + strings.TrimPrefix(operatorError(partial), "the password was reset and ")
			err = nil
		}
	} else {
		_, err = c.d.Sys.Apply(ctx, id, setVerifier{cred})
	}
	if err == nil {
		// The account's console sessions end (standing.go), except the
		// one that reset its own password.
		if s, _ := r.Context().Value(ctxKey{}).(*session); s != nil && s.id == id {
			c.renewCredential(s, cred)
		}
	}
	back(w, r, to, notice, err)
}

func (c *Console) createSub(w http.ResponseWriter, r *http.Request) {
	if err := checkForm(r); err != nil {
		back(w, r, c.accountURL(r.PostFormValue("login")), "", err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), pageTimeout)
	defer cancel()
	parent := r.PostFormValue("login")
	sub := accounts.Create{Login: r.PostFormValue("sub_login"), Password: r.PostFormValue("password"),
		Nickname: r.PostFormValue("nickname"), Parent: parent}
	a, err := c.d.Accounts.Create(ctx, sub)
	notice := ""
	if err == nil {
		notice = fmt.Sprintf("sub-account %s created (id %d)", a.Login, a.ID)
	}
	back(w, r, c.accountURL(parent), notice, err)
}
