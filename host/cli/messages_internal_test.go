package cli

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/internal/modfiles"
	"github.com/honmaster/masterserver/storage"
)

// A storage failure is worded for both backends: an uncertain commit is
// usually a lost connection on PostgreSQL, not a disk failure, and a lost
// database lock says what to do.
func TestStorageFailuresWordedForBothBackends(t *testing.T) {
	for _, c := range []struct {
		err  error
		want []string
	}{
		{fmt.Errorf("storage: commit: %w", storage.ErrCommitUncertain), []string{"disk", "connection to PostgreSQL", "may or may not"}},
		{fmt.Errorf("storage: commit: %w", storage.ErrPostgresLockLost), []string{"lost its lock", "nothing changed", "restart"}},
		{fmt.Errorf("storage: commit: %w", storage.ErrUnavailable), []string{"cannot be reached", "nothing changed", "retry"}},
	} {
		msg := explain(c.err)
		assertNoPrefix(t, c.err.Error(), msg)
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%v is explained as %q; want it to say %q", c.err, msg, w)
			}
		}
	}
}

// TestDetailedKindsMadeTyped: every error of a kind whose specifics an
// operator reads (specifics, detail.Of) is made with detail.New, none with
// fmt.Errorf: an error of the kind without a typed detail would show its
// whole text (specifics) or none (the console). Each kind must have a
// detail.New producer, so that the list cannot go stale.
func TestDetailedKindsMadeTyped(t *testing.T) {
	const mod = "github.com/honmaster/masterserver/"
	kinds := map[[2]string]int{ // {package path, name}: detail.New producers
		{"host/accounts", "ErrBadImportLine"}: 0, {"host/accounts", "ErrBadGrant"}: 0,
		{"storage", "ErrPostgresURL"}: 0, {"storage", "ErrPostgresUnreachable"}: 0,
		{"storage", "ErrTargetNotEmpty"}: 0, {"storage", "ErrCopyMismatch"}: 0,
		{"host/plinko", "ErrCatalog"}: 0, {"host/client", "ErrLogin"}: 0,
		{"host/reports", "ErrUsage"}: 0, {"host/reports", "ErrBadReportID"}: 0, {"host/reports", "ErrAlreadyResolved"}: 0,
		{"host/cli", "errUsage"}: 0,
	}
	root := filepath.Join("..", "..")
	files := 0
	err := modfiles.Walk(root, func(path string) error {
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		rel = filepath.ToSlash(rel)
		imports := map[string]string{} // name in the file -> package path in the module
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			name := p[strings.LastIndex(p, "/")+1:]
			if imp.Name != nil {
				name = imp.Name.Name
			}
			imports[name] = strings.TrimPrefix(p, mod)
		}
		kindOf := func(e ast.Expr) ([2]string, bool) {
			var k [2]string
			switch e := e.(type) {
			case *ast.Ident:
				k = [2]string{rel, e.Name}
			case *ast.SelectorExpr:
				if x, ok := e.X.(*ast.Ident); ok {
					k = [2]string{imports[x.Name], e.Sel.Name}
				}
			}
			_, ok := kinds[k]
			return k, ok
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, _ := sel.X.(*ast.Ident)
			switch {
			case x != nil && x.Name == "fmt" && sel.Sel.Name == "Errorf":
				for _, a := range call.Args[1:] {
					if k, ok := kindOf(a); ok {
						t.Errorf("%s: fmt.Errorf makes an error of %s.%s: use detail.New", path, k[0], k[1])
					}
				}
			case x != nil && imports[x.Name] == "host/failure/detail" && sel.Sel.Name == "New":
				if k, ok := kindOf(call.Args[0]); ok {
					kinds[k]++
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d files under %s", files, root)
	}
	for k, n := range kinds {
		if n == 0 {
			t.Errorf("%s.%s: no detail.New makes it; is it still a kind an operator reads the detail of?", k[0], k[1])
		}
	}
}

// closedPort returns the address of a loopback port nothing listens on:
// a connection to it is refused at once.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// TestNetFailureWorded: a request that got no answer is a sentence that
// names the address and what to check, not Go's "Post "...": dial tcp"
// (issue found in an operator review), whether a command words it with
// its flag (netFailure) or it reaches explain unworded.
func TestNetFailureWorded(t *testing.T) {
	base := "http://" + closedPort(t)
	_, refused := http.Post(base+"/client_requester.php?f=pre_auth", "text/plain", nil)
	if refused == nil {
		t.Fatal("a closed port answered")
	}
	dnsErr := &url.Error{Op: "Post", URL: "http://nowhere.invalid:8080/x", Err: &net.OpError{Op: "dial", Net: "tcp",
		Err: &net.DNSError{Err: "no such host", Name: "nowhere.invalid", IsNotFound: true}}}
	timeout := &url.Error{Op: "Post", URL: "http://127.0.0.1:8080/x", Err: context.DeadlineExceeded}
	reset := &url.Error{Op: "Post", URL: "http://127.0.0.1:8080/x", Err: &net.OpError{Op: "read", Net: "tcp",
		Err: os.NewSyscallError("read", syscall.ECONNRESET)}}
	for _, c := range []struct {
		err       error
		flag      string
		want      string
		generally string // explain's words, without the flag
	}{
		{refused, "--server", "could not reach the server at " + base + " (connection refused): is it running, and is --server right?",
			"could not reach " + base + " (connection refused): is it running, and is its address right?"},
		{fmt.Errorf("register lt0: %w", refused), "--target", "could not reach the server at " + base + " (connection refused): is it running, and is --target right?", ""},
		{dnsErr, "--server", "could not reach the server at http://nowhere.invalid:8080 (no such host): is --server right?",
			"could not reach http://nowhere.invalid:8080 (no such host): is its address right?"},
		{timeout, "--server", "the server at http://127.0.0.1:8080 did not answer in time", "http://127.0.0.1:8080 did not answer in time"},
		{reset, "--server", "no answer from the server at http://127.0.0.1:8080 (connection reset by peer)", ""},
	} {
		msg, ok := netFailure(c.err, "the server", c.flag)
		if !ok || !strings.HasPrefix(msg, c.want) {
			t.Errorf("%v is worded %q, %t; want %q", c.err, msg, ok, c.want)
		}
		general := explain(c.err)
		if c.generally != "" && !strings.HasPrefix(general, c.generally) {
			t.Errorf("%v is explained %q; want %q", c.err, general, c.generally)
		}
		for _, m := range []string{msg, general} {
			if strings.Contains(m, "Post") || strings.Contains(m, "dial tcp") || strings.Contains(m, "/client_requester.php") || strings.Contains(m, "the command failed") {
				t.Errorf("%v is worded %q: Go's words in front of the operator", c.err, m)
			}
		}
	}
	if _, ok := netFailure(errors.New("reply is not PHP"), "the server", "--server"); ok {
		t.Error("an error that is no network failure is worded as one")
	}
}

// TestExpiredWorded: an expired change was refused before it ran (nothing
// written), so the command says so; only a timeout leaves the outcome
// unknown.
func TestExpiredWorded(t *testing.T) {
	for err, want := range map[error]string{
		fmt.Errorf("grant: %w", actors.ErrExpired): "the server was too busy to get to the command in time; nothing was changed, try again",
		fmt.Errorf("grant: %w", actors.ErrTimeout): "the server did not answer in time; the command may or may not have been applied (check, then retry)",
	} {
		if got := explain(err); got != want {
			t.Errorf("explain(%q) = %q, want %q", err, got, want)
		}
	}
}
