package cli_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
)

// TestMetricsZeroSeriesAndActivity: a fresh server exposes build_info and
// every area's plugin call series, the registration, report, cloud store
// and console sign-in counters at 0; a registration counts.
func TestMetricsZeroSeriesAndActivity(t *testing.T) {
	ts := start(t, nil)
	m := scrape(t, ts)
	var build string
	for series, v := range m {
		if strings.HasPrefix(series, "honmaster_build_info{") && v == 1 {
			build = series
		}
	}
	if !strings.Contains(build, `version="`) || !strings.Contains(build, `goversion="go`) {
		t.Errorf("build_info = %q", build)
	}
	for _, series := range []string{
		`honmaster_plugin_calls_total{area="plinko",method="drop",outcome="ok"}`,
		`honmaster_plugin_calls_total{area="reports",method="assess",outcome="timeout"}`,
		`honmaster_registrations_total{outcome="ok"}`,
		`honmaster_reports_filed_total{outcome="ok",route="/rap/report2.php"}`,
		`honmaster_cloud_stores_total{outcome="refused"}`,
		`honmaster_console_signins_total{outcome="limited"}`,
		`honmaster_logins_total{outcome="wrong_password"}`,
	} {
		if v, ok := m[series]; !ok || v != 0 {
			t.Errorf("%s = %v (present %v), want 0 at start", series, v, ok)
		}
	}
	if _, err := ts.Client.PostForm(context.Background(), "/portal/register", url.Values{"login": {"counted"}, "password": {"pw"}}); err != nil {
		t.Fatal(err)
	}
	if v := scrape(t, ts)[`honmaster_registrations_total{outcome="ok"}`]; v != 1 {
		t.Errorf("registrations_total{ok} after one registration = %v", v)
	}
}
