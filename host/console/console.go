// Package console is the operator's web console, served on the operator
// listener under /console/: server-rendered pages (html/template, assets
// embedded, no JavaScript needed) for signing in, the dashboard, accounts,
// and the pages the areas add.
//
// Every write goes through the function its operator command uses
// (accounts.GrantTo, the areas' own functions, ...), so the console and
// the commands cannot disagree.
//
// Sign-in is for accounts an operator command gave the operator role
// (`honmaster account role --login L --operator`). The password is checked against
// the account's stored SRP verifier (v = g^x mod N is recomputed from the
// submitted password and compared in constant time); no password or hash of
// one is stored by the console. Console sessions live in memory (a restart
// signs everyone out) and are checked against their account on every
// request (standing.go): deleting the account, taking its operator role
// away, suspending it (directly, or in an area's state: hostarea.Live.Suspended)
// or changing its password ends them. Their cookie is
// HttpOnly, SameSite=Strict and Secure when Deps.SecureCookies is set;
// every POST carries the session's CSRF token. Failed sign-ins are limited
// per client address and per login with host/limit's token buckets.
//
// The areas plug in with Console.AddArea (their hostarea.Live): their
// pages (package consolepage) appear in the navigation, behind the same
// sign-in and CSRF check, and render with consolepage.Render in the
// console's layout; their dashboard cards; their sections of the account
// page (consolepage.AccountPanel), which the console renders with its
// escaping and serves the forms of behind its sign-in and CSRF check; and
// what they hold against an account (a suspension, the fields of its
// next session record).
package console

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/accounts"
	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/console/consolepage"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/logflood"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/metrics"
	"github.com/honmaster/masterserver/host/operator"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
)

//go:embed templates/*.html static/*
var assets embed.FS

// Prefix is where the console is mounted on the operator listener.
const Prefix = "/console/"

// Cookie names.
const (
	sessionCookie = "honmaster_console"
	preCookie     = "honmaster_console_signin" // CSRF token of the sign-in form
)

// Deps are what the console reads and writes through. Every write goes
// through the same services (and so the accounts' actors) as the operator
// commands.
// Node is one member of the cluster, for the dashboard.
type Node struct {
	Name, Address string
	Self          bool
}

type Deps struct {
	Sys      *actors.System
	Group    *srp.Group
	Accounts *accounts.Service
	Login    *login.Service
	Metrics  *metrics.Metrics
	// Plugins lists the plugin states (nil: none shown).
	Plugins func() []metrics.PluginStatus
	// Health is the storage health, worded for operators (nil: healthy).
	Health func() error
	// SecureCookies sets the Secure flag on cookies even on plain HTTP (the
	// console reached through a TLS reverse proxy); a request that came
	// over TLS gets it anyway.
	SecureCookies bool
	// TrustForwardedFor and TrustedProxies are server.trust_forwarded_for
	// and server.trusted_proxies: the console reads the client's address
	// as the game listener does (server.ClientAddress), for its sign-in
	// limits, the addresses it trusts for a login and its log and audit
	// lines. The documented proxies (docs/proxy) front both listeners.
	TrustForwardedFor bool
	TrustedProxies    []config.Prefix
	// SignInPerAddress and SignInPerLogin bound failed sign-ins (see
	// signInLimits: the per-login one only for addresses that never signed
	// in as that login). The zero Rate means the default (10 per address, 5
	// per login, one more per minute); Burst 0 with Every > 0 turns the
	// limit off.
	SignInPerAddress, SignInPerLogin limit.Rate
	// Nodes lists the cluster's members as this node sees them (nil: a
	// single node, no cluster section on the dashboard).
	Nodes func() []Node
	// Reload reloads the server's configuration (the dashboard's button,
	// as SIGHUP does) and words the outcome; nil: no button.
	Reload func(ctx context.Context) (string, error)
	// ReloadFailed words the last configuration reload when it failed,
	// however it was asked for (SIGHUP, the button), until one succeeds:
	// every page shows it in a banner. "" (or nil): no banner.
	ReloadFailed func() string
	// SessionLifetime is how long a console session lasts (0: 8h).
	SessionLifetime time.Duration
	Log             *slog.Logger
	Now             func() time.Time
}

