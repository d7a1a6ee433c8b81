package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strconv"
	"sync/atomic"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/accounts"
	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/console"
	"github.com/honmaster/masterserver/host/metrics"
	"github.com/honmaster/masterserver/host/operator"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/storage"
)

// instrument connects the metrics to the parts that feed them.
func instrument(app *App, srv *server.Server) {
	m := app.Metrics
	app.accessLog.set(app.Cfg.Server.AccessLog)
	srv.SetObserver(func(r *server.RequestInfo) {
		outcome := m.ObserveRequest(r)
		if app.accessLog.keep(outcome) {
			logAccess(app.Log, r, outcome)
		}
	})
	app.Sys.SetMailboxObserver(m.ObserveMailboxWait)
	app.DB.SetCommitObserver(m.ObserveCommit)
	m.Watch(metrics.Sources{
		LiveActors:     app.Sys.Live,
		CachedSessions: app.Sys.CachedSessions,
		Passivations:   app.Sys.Passivations,
		Engine:         app.DB.EngineStats,
		Plugins:        app.Plugins.statuses,
		LiveSessions:   app.Login.LiveSessions,
		Connections:    srv.ConnStats,
	})
}

// statuses are the plugin states for metrics.
func (p *Plugins) statuses() []metrics.PluginStatus {
	out := make([]metrics.PluginStatus, 0, len(p.sups))
	for area, s := range p.sups {
		st := s.Status()
		out = append(out, metrics.PluginStatus{Area: string(area), Running: s.Ready(), Restarts: st.Restarts})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Area < out[j].Area })
	return out
}

// accessLog decides which requests get an access line
// (server.access_log): every failure, and successful requests at the
// setting's rate, one in 1/rate exactly (counted, not drawn at random).
type accessLog struct {
	mode atomic.Pointer[config.AccessLog]
	ok   atomic.Uint64 // successful requests answered while sampling
}

// set puts a server.access_log in force.
func (a *accessLog) set(m config.AccessLog) { a.mode.Store(&m) }

// keep reports whether a request of this outcome gets its line.
func (a *accessLog) keep(outcome string) bool {
	m := a.mode.Load()
	switch {
	case m == nil || m.Off:
		return false
	case outcome != metrics.OutcomeOK || m.Rate >= 1:
		return true
	case m.Rate <= 0:
		return false
	}
	n := a.ok.Add(1)
	return uint64(float64(n)*m.Rate) != uint64(float64(n-1)*m.Rate)
}

// logAccess writes a request's access line. The account is the one the
// request names or whose session cookie it carries (RequestInfo.
// AccountName), "-" for a request of nobody's.
func logAccess(log *slog.Logger, r *server.RequestInfo, outcome string) {
	account := r.AccountName()
	if account == "" {
		account = "-"
	}
	log.LogAttrs(context.Background(), slog.LevelInfo, "access",
		slog.String("client", r.Client), slog.String("account", account), slog.String("route", r.Route),
		slog.String("outcome", outcome), slog.Int("status", r.Status), slog.Int("bytes", len(r.Body)),
		slog.Float64("duration_ms", float64(r.Duration.Microseconds())/1000))
}

