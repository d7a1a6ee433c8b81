package server

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/wire"
)

// freePort returns a loopback port nothing listened on a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestForwardedForThroughRealProxies: behind HAProxy ("option forwardfor":
// a line of its own), nginx ($proxy_add_x_forwarded_for: appended to the
// client's line) and Caddy (the client's header replaced), a client that
// sends X-Forwarded-For lines of its own is seen at the address the proxy
// appended (127.0.0.1 here), never at one it wrote. Each proxy whose
// program is not installed is skipped.
func TestForwardedForThroughRealProxies(t *testing.T) {
	cfg := config.Default()
	cfg.Server.TrustForwardedFor = true
	s := New(Deps{Config: cfg, Logger: newTestServer().log})
	if err := s.Mount(Route{Path: "/who", Area: "test", Handler: func(_ context.Context, r *wire.Request) Response {
		return Text("text/plain", r.RemoteIP)
	}}); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(ln)
	t.Cleanup(func() { s.Shutdown(context.Background()) })
	backend := ln.Addr().String()

	for _, p := range []struct {
		name, program string
		config        func(dir string, port int) (file string, args []string)
	}{
		{"haproxy", "haproxy", func(dir string, port int) (string, []string) {
			f := filepath.Join(dir, "haproxy.cfg")
			return f, []string{"haproxy", fmt.Sprintf("defaults\n  mode http\n  timeout connect 5s\n  timeout client 30s\n  timeout server 30s\n"+
				"frontend f\n  bind 127.0.0.1:%d\n  option forwardfor\n  default_backend b\nbackend b\n  server s %s\n", port, backend), "-f", f, "-db"}
		}},
		{"nginx", "nginx", func(dir string, port int) (string, []string) {
			f := filepath.Join(dir, "nginx.conf")
			return f, []string{"nginx", fmt.Sprintf("daemon off;\nmaster_process off;\npid %[1]s/nginx.pid;\nerror_log %[1]s/error.log;\nevents {}\nhttp {\n  access_log off;\n"+
				"  client_body_temp_path %[1]s; proxy_temp_path %[1]s; fastcgi_temp_path %[1]s; uwsgi_temp_path %[1]s; scgi_temp_path %[1]s;\n"+
				"  server { listen 127.0.0.1:%[2]d; location / { proxy_pass http://%[3]s; proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for; } }\n}\n",
				dir, port, backend), "-c", f, "-p", dir}
		}},
		{"caddy", "caddy", func(dir string, port int) (string, []string) {
			f := filepath.Join(dir, "Caddyfile")
			return f, []string{"caddy", fmt.Sprintf("{\n  admin off\n  storage file_system %s\n}\nhttp://127.0.0.1:%d {\n  reverse_proxy %s\n}\n", dir, port, backend),
				"run", "--config", f, "--adapter", "caddyfile"}
		}},
	} {
		t.Run(p.name, func(t *testing.T) {
			bin, err := exec.LookPath(p.program)
			if err != nil {
				t.Skipf("%s is not installed", p.program)
			}
			// freePort's port may be taken by another listener (other test
			// binaries run at once) before the proxy binds it: the proxy
			// then exits, and is started again on another port.
			for attempt := 1; ; attempt++ {
				if answered := proxyAnswer(t, p.name, bin, attempt, p.config); answered {
					return
				}
				if attempt == 3 {
					t.Fatalf("%s exited before answering, %d times", p.name, attempt)
				}
			}
		})
	}
}

// proxyAnswer starts the proxy program bin (named name) with the
// configuration config makes for a free port, sends it a request with
// X-Forwarded-For lines of the client's own, and checks the address the
// server saw. It returns false, having logged the proxy's output, when the
// proxy exited before answering (as when its port was taken first).
func proxyAnswer(t *testing.T, name, bin string, attempt int, config func(dir string, port int) (string, []string)) bool {
	t.Helper()
	dir, port := t.TempDir(), freePort(t)
	file, spec := config(dir, port)
	if err := os.WriteFile(file, []byte(spec[1]), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, spec[2:]...)
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
	// Output to a file, not a pipe (a pipe's reader would wait for
	// every process holding it), and a process group of its own,
	// killed whole at the end.
	logFile, err := os.Create(filepath.Join(dir, "out.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); <-exited })
	output := func() string { b, _ := os.ReadFile(logFile.Name()); return string(b) }
	req, _ := http.NewRequest("GET", fmt.Sprintf("http://127.0.0.1:%d/who", port), nil)
	req.Header.Add("X-Forwarded-For", "6.6.6.6")
	req.Header.Add("X-Forwarded-For", "7.7.7.7")
	c := &http.Client{Timeout: 10 * time.Second}
	deadline := time.Now().Add(time.Minute)
	for {
		r, err := c.Do(req)
		if err == nil {
			b, _ := io.ReadAll(r.Body)
			r.Body.Close()
			if r.StatusCode == 200 {
				if string(b) != "127.0.0.1" {
					t.Errorf("behind %s the client is %q, want 127.0.0.1 (the address the proxy appended)", name, b)
				}
				return true
			}
		}
		select {
		case <-exited:
			t.Logf("%s (attempt %d, port %d) exited before answering:\n%s", name, attempt, port, output())
			return false
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer within a minute: %v\n%s", name, err, output())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
