package cloud

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/console/consolepage"
	"github.com/honmaster/masterserver/host/internal/opmsg"
	"github.com/honmaster/masterserver/host/metrics"
	"github.com/honmaster/masterserver/plugins/sdk"
	"github.com/honmaster/masterserver/storage"
)

// The area registers itself with the host (host/area) as an area the host
// serves alone, without a plugin: its routes (built from the [cloud]
// table and limits.cloud_*), its metric (honmaster_cloud_stores_total),
// its console page (/console/cloud, what "cloud show" prints) and the
// account page's "Cloud buckets" row, and its operator command
// "honmaster cloud show". A reload puts the enrollment budget
// (limits.toggles_*) in force at once. The account's enrollment switches are part of
// its profile (storage.CloudFlags), since every login's session record
// carries them.
func init() {
	area.Register(area.Module{Area: sdk.Area(AreaName), Start: start,
		LiveSettings: []string{"limits.toggles_per_account", "limits.toggles_per_address"},
		Commands: []area.Command{{Name: "cloud show", Usage: "--login L [--bucket B]",
			Flags: func(fs *flag.FlagSet) area.CommandRequest {
				r := &showRequest{}
				fs.StringVar(&r.Login, "login", "", "login of the account")
				fs.StringVar(&r.Bucket, "bucket", DefaultBucket, "settings bucket")
				return r
			}}}})
}

// depsOf are the area's Deps from the server's configuration.
func depsOf(e area.Env) Deps {
	cfg := e.Config
	return Deps{Sys: e.Sys, Login: e.Login, Config: cfg.Cloud, Log: e.Log,
		Quota: Quota{Buckets: cfg.Limits.CloudBuckets, Bytes: int64(cfg.Limits.CloudBytes)},
		PerAddress: AddressBudget{Bytes: int64(cfg.Limits.CloudBytesAddress.Size),
			Every: cfg.Limits.CloudBytesAddress.Every.Duration, Keys: cfg.Limits.TrackedKeys},
		Enrollments: area.Toggles(cfg.Limits)}
}

func start(e area.Env) (*area.Live, error) {
	a, err := New(depsOf(e))
	if err != nil {
		return nil, err
	}
	stores, err := storesCounter(e.Metrics)
	if err != nil {
		return nil, err
	}
	rs := a.Routes()
	for i := range rs {
		if rs[i].Path == PathStore {
			rs[i].Counted = func(outcome string) { stores.WithLabelValues(outcome).Inc() }
		}
	}
	p := &page{db: e.Sys.DB(), log: e.Log.With("area", AreaName)}
	return &area.Live{Routes: rs,
		Reload: func(c *config.Config) { a.SetEnrollmentRates(area.Toggles(c.Limits)) },
		Pages:  []consolepage.Page{{Path: "/console/cloud", Title: "Cloud", Handler: http.HandlerFunc(p.show)}},
		AccountPanels: []consolepage.AccountPanel{{Summary: true, Template: bucketsTemplate,
			Data: func(_ *http.Request, acct *storage.Account) (any, error) { return buckets(e.Sys.DB(), acct.ID), nil }}},
	}, nil
}

// storesCounter is honmaster_cloud_stores_total, registered on reg (or
// the one a previous start registered there), every series at 0.
func storesCounter(reg prometheus.Registerer) (*prometheus.CounterVec, error) {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: metrics.Namespace, Name: "cloud_stores_total",
		Help: "Cloud settings uploads (" + PathStore + "), by outcome."}, []string{"outcome"})
	c, err := metrics.Register(reg, c)
	if err != nil {
		return nil, err
	}
	for _, o := range metrics.RequestOutcomes() {
		c.WithLabelValues(o)
	}
	return c, nil
}

//go:embed templates/page.html templates/buckets.html
var templates embed.FS

var (
	pageTemplate    = template.Must(template.ParseFS(templates, "templates/page.html"))
	bucketsTemplate = template.Must(template.ParseFS(templates, "templates/buckets.html"))
)

// pageTimeout bounds the console page's work.
const pageTimeout = 10 * time.Second

// page is the console's cloud page: an account's stored settings, as
// "cloud show" prints them.
type page struct {
	db  *storage.DB
	log *slog.Logger
}

func (p *page) show(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), pageTimeout)
	defer cancel()
	loginName, bucket := r.URL.Query().Get("login"), r.URL.Query().Get("bucket")
	if bucket == "" {
		bucket = DefaultBucket
	}
	var out bytes.Buffer
	if loginName != "" {
		if err := Show(ctx, p.db, loginName, bucket, &out); err != nil {
			r.URL.RawQuery += "&error=" + url.QueryEscape(pageError(err))
			out.Reset()
		}
	}
	data := struct{ Login, Bucket, Text string }{loginName, bucket, out.String()}
	if err := consolepage.RenderTemplate(w, r, "Cloud settings", pageTemplate, data); err != nil {
		p.log.Error("console: cloud page", "err", err)
	}
}

// pageError words a failure of Show for the page.
func pageError(err error) string {
	if errors.Is(err, storage.ErrNotFound) || errors.Is(err, actors.ErrNoAccount) {
		return "no such account"
	}
	return opmsg.Strip(err.Error())
}

// buckets are the account's buckets with stored settings, sorted (none
// when they cannot be read).
func buckets(db *storage.DB, id storage.AccountID) []string {
	sizes, err := Sizes(db, id)
	if err != nil {
		return nil
	}
	out := make([]string, 0, len(sizes))
	for b := range sizes {
		out = append(out, b)
	}
	sort.Strings(out)
	return out
}

// showRequest is "cloud show": an account's stored settings in Bucket.
type showRequest struct {
	Login  string `json:"login"`
	Bucket string `json:"bucket"`
}

func (r *showRequest) Validate() error {
	switch {
	case r.Login == "":
		return errors.New("--login is required")
	case r.Bucket == "":
		return errors.New("--bucket must not be empty")
	}
	return nil
}

func (r *showRequest) Run(ctx context.Context, e area.CommandEnv, out io.Writer) error {
	err := Show(ctx, e.Sys.DB(), r.Login, r.Bucket, out)
	switch {
	case errors.Is(err, ErrUnknownLogin) || errors.Is(err, storage.ErrNotFound) || errors.Is(err, actors.ErrNoAccount):
		return &area.OperatorError{Cause: err, Msg: fmt.Sprintf("no account has the login %q (logins are case-sensitive)", r.Login)}
	case errors.Is(err, ErrNothingStored):
		return &area.OperatorError{Cause: err, Msg: fmt.Sprintf("account %q has no settings stored in bucket %q", r.Login, r.Bucket)}
	}
	return err
}