// Console serves the web console.
type Console struct {
	d        Deps
	pages    map[string]*template.Template
	mu       sync.Mutex
	sessions map[[32]byte]*session // by SHA-256 of the cookie
	extra    []consolepage.Page
	panels   []consolepage.AccountPanel // the areas' sections of the account page (AddArea)
	accounts []accountHooks             // what the areas hold against an account (AddArea)
	cards    []consolepage.Card         // the areas' dashboard figures (AddCard)
	signIns  *signInLimits              // signin_limit.go
	secure   atomic.Bool                // Deps.SecureCookies, changed by SetSecureCookies
	fwd      atomic.Pointer[forwarding] // Deps.TrustForwardedFor, TrustedProxies; SetForwarded
	rates    rateSampler
	mux      *http.ServeMux
	sigKey   [32]byte // signs the notices and errors of redirects (messages.go)
	// beforeCheck, when set (tests), is called by each sign-in just
	// before its password check.
	beforeCheck func()
}

type session struct {
	login   string
	id      storage.AccountID
	csrf    string
	expires time.Time
	cred    [32]byte // credential() at sign-in; guarded by Console.mu (renewCredential)
}

type ctxKey struct{}

// maxSessions bounds the console sessions kept in memory.
const maxSessions = 1024

// New returns a console.
func New(d Deps) (*Console, error) {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.Default()
	}
	if d.SessionLifetime == 0 {
		d.SessionLifetime = 8 * time.Hour
	}
	d.SignInPerAddress, d.SignInPerLogin = signInDefaults(d.SignInPerAddress, d.SignInPerLogin)
	c := &Console{d: d, sessions: map[[32]byte]*session{}, pages: map[string]*template.Template{},
		signIns: newSignInLimits(d.SignInPerAddress, d.SignInPerLogin, d.Now)}
	c.secure.Store(d.SecureCookies)
	if _, err := rand.Read(c.sigKey[:]); err != nil {
		return nil, err
	}
	c.SetForwarded(d.TrustForwardedFor, d.TrustedProxies)
	if d.Sys != nil {
		if err := c.signIns.load(d.Sys.DB()); err != nil {
			return nil, err
		}
	}
	base, err := template.New("layout.html").Funcs(funcs).ParseFS(assets, "templates/layout.html")
	if err != nil {
		return nil, err
	}
	names, err := fs.Glob(assets, "templates/*.html")
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")
		if name == "layout" {
			continue
		}
		t, err := template.Must(base.Clone()).ParseFS(assets, n)
		if err != nil {
			return nil, err
		}
		c.pages[name] = t
	}
	c.rates.add(d.Now(), c.counters())
	c.routes()
	return c, nil
}

// signInDefaults applies the defaults of Deps.SignInPerAddress and
// SignInPerLogin.
func signInDefaults(perAddr, perLogin limit.Rate) (limit.Rate, limit.Rate) {
	if perAddr == (limit.Rate{}) {
		perAddr = limit.Rate{Burst: 10, Every: time.Minute}
	}
	if perLogin == (limit.Rate{}) {
		perLogin = limit.Rate{Burst: 5, Every: time.Minute}
	}
	return perAddr, perLogin
}

// SetSecureCookies changes Deps.SecureCookies (a configuration reload);
// cookies set from now on follow it, sessions go on.
func (c *Console) SetSecureCookies(on bool) { c.secure.Store(on) }

// forwarding is how the console reads a client's address behind proxies.
type forwarding struct {
	trust   bool
	proxies []config.Prefix
}

