package area

import (
	"context"
	"errors"
	"flag"
	"io"
	"testing"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// TestLoginFlag: --login is declared, required, and names an account or
// says there is none in the operator's words.
func TestLoginFlag(t *testing.T) {
	db, err := storage.Open("", &storage.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	sys := actors.New(db, actors.Options{})
	t.Cleanup(sys.Shutdown)
	acct, err := sys.CreateAccount(context.Background(), &actors.NewAccount{Login: "ida", Account: storage.Account{Nickname: "ida"}})
	if err != nil {
		t.Fatal(err)
	}
	var l LoginFlag
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	l.Flag(fs)
	if err := fs.Parse(nil); err != nil || l.Validate() == nil {
		t.Fatalf("no --login: parse %v, Validate %v; want refused", err, l.Validate())
	}
	if err := fs.Parse([]string{"--login", "ida"}); err != nil || l.Validate() != nil {
		t.Fatalf("--login ida: parse %v, Validate %v", err, l.Validate())
	}
	env := CommandEnv{Sys: sys}
	if id, err := l.Account(env); err != nil || id != acct.ID {
		t.Errorf("Account = %v, %v; want %v", id, err, acct.ID)
	}
	l.Login = "nobody"
	var oe *OperatorError
	if _, err := l.Account(env); !errors.As(err, &oe) || oe.Msg != `no account "nobody"` || !errors.Is(err, storage.ErrNotFound) {
		t.Errorf("Account of nobody = %v", err)
	}
}
