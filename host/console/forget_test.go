package console_test

import (
	"context"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/host/console"
)

// TestDeletedOperatorSignedOut: deleting an operator's account ends its
// console session at once.
func TestDeletedOperatorSignedOut(t *testing.T) {
	e := newEnv(t, console.Deps{})
	c := client(t)
	if status, page := e.signIn(t, c, "admin", "admin-pw"); status != 200 {
		t.Fatalf("sign-in: %d\n%s", status, page)
	}
	if _, page := get(t, c, e.srv.URL+"/console/"); !strings.Contains(page, "Players online") {
		t.Fatal("dashboard not reachable after sign-in")
	}
	if _, err := e.acc.Delete(context.Background(), "admin"); err != nil {
		t.Fatal(err)
	}
	if _, page := get(t, c, e.srv.URL+"/console/"); strings.Contains(page, "Players online") {
		t.Error("the deleted operator still reaches the dashboard")
	}
}