// SetForwarded changes Deps.TrustForwardedFor and TrustedProxies (a
// configuration reload): requests from now on are read with them.
func (c *Console) SetForwarded(trust bool, proxies []config.Prefix) {
	c.fwd.Store(&forwarding{trust: trust, proxies: slices.Clone(proxies)})
}

// SetSignInRates changes Deps.SignInPerAddress and SignInPerLogin (a
// configuration reload), with the same defaults; budgets already spent
// stay spent, capped at the new bursts.
func (c *Console) SetSignInRates(perAddr, perLogin limit.Rate) {
	perAddr, perLogin = signInDefaults(perAddr, perLogin)
	c.signIns.byAddr.SetRate(perAddr)
	c.signIns.byLogin.SetRate(perLogin)
}

var funcs = template.FuncMap{
	"join": strings.Join,
}

// AddPage adds an area's page to the console (before Mount): its link in
// the navigation, after the console's own, and its routes, behind the
// sign-in and CSRF check. A page with a route that is not under Prefix, or
// that the console or another page serves, is refused; after such an error
// the console must not be served (a server does not start).
func (c *Console) AddPage(p consolepage.Page) error {
	routes := map[string]http.Handler{"GET " + p.Path: p.Handler}
	for pattern, h := range p.Routes {
		routes[pattern] = h
	}
	for pattern, h := range routes {
		_, path, _ := strings.Cut(pattern, " ")
		if !strings.HasPrefix(path, Prefix) || h == nil {
			return fmt.Errorf("console page %q: route %q must be under %s and have a handler", p.Title, pattern, Prefix)
		}
	}
	to := func(*http.Request) string { return p.Path }
	for pattern, h := range routes {
		if err := register(c.mux, pattern, c.auth(checkedForm(h, to))); err != nil {
			return fmt.Errorf("console page %q: %w", p.Title, err)
		}
	}
	c.extra = append(c.extra, p)
	return nil
}

// accountHooks are what an area holds against an account
// (hostarea.Live.Suspended and SessionFields); either may be nil.
type accountHooks struct {
	suspended func(db *storage.DB, a *storage.Account, now time.Time) (bool, error)
	fields    func(db *storage.DB, a *storage.Account, now time.Time) (login.RecordFields, error)
}

// AddArea adds what an area serves in the console (before Mount): its
// pages (AddPage), its dashboard cards (AddCard), its sections of the
// account page with their forms' routes, and what it holds against an
// account. After an error the console must not be served.
func (c *Console) AddArea(l *hostarea.Live) error {
	for _, p := range l.Pages {
		if err := c.AddPage(p); err != nil {
			return err
		}
	}
	for _, card := range l.Cards {
		if err := c.AddCard(card); err != nil {
			return err
		}
	}
	for _, p := range l.AccountPanels {
		if err := c.addAccountPanel(p); err != nil {
			return err
		}
	}
	if l.Suspended != nil || l.SessionFields != nil {
		c.accounts = append(c.accounts, accountHooks{suspended: l.Suspended, fields: l.SessionFields})
	}
	return nil
}

// addAccountPanel adds an area's section of the account page and its
// routes, under Prefix, behind the sign-in and CSRF check.
func (c *Console) addAccountPanel(p consolepage.AccountPanel) error {
	if p.Template == nil || p.Data == nil {
		return errors.New("account page section: it needs a Template and Data")
	}
	for pattern, h := range p.Routes {
		_, path, _ := strings.Cut(pattern, " ")
		if !strings.HasPrefix(path, Prefix) || h == nil {
			return fmt.Errorf("account page section: route %q must be under %s and have a handler", pattern, Prefix)
		}
	}
	to := func(r *http.Request) string { return "/console/account?login=" + urlQuery(r.PostFormValue("login")) }
	for pattern, h := range p.Routes {
		if err := register(c.mux, pattern, c.auth(checkedForm(h, to))); err != nil {
			return fmt.Errorf("account page section: %w", err)
		}
	}
	c.panels = append(c.panels, p)
	return nil
}

