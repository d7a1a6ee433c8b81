package sdk

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedCodeIsFresh regenerates internal/pb into a temporary
// directory and compares it with the committed files. It skips where the
// protoc tools are missing (CI); run it where they are installed.
func TestGeneratedCodeIsFresh(t *testing.T) {
	gopath, _ := exec.Command("go", "env", "GOPATH").Output()
	path := os.Getenv("PATH") + string(os.PathListSeparator) + filepath.Join(string(bytes.TrimSpace(gopath)), "bin")
	t.Setenv("PATH", path)
	for _, tool := range []string{"protoc", "protoc-gen-go", "protoc-gen-go-grpc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipping: %s not installed", tool)
		}
	}
	out := t.TempDir()
	cmd := exec.Command("protoc", "--proto_path=proto",
		"--go_out="+out, "--go_opt=paths=source_relative",
		"--go-grpc_out="+out, "--go-grpc_opt=paths=source_relative",
		"proto/plugin.proto", "proto/plinko.proto", "proto/guides.proto", "proto/reports.proto")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("protoc: %v\n%s", err, b)
	}
	for _, name := range []string{"plugin.pb.go", "plugin_grpc.pb.go", "plinko.pb.go", "guides.pb.go", "reports.pb.go"} {
		want, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("internal", "pb", name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("internal/pb/%s is stale: run PATH=$PATH:/root/go/bin go generate ./plugins/sdk", name)
		}
	}
}
