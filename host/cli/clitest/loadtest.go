package clitest

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/honmaster/masterserver/host/loadtest"
	"github.com/honmaster/masterserver/host/operator"
)

// LoadTestOptions returns load-test options against s with its operator API
// and the mix (loadtest.ParseMix), bounded by two minutes: the caller sets
// the accounts, concurrency and requests. Start s with LoadTestLimits.
func LoadTestOptions(t testing.TB, s *Server, mix string) loadtest.Options {
	t.Helper()
	tok, err := os.ReadFile(filepath.Join(s.DataDir, operator.TokenFile))
	if err != nil {
		t.Fatal(err)
	}
	m, err := loadtest.ParseMix(mix)
	if err != nil {
		t.Fatal(err)
	}
	return loadtest.Options{Targets: []string{s.Client.Base}, Operator: "http://" + s.Runtime.OperatorAddr.String(),
		Token: strings.TrimSpace(string(tok)), Mix: m, Duration: 2 * time.Minute}
}

// RowOK is the named row's successful operations (0 without the row).
func RowOK(rep *loadtest.Report, name string) int64 {
	if op := rep.Op(name); op != nil {
		return op.OK
	}
	return 0
}

// RunKillingPlugin runs the load test o while area's plugin is killed twice,
// 0.7 s apart, and returns its report (logged). The test fails when the
// plugin was never killed.
//
// The first kill comes 0.7 s after the load tester starts the operations
// (its "running" line), not after it was called: setting the accounts up
// can take longer than both kills together on a loaded machine (then no
// operation met a missing plugin), and a kill during the set-up could fail
// the run itself.
func (s *Server) RunKillingPlugin(t *testing.T, area string, o loadtest.Options) *loadtest.Report {
	t.Helper()
	running, finished := make(chan struct{}), make(chan struct{})
	o.Log = &startSignal{next: o.Log, running: running}
	done := make(chan struct{})
	kills := 0
	go func() {
		defer close(done)
		select {
		case <-running:
		case <-finished:
			return // the run ended before its operations (it failed)
		}
		for i := 0; i < 2; i++ {
			time.Sleep(700 * time.Millisecond)
			if s.killPlugin(t, area) {
				kills++
			}
		}
	}()
	rep, err := loadtest.Run(context.Background(), o)
	close(finished)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	rep.WriteText(&b)
	t.Log("\n" + b.String())
	if kills == 0 {
		t.Fatalf("the %s plugin was never killed", area)
	}
	return rep
}

// startSignal passes the load tester's log lines on to next (when not nil)
// and closes running at the line that says the operations start.
type startSignal struct {
	next    io.Writer
	running chan struct{}
	once    sync.Once
}

func (w *startSignal) Write(p []byte) (int, error) {
	if bytes.HasPrefix(p, []byte("running ")) {
		w.once.Do(func() { close(w.running) })
	}
	if w.next != nil {
		return w.next.Write(p)
	}
	return len(p), nil
}

// pluginPID reads the PID of area's plugin from "honmaster plugins".
func (s *Server) pluginPID(t *testing.T, area string) int {
	t.Helper()
	for _, line := range strings.Split(s.Host(t, "plugins"), "\n") {
		f := strings.Fields(line)
		if len(f) >= 4 && f[0] == area && f[3] == "running" {
			pid, _ := strconv.Atoi(f[2])
			return pid
		}
	}
	return 0
}

// killPlugin kills area's plugin and waits (bounded) for its restart.
func (s *Server) killPlugin(t *testing.T, area string) bool {
	pid := s.pluginPID(t, area)
	if pid == 0 || syscall.Kill(pid, syscall.SIGKILL) != nil {
		return false
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if p := s.pluginPID(t, area); p != 0 && p != pid {
			break
		}
	}
	return true
}
