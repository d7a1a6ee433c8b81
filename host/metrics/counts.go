package metrics

import (
	"errors"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/plugins/sdk"
)

// Outcomes of a console sign-in (honmaster_console_signins_total).
const (
	SignInOK      = "ok"
	SignInRefused = "refused" // wrong login or password, or not an operator
	SignInLimited = "limited" // too many failures (limits.console_signin_*)
	SignInError   = "error"   // the account could not be read
)

// activity are the counters of what players and operators do, fed from
// the request observer (by route) and the console.
type activity struct {
	registrations *prometheus.CounterVec
	signIns       *prometheus.CounterVec
}

// requestOutcomes are the outcomes Outcome gives besides the login ones.
var requestOutcomes = []string{OutcomeOK, OutcomeRefused, OutcomeError, OutcomeNotFound, OutcomeClientError, OutcomeServerError}

// RequestOutcomes are the outcomes a route's request may count as
// (server.Route.Counted), besides the login ones: an area's own counters
// create their series at 0 with them.
func RequestOutcomes() []string { return slices.Clone(requestOutcomes) }

// pluginOutcomes are the outcomes pluginOutcome gives.
var pluginOutcomes = []string{"ok", "unavailable", "invalid", "failed", "timeout"}

func (m *Metrics) registerActivity() {
	a := &m.act
	a.registrations = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "registrations_total",
		Help: "Registrations through the portal (/portal/register), by outcome."}, []string{"outcome"})
	a.signIns = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "console_signins_total",
		Help: "Web console sign-ins, by outcome (ok, refused, limited, error)."}, []string{"outcome"})
	build := prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Name: "build_info",
		Help: "Always 1; the labels say which build runs (module version, VCS revision, Go version)."}, []string{"version", "revision", "goversion"})
	version, revision, goVersion := buildInfo()
	build.WithLabelValues(version, revision, goVersion).Set(1)
	m.Registry.MustRegister(a.registrations, a.signIns, build)

	// Every series a dashboard or an alert may divide by exists from the
	// start at 0, so that rate() and absent() work before the first event.
	for _, o := range requestOutcomes {
		a.registrations.WithLabelValues(o)
	}
	for _, o := range []string{SignInOK, SignInRefused, SignInLimited, SignInError} {
		a.signIns.WithLabelValues(o)
	}
	m.logins.WithLabelValues(OutcomeOK)
	for _, o := range loginOutcomes {
		m.logins.WithLabelValues(o)
	}
	for _, via := range []string{"login", "switch"} {
		m.sessions.WithLabelValues(via)
	}
	for _, area := range sdk.Areas() {
		for _, d := range area.Decisions() {
			for _, o := range pluginOutcomes {
				// method as Caller records it: the decision's name
				// without its area.
				m.pluginCalls.WithLabelValues(string(area), strings.TrimPrefix(d.Name, string(area)+"."), o)
			}
		}
	}
}

// observeActivity counts a request by what it did.
func (m *Metrics) observeActivity(r *server.RequestInfo, outcome string) {
	switch r.Route {
	case server.PathRegister:
		m.act.registrations.WithLabelValues(outcome).Inc()
	}
}

// ObserveConsoleSignIn counts a console sign-in by outcome (SignInOK ...).
func (m *Metrics) ObserveConsoleSignIn(outcome string) {
	if m != nil {
		m.act.signIns.WithLabelValues(outcome).Inc()
	}
}

// buildInfo is the module version, VCS revision and Go version the binary
// was built with ("unknown" for what it does not record).
func buildInfo() (version, revision, goVersion string) {
	version, revision, goVersion = "unknown", "unknown", "unknown"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return
	}
	if info.Main.Version != "" {
		version = info.Main.Version
	}
	goVersion = info.GoVersion
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && s.Value != "" {
			revision = s.Value
		}
	}
	return
}

// Register registers c on reg and returns it, or returns the collector of
// the same type registered there before under the same description (an
// area started again on the same registry keeps its counts).
func Register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	err := reg.Register(c)
	if err == nil {
		return c, nil
	}
	var are prometheus.AlreadyRegisteredError
	if errors.As(err, &are) {
		if old, ok := are.ExistingCollector.(C); ok {
			return old, nil
		}
	}
	return c, err
}