// AddCard adds an area's figure to the dashboard (before Mount). A card
// whose id the dashboard or another card has is refused.
func (c *Console) AddCard(card consolepage.Card) error {
	taken := card.ID == "" || card.ID == loginsCard || slices.Contains([]string{"online", "storage"}, card.ID)
	for _, o := range c.cards {
		taken = taken || o.ID == card.ID
	}
	if taken || (card.Total == nil && card.Value == nil) {
		return fmt.Errorf("dashboard card %q: its id is empty or taken, or it has no figure", card.ID)
	}
	c.cards = append(c.cards, card)
	return nil
}

// register adds pattern to mux, turning ServeMux's panic on a clash into
// an error.
func register(mux *http.ServeMux, pattern string, h http.Handler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	mux.Handle(pattern, h)
	return nil
}

// Mount mounts the console on a mux (the operator listener's Handle).
func (c *Console) Mount(handle func(pattern string, h http.Handler)) {
	handle(Prefix, c)
}

// ServeHTTP serves the console's pages.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	c.mux.ServeHTTP(w, r)
}

func (c *Console) routes() {
	m := http.NewServeMux()
	c.mux = m
	static, _ := fs.Sub(assets, "static")
	m.Handle("GET /console/static/", http.StripPrefix("/console/static/", http.FileServerFS(static)))
	m.HandleFunc("GET /console/signin", c.signInForm)
	m.HandleFunc("POST /console/signin", c.signIn)
	m.Handle("POST /console/signout", c.auth(http.HandlerFunc(c.signOut)))
	m.Handle("GET /console/{$}", c.auth(http.HandlerFunc(c.dashboard)))
	m.Handle("POST /console/reload", c.auth(http.HandlerFunc(c.reload)))
	m.Handle("GET /console/accounts", c.auth(http.HandlerFunc(c.accountsPage)))
	m.Handle("GET /console/account", c.auth(http.HandlerFunc(c.accountPage)))
	m.Handle("POST /console/account/grant", c.auth(http.HandlerFunc(c.grant)))
	m.Handle("POST /console/account/password", c.auth(http.HandlerFunc(c.resetPassword)))
	m.Handle("POST /console/account/subaccount", c.auth(http.HandlerFunc(c.createSub)))
}

// newToken returns 32 random bytes as hex.
func newToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return hex.EncodeToString(b)
}

// cookie makes a console cookie: HttpOnly, SameSite=Strict, and Secure
// when the request came over TLS or Deps.SecureCookies says the console is
// reached through a TLS proxy.
func (c *Console) cookie(r *http.Request, name, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: name, Value: value, Path: Prefix, MaxAge: maxAge, HttpOnly: true,
		Secure: c.secure.Load() || r.TLS != nil, SameSite: http.SameSiteStrictMode}
}

// current returns the request's console session, if it has a live one
// whose account may still use the console (standing.go): a session whose
// account was deleted, lost the operator role, was suspended or changed
// its password ends here. An error means the account's state could not be
// read; the session is kept and the request refused.
func (c *Console) current(r *http.Request) (*session, error) {
	ck, err := r.Cookie(sessionCookie)
	if err != nil {
		return nil, nil
	}
	key := sha256.Sum256([]byte(ck.Value))
	c.mu.Lock()
	s := c.sessions[key]
	if s != nil && !c.d.Now().Before(s.expires) {
		delete(c.sessions, key)
		s = nil
	}
	var cred [32]byte
	if s != nil {
		cred = s.cred
	}
	c.mu.Unlock()
	if s == nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(r.Context(), pageTimeout)
	defer cancel()
	why, err := c.revoked(ctx, s.id, cred)
	if err != nil {
		return nil, err
	}
	if why != "" {
		c.mu.Lock()
		delete(c.sessions, key)
		c.mu.Unlock()
		c.d.Log.Info("console session ended", "login", s.login, "reason", why, "addr", c.clientAddr(r))
		return nil, nil
	}
	return s, nil
}

