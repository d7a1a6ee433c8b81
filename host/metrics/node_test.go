package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestSetNodeLabelsEverySeries(t *testing.T) {
	m := New()
	m.SetNode("n1")
	m.WatchCluster(func() ClusterStats { return ClusterStats{Members: 3, Forwarded: 7} })
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	lines := 0
	for _, l := range strings.Split(string(body), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		lines++
		if !strings.Contains(l, `node="n1"`) {
			t.Errorf("series without the node label: %s", l)
		}
	}
	if lines == 0 || !strings.Contains(string(body), `honmaster_cluster_members{node="n1"} 3`) {
		t.Errorf("no cluster series in:\n%s", body)
	}
}
