package cli_test

import (
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
)

// TestShutdownWithIdleKeepAlive leaves many idle keep-alive connections open
// (and the spare ones HTTP clients dial) and checks that a graceful stop
// closes them instead of waiting for its timeout.
func TestShutdownWithIdleKeepAlive(t *testing.T) {
	// The timeout is far beyond what a stop takes even on a loaded machine
	// (plugins, actors and storage included: under a second), so only a
	// stop that waits for it fails the check below.
	ts := start(t, func(c *config.Config) { c.Server.ShutdownTimeout = config.Duration{Duration: time.Minute} })
	tr := &http.Transport{MaxIdleConnsPerHost: 100}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	var wg sync.WaitGroup
	for i := 0; i < 64; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := hc.Get(ts.Client.Base + "/healthz")
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, r.Body)
			r.Body.Close()
		}()
	}
	wg.Wait()
	began := time.Now()
	if err := ts.Runtime.Stop(); err != nil {
		t.Fatalf("stop with idle keep-alive connections: %v", err)
	}
	d := time.Since(began)
	t.Logf("stopped in %s", d)
	// Quiet connections are closed at once: the stop must not run into the
	// timeout (the rest is plugins and actors stopping).
	if d >= ts.Config.Server.ShutdownTimeout.Duration/2 {
		t.Errorf("stop took %s", d)
	}
}