// auth lets signed-in operators through and checks the CSRF token of every
// POST; others are sent to the sign-in page (GET) or refused (403).
func (c *Console) auth(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, err := c.current(r)
		if err != nil {
			c.d.Log.Error("console session check", "err", err)
			http.Error(w, "the console could not check your sign-in; try again (the server's log says why)", http.StatusServiceUnavailable)
			return
		}
		if s == nil {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/console/signin", http.StatusSeeOther)
				return
			}
			http.Error(w, "sign in first", http.StatusForbidden)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			r.Body = http.MaxBytesReader(w, r.Body, maxUpload)
			if err := r.ParseMultipartForm(maxUpload); err != nil && !errors.Is(err, http.ErrNotMultipart) {
				http.Error(w, "malformed form", http.StatusBadRequest)
				return
			}
			if subtle.ConstantTimeCompare([]byte(r.PostFormValue("csrf")), []byte(s.csrf)) != 1 {
				http.Error(w, "missing or wrong form token (reload the page)", http.StatusForbidden)
				return
			}
		}
		ctx := context.WithValue(r.Context(), ctxKey{}, s)
		r = r.WithContext(context.WithValue(ctx, queryKey{}, r.URL.Query()))
		w = &signRedirects{ResponseWriter: w, c: c, s: s}
		if r.Method == http.MethodGet || r.Method == http.MethodHead || r.URL.Path == Prefix+"signout" {
			h.ServeHTTP(w, consolepage.WithRenderer(r, pageRenderer{c, s}))
			return
		}
		action := h
		if err := c.otherOperator(r, s); err != nil {
			action = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				back(w, r, c.accountURL(r.PostFormValue("login")), "", err)
			})
		}
		aw := &auditWriter{ResponseWriter: w}
		action.ServeHTTP(aw, consolepage.WithRenderer(r, pageRenderer{c, s}))
		c.audit(r, s, aw)
	})
}

// otherOperator applies guardAccount to the account an action under
// /console/account/ names by its "login" field (the areas' included).
func (c *Console) otherOperator(r *http.Request, s *session) error {
	if !strings.HasPrefix(r.URL.Path, Prefix+"account/") {
		return nil
	}
	id, err := c.d.Sys.DB().LoginID(r.PostFormValue("login"))
	if err != nil {
		return nil // no such account: the action says so itself
	}
	return c.guardAccount(s, id)
}

// guardAccount refuses an action of operator s on account id when id is
// an account of another operator's family: an account of a main account
// (itself or one of its sub-accounts) that holds the operator role, not
// the signed-in operator's own family. One operator could otherwise reset
// another's password and sign in as them (every later action audited
// under their name), suspend them (a suspension holds for the whole
// family, console sign-in included), reset the password of one of their
// sub-accounts and switch from it into theirs, or give them a sub-account
// that switches in. Operators' accounts are changed with the honmaster
// commands on the server.
func (c *Console) guardAccount(s *session, id storage.AccountID) error {
	db := c.d.Sys.DB()
	a, err := db.AccountProfile(id)
	if err != nil {
		return nil // no such account: the action says so itself
	}
	if me, err := db.AccountProfile(s.id); err == nil && me.SuperID == a.SuperID {
		return nil
	}
	subs, err := db.SubAccounts(a.SuperID)
	if err != nil {
		return err
	}
	for _, m := range append([]storage.AccountID{a.SuperID}, subs...) {
		switch op, err := IsOperator(db, m); {
		case err != nil:
			return err
		case op:
			return fmt.Errorf("%q is an account of an operator (or of their main account): the console changes no operator's accounts but your own; use the honmaster commands on the server", a.Login)
		}
	}
	return nil
}

// auditWriter keeps the status of an action's answer for its line of the
// audit trail.
type auditWriter struct {
	http.ResponseWriter
	status int
}

