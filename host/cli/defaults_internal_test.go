package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDefaultsFilePathsServed: every game path config/defaults.toml names
// (reports, patcher, cloud storage, registration ...) is one this build
// serves, so the file never promises a path that answers 404. Paths of the
// operator listener (/metrics, /console/ ...) are not game routes, nor are
// etcd keys (cluster.etcd_prefix, /honmaster/<name>).
func TestDefaultsFilePathsServed(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "config", "defaults.toml"))
	if err != nil {
		t.Fatal(err)
	}
	eps := routeTable(t)
	notRoutes := []string{"/metrics", "/debug/", "/operator/", "/console/", "/honmaster/"}
	named := regexp.MustCompile(`(?:^|[\s("'`+"`"+`])(/[a-z0-9_]+[a-z0-9_./]*)`).FindAllStringSubmatch(string(text), -1)
	checked := 0
	for _, m := range named {
		p := strings.TrimRight(m[1], ".")
		if strings.ContainsAny(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") || p == "/" {
			continue
		}
		notRoute := false
		for _, op := range notRoutes {
			notRoute = notRoute || strings.HasPrefix(p, op)
		}
		if notRoute {
			continue
		}
		served := false
		for _, e := range eps {
			served = served || e.Path == p || (strings.HasSuffix(p, "/") && strings.HasPrefix(e.Path, p))
		}
		if !served {
			t.Errorf("config/defaults.toml names %s, which this build does not serve", p)
		}
		checked++
		t.Logf("served: %s", p)
	}
	if checked < 5 {
		t.Fatalf("only %d paths found in the defaults file: the pattern is broken", checked)
	}
}