// startOperator serves the operator listener on ln (opened by Start, nil
// when operator.enabled is false: then it returns nil, nil).
func startOperator(app *App, stdout io.Writer, ln net.Listener) (*operator.Server, net.Addr, error) {
	cfg := app.Cfg.Operator
	if ln == nil {
		return nil, nil, nil
	}
	token, err := operator.Token(cfg.Token, app.Cfg.Storage.DataDir)
	if err != nil {
		return nil, nil, err
	}
	// config.Validate refuses an address off loopback without
	// allow_remote; with it, the profiles need the token wherever it
	// listens.
	remote := cfg.AllowRemote
	op := operator.New(operator.Options{Token: token, Remote: remote, TokenFailures: consoleRate(cfg.TokenFailures), AllowedHosts: cfg.AllowedHosts, Log: app.Log})
	op.Handle("GET /metrics", app.Metrics.Handler())
	op.Handle("GET "+server.PathHealth, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		status, body := http.StatusServiceUnavailable, "starting\n"
		if rt := app.runtime.Load(); rt != nil {
			status, body = rt.Server.HealthDetails()
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	mountOperatorAPI(op, app)
	mountAccountAPI(op, app) // operator_accounts.go: delete an account, guides' counts
	if err := mountConsole(op, app); err != nil {
		return nil, nil, err
	}
	// The token failures' limit and the log lines read the client's
	// address as the console does (behind the documented proxies, from
	// X-Forwarded-For; it follows reloads).
	op.SetClientAddr(app.console.ClientAddr)
	// The listener's front page is the console: an operator who types the
	// address lands on it (the sign-in page when signed out).
	op.Handle("GET /{$}", http.RedirectHandler(console.Prefix, http.StatusFound))
	go func() {
		if err := op.Serve(ln); err != nil {
			app.Log.Error("operator listener", "err", err)
		}
	}()
	app.Log.Info("operator listener", "addr", ln.Addr().String(), "remote", remote)
	if remote {
		// operator.allow_remote: said on purpose, but the listener speaks
		// plain HTTP.
		app.Log.Warn("the operator listener is reachable from other machines over plain HTTP: the token, console passwords and cookies "+
			"cross the network unencrypted unless a TLS proxy is in front of it", "addr", ln.Addr().String(), "secure_cookies", app.Cfg.ConsoleSecureCookies())
		fmt.Fprintf(stdout, "operator listener on %s, reachable from other machines (operator.allow_remote; metrics public, pprof and API need the token in the config or %s)\n", ln.Addr(), operator.TokenFile)
	} else {
		fmt.Fprintf(stdout, "operator listener on %s (metrics, pprof; API token in the config or %s)\n", ln.Addr(), operator.TokenFile)
	}
	return op, ln.Addr(), nil
}

func accountJSON(a *storage.Account) operator.Account {
	j := operator.Account{ID: uint32(a.ID), Login: a.Login, SuperID: uint32(a.SuperID), Gold: a.Gold, Silver: a.Silver, Tickets: a.Tickets, Upgrades: []string{}}
	for _, u := range a.Upgrades {
		j.Upgrades = append(j.Upgrades, u.ID)
	}
	sort.Strings(j.Upgrades)
	return j
}

// apiLogin are the fields of a route that takes a login alone.
var apiLogin = hostarea.APIFields{Names: []string{"login"}}

func mountOperatorAPI(op *operator.Server, app *App) {
	op.HandleAPI("GET "+operator.PathAccount, apiHandler(op, app.Log, apiLogin, func(ctx context.Context, r *http.Request) (any, error) {
		id, err := app.DB.LoginID(r.FormValue("login"))
		if err != nil {
			return nil, err
		}
		a, err := app.Sys.Account(ctx, id)
		if err != nil {
			return nil, err
		}
		return accountJSON(a), nil
	}))
	op.HandleAPI("POST "+operator.PathAccount, apiHandler(op, app.Log, hostarea.APIFields{Names: []string{"login", "password", "email", "parent"}}, func(ctx context.Context, r *http.Request) (any, error) {
		a, err := app.Accounts.Create(ctx, accounts.Create{Login: r.FormValue("login"), Password: r.FormValue("password"),
			Email: r.FormValue("email"), Parent: r.FormValue("parent")})
		if err != nil {
			return nil, err
		}
		return accountJSON(a), nil
	}))
	op.HandleAPI("POST "+operator.PathGrant, apiHandler(op, app.Log, hostarea.APIFields{Names: []string{"login", "gold", "silver", "tickets", "upgrade"},
		Repeatable: []string{"upgrade"}}, func(ctx context.Context, r *http.Request) (any, error) {
		var g accounts.Grant
		for _, f := range []struct {
			name string
			to   *int64
		}{{"gold", &g.Gold}, {"silver", &g.Silver}, {"tickets", &g.Tickets}} {
			if v := r.FormValue(f.name); v != "" {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					return nil, usageError("%s must be an integer", f.name)
				}
				*f.to = n
			}
		}
		g.Upgrades = r.Form["upgrade"]
		a, err := app.Accounts.GrantTo(ctx, r.FormValue("login"), &g)
		if err != nil {
			return nil, err
		}
		return accountJSON(a), nil
	}))
}

// apiHandler answers f's result as JSON, or {"error": ...} with a status
// that says whose fault it was. The request is checked against the fields
// its route takes (readAPIRequest) before f runs. A call that may change
// something (not a GET) writes its line of the audit trail to log, naming
// the account and the fields it was given, whether as a form or as a JSON
// body.
func apiHandler(op apiMounter, log *slog.Logger, fields hostarea.APIFields, f func(ctx context.Context, r *http.Request) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, 1<<20)
		if err := r.ParseForm(); err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": "malformed form"})
			return
		}
		req, err := readAPIRequest(r, fields)
		var v any
		if err == nil {
			ctx, cancel := context.WithTimeout(r.Context(), adminTimeout)
			defer cancel()
			v, err = f(ctx, r)
		}
		var failed error
		if err != nil {
			status, msg := apiError(r, req.account, err)
			writeJSON(w, status, map[string]string{"error": msg})
			failed = errors.New(msg)
		} else {
			writeJSON(w, http.StatusOK, v)
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			operator.Audit(log, operator.ByAPI, r.Method+" "+r.URL.Path, req.account, req.change, failed, "addr", op.ClientAddr(r))
		}
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// apiError is the status and the sentence (worded as for the commands,
// without internal package names) of a failed operator API call.
//
// A deletion that stopped part way (errDeletedPartWay) is answered 500
// with its own sentence, which names the accounts deleted, whatever
// stopped it: some of the deletion happened, so neither 404 (no such
// account, which its cause may well be: an account deleted meanwhile by
// another request) nor any other 4xx (the caller's mistake, nothing
// changed) is true. 500 is what the API answers every failure of the
// server's own, an uncertain outcome included (its sentence says the
// outcome is unknown); the caller runs it again to finish.
func apiError(r *http.Request, login string, err error) (int, string) {
	switch {
	case errors.Is(err, errDeletedPartWay): // first: its cause may match any case below
		return http.StatusInternalServerError, explain(err)
	case errors.Is(err, actors.ErrLoginTaken):
		return http.StatusConflict, explain(explainCreate(err, accounts.Create{Login: login}))
	case errors.Is(err, accounts.ErrNicknameTaken): // a name taken, as a login is
		return http.StatusConflict, accounts.RuleMessage(err)
	case errors.Is(err, actors.ErrBadParent): // wraps the parent's not found
		return http.StatusBadRequest, explain(explainCreate(err, accounts.Create{Parent: r.FormValue("parent")}))
	case isUnknownAccount(err):
		if errors.As(err, new(*hostarea.OperatorError)) {
			// An area's not-found, worded by the area (its request's
			// JSON body or query has no form login to name).
			return http.StatusNotFound, explain(err)
		}
		return http.StatusNotFound, explain(unknownLogin(login, err))
	case errors.Is(err, hostarea.ErrBadRequest): // an area's refusal of what it was sent
		return http.StatusBadRequest, explain(err)
	case errors.Is(err, accounts.ErrBadGrant):
		return http.StatusBadRequest, "grant refused, nothing changed: " + specifics(err, accounts.ErrBadGrant)
	case accounts.RuleMessage(err) != "":
		return http.StatusBadRequest, accounts.RuleMessage(err)
	case errors.Is(err, errUsage):
		return http.StatusBadRequest, explain(err)
	}
	return http.StatusInternalServerError, explain(err)
}