func (a *auditWriter) WriteHeader(status int) {
	if a.status == 0 {
		a.status = status
	}
	a.ResponseWriter.WriteHeader(status)
}

func (a *auditWriter) Write(b []byte) (int, error) {
	if a.status == 0 {
		a.status = http.StatusOK
	}
	return a.ResponseWriter.Write(b)
}

// audit writes the line of the audit trail (operator.Audit) of an action
// of the console (every POST but sign-in and sign-out, the areas' pages'
// included): the action is its path under /console/, the account the
// form's login, the change the form's other fields (a file by its name),
// the outcome what the page told the operator (every action answers with
// a redirect carrying its notice or its error).
func (c *Console) audit(r *http.Request, s *session, aw *auditWriter) {
	account, change := operator.FormChange(r.PostForm, "login")
	if r.MultipartForm != nil {
		for _, k := range slices.Sorted(maps.Keys(r.MultipartForm.File)) {
			for _, f := range r.MultipartForm.File[k] {
				change = append(change, k, f.Filename)
			}
		}
	}
	var failed error
	more := []any{"addr", c.clientAddr(r)}
	loc, err := url.Parse(aw.Header().Get("Location"))
	if err != nil {
		loc = &url.URL{}
	}
	switch q := loc.Query(); {
	case aw.status >= 400:
		failed = fmt.Errorf("%d %s", aw.status, http.StatusText(aw.status))
	case q.Get("error") != "":
		failed = errors.New(q.Get("error"))
	case q.Get("notice") != "":
		more = append(more, "result", q.Get("notice"))
	}
	operator.Audit(c.d.Log, operator.ByConsole(s.login), strings.TrimPrefix(r.URL.Path, Prefix), account, change, failed, more...)
}

// maxUpload bounds a POST body (a catalog file).
const maxUpload = 4 << 20

// pageRenderer renders an area's page (consolepage.Render) for a
// signed-in operator's request.
type pageRenderer struct {
	c *Console
	s *session
}

func (p pageRenderer) Render(w http.ResponseWriter, r *http.Request, title string, body template.HTML) {
	p.c.render(w, r, "extra", title, nil, body)
}
func (p pageRenderer) CSRF() string     { return p.s.csrf }
func (p pageRenderer) Operator() string { return p.s.login }
func (p pageRenderer) Now() time.Time   { return p.c.d.Now() }

// Guard implements consolepage.Guard.
func (p pageRenderer) Guard(id storage.AccountID) error { return p.c.guardAccount(p.s, id) }

// view is what every page template gets.
type view struct {
	Title    string
	Operator string
	CSRF     string
	Nav      []consolepage.Page
	Notice   string
	Error    string
	Body     template.HTML
	Data     any
	// ReloadFailed is Deps.ReloadFailed's banner, for signed-in pages.
	ReloadFailed string
}

