package plinko_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/honmaster/masterserver/plugins/plinko"
)

func TestMain(m *testing.M) {
	if os.Getenv("PLINKO_TEST_SERVE") == "1" {
		plinko.Serve()
	}
	os.Exit(m.Run())
}

// The bundled plugin refuses to run without the host's handshake (the
// magic cookie), so a user running "honmaster plugin plinko" by hand gets a
// clear message instead of a silent server.
func TestServeRefusesToRunByHand(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "PLINKO_TEST_SERVE=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("run by hand: err = %v, want exit status 1", err)
	}
	if !bytes.Contains(stderr.Bytes(), []byte("This binary is a plugin")) {
		t.Fatalf("stderr = %q, want go-plugin's explanation", stderr.String())
	}
}