func (c *Console) render(w http.ResponseWriter, r *http.Request, page, title string, data any, body template.HTML) {
	v := view{Title: title, Data: data, Body: body, Nav: c.extra}
	v.Notice, v.Error = c.messages(r) // never free text from the URL (messages.go)
	if s, _ := r.Context().Value(ctxKey{}).(*session); s != nil {
		v.Operator, v.CSRF = s.login, s.csrf
		if c.d.ReloadFailed != nil {
			v.ReloadFailed = c.d.ReloadFailed()
		}
	}
	t := c.pages[page]
	var sb strings.Builder
	if err := t.ExecuteTemplate(&sb, "layout.html", v); err != nil {
		c.d.Log.Error("console page", "page", page, "err", err)
		http.Error(w, "page failed; see the log", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, sb.String())
}

// clientAddr is the request's client address, read as the game listener
// reads it (server.ClientAddress): the connection's peer, or with
// server.trust_forwarded_for the right-most X-Forwarded-For address that is
// not a trusted proxy. Behind the documented proxies the peer is the
// proxy's address for every operator: it used to be the key of every
// sign-in (one bucket for all, the proxy's address trusted for every
// operator's login, which switched off the per-login limit) and the addr
// of every audit line.
// ClientAddr is the address of the client r came from: behind the
// trusted proxies (server.trust_forwarded_for, server.trusted_proxies;
// SetForwarded), the one X-Forwarded-For names, as the game listener
// reads it; otherwise the connection's. The operator listener's token
// limit reads it too.
func (c *Console) ClientAddr(r *http.Request) string { return c.clientAddr(r) }

func (c *Console) clientAddr(r *http.Request) string {
	f := c.fwd.Load()
	return server.ClientAddress(r.RemoteAddr, r.Header.Values("X-Forwarded-For"), f.trust, f.proxies)
}

// Sign-in.

type signInData struct {
	Token string
	Login string
}

func (c *Console) signInForm(w http.ResponseWriter, r *http.Request) {
	tok := newToken()
	http.SetCookie(w, c.cookie(r, preCookie, tok, 600))
	c.render(w, r, "signin", "Sign in", signInData{Token: tok}, "")
}

// ErrSignIn is the one answer to any failed sign-in (wrong password, no
// such account, no operator role), so that it tells an attacker nothing.
var ErrSignIn = errors.New("wrong login or password, or the account is not an operator")

func (c *Console) signIn(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 1<<16)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "malformed form", http.StatusBadRequest)
		return
	}
	pre, err := r.Cookie(preCookie)
	if err != nil || pre.Value == "" || subtle.ConstantTimeCompare([]byte(pre.Value), []byte(r.PostFormValue("csrf"))) != 1 {
		http.Error(w, "missing or wrong form token (reload the sign-in page)", http.StatusForbidden)
		return
	}
	loginName, password := r.PostFormValue("login"), r.PostFormValue("password")
	addr := c.clientAddr(r)
	// again shows the form once more with msg, under a fresh form token.
	again := func(msg string, status int) {
		tok := newToken()
		http.SetCookie(w, c.cookie(r, preCookie, tok, 600))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(status)
		c.render(w, withMessage(r, "", msg), "signin", "Sign in", signInData{Token: tok, Login: loginName}, "")
	}
	if len(loginName) > login.MaxLoginLength && utf8.RuneCountInString(loginName) > login.MaxLoginLength {
		// No account has such a login: refused before any limiter or
		// password work, so that it becomes no limiter's key (a 60,000-byte
		// login was one, among up to 100,000), and not echoed in the form.
		loginName = ""
		c.d.Metrics.ObserveConsoleSignIn(metrics.SignInRefused)
		again(fmt.Sprintf("a login is at most %d characters", login.MaxLoginLength), http.StatusBadRequest)
		return
	}
	// The tokens are spent before the password check (all the sign-ins in
	// flight at once are counted) and given back when it succeeds.
	res, ok, wait := c.signIns.reserve(loginName, limit.AddrKey(addr))
	if !ok {
		wait = wait.Round(time.Second)
		w.Header().Set("Retry-After", fmt.Sprint(int(wait.Seconds())+1))
		c.d.Metrics.ObserveConsoleSignIn(metrics.SignInLimited)
		again(fmt.Sprintf("too many failed sign-ins; try again in %s", wait), http.StatusTooManyRequests)
		return
	}
	if c.beforeCheck != nil {
		c.beforeCheck()
	}
	s, err := c.check(r.Context(), loginName, password)
	if err != nil {
		// The tokens reserve spent stay spent: a failure.
		outcome := metrics.SignInRefused
		if !errors.Is(err, ErrSignIn) {
			outcome = metrics.SignInError
			c.d.Log.Error("console sign-in", "err", err)
		}
		c.d.Metrics.ObserveConsoleSignIn(outcome)
		c.d.Log.Warn("console sign-in refused", "login", logflood.Clip(loginName), "addr", addr)
		again(ErrSignIn.Error(), http.StatusUnauthorized)
		return
	}
	c.signIns.refund(res)
	tok := newToken()
	c.mu.Lock()
	if len(c.sessions) >= maxSessions {
		c.evictLocked()
	}
	c.sessions[sha256.Sum256([]byte(tok))] = s
	c.mu.Unlock()
	c.signIns.succeeded(loginName, limit.AddrKey(addr), c.d.Now())
	if err := c.keepTrusted(r.Context(), loginName, limit.AddrKey(addr)); err != nil {
		// Signed in all the same: the address is trusted until a restart.
		c.d.Log.Warn("console sign-in: the address could not be remembered across a restart", "login", logflood.Clip(loginName), "addr", addr, "err", err)
	}
	http.SetCookie(w, c.cookie(r, preCookie, "", -1))
	http.SetCookie(w, c.cookie(r, sessionCookie, tok, int(c.d.SessionLifetime.Seconds())))
	c.d.Metrics.ObserveConsoleSignIn(metrics.SignInOK)
	c.d.Log.Info("console sign-in", "login", loginName, "addr", addr)
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
}

// evictLocked drops expired sessions, or the one expiring first.
func (c *Console) evictLocked() {
	now := c.d.Now()
	var first [32]byte
	var at time.Time
	for k, s := range c.sessions {
		if !now.Before(s.expires) {
			delete(c.sessions, k)
			continue
		}
		if at.IsZero() || s.expires.Before(at) {
			first, at = k, s.expires
		}
	}
	if len(c.sessions) >= maxSessions {
		delete(c.sessions, first)
	}
}

// dummySalt makes the check of an unknown login cost the same exponentiation
// as a known one.
var dummySalt = make([]byte, 256)

// check verifies loginName's password against its stored SRP verifier and
// its operator role.
func (c *Console) check(ctx context.Context, loginName, password string) (*session, error) {
	id, err := c.d.Sys.DB().LoginID(loginName)
	if errors.Is(err, storage.ErrNotFound) || loginName == "" {
		c.d.Group.Verifier(loginName, dummySalt, c.d.Group.PasswordSecret(password, "dummy"))
		return nil, ErrSignIn
	}
	if err != nil {
		return nil, err
	}
	a, err := c.d.Sys.Account(ctx, id)
	if err != nil {
		return nil, err
	}
	got := c.d.Group.Verifier(a.Login, a.SRP.Salt, c.d.Group.PasswordSecret(password, a.SRP.Salt2))
	want := make([]byte, len(got))
	if len(a.SRP.Verifier) <= len(want) {
		copy(want[len(want)-len(a.SRP.Verifier):], a.SRP.Verifier)
	}
	if subtle.ConstantTimeCompare(got, want) != 1 {
		return nil, ErrSignIn
	}
	why, err := c.barred(a)
	if err != nil {
		return nil, err
	}
	if why != "" {
		return nil, ErrSignIn
	}
	return &session{login: a.Login, id: id, csrf: newToken(), expires: c.d.Now().Add(c.d.SessionLifetime),
		cred: credential(a.SRP)}, nil
}

func (c *Console) signOut(w http.ResponseWriter, r *http.Request) {
	if ck, err := r.Cookie(sessionCookie); err == nil {
		c.mu.Lock()
		delete(c.sessions, sha256.Sum256([]byte(ck.Value)))
		c.mu.Unlock()
	}
	http.SetCookie(w, c.cookie(r, sessionCookie, "", -1))
	http.Redirect(w, r, "/console/signin", http.StatusSeeOther)
}

// sortedAreas is a helper for stable output.
func sortedAreas(p []metrics.PluginStatus) []metrics.PluginStatus {
	out := append([]metrics.PluginStatus(nil), p...)
	sort.Slice(out, func(i, j int) bool { return out[i].Area < out[j].Area })
	return out
}
