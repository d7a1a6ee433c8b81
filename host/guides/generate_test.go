package guides

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedRecordsAreFresh regenerates internal/guidespb into a
// temporary directory and compares it with the committed file. It skips
// where protoc or protoc-gen-go is missing; run it where they are.
func TestGeneratedRecordsAreFresh(t *testing.T) {
	gopath, _ := exec.Command("go", "env", "GOPATH").Output()
	t.Setenv("PATH", os.Getenv("PATH")+string(os.PathListSeparator)+filepath.Join(string(bytes.TrimSpace(gopath)), "bin"))
	for _, tool := range []string{"protoc", "protoc-gen-go"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipping: %s not installed", tool)
		}
	}
	out := t.TempDir()
	cmd := exec.Command("protoc", "--proto_path=proto", "--go_out="+out, "--go_opt=paths=source_relative", "proto/guides_records.proto")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("protoc: %v\n%s", err, b)
	}
	want, err := os.ReadFile(filepath.Join(out, "guides_records.pb.go"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("internal", "guidespb", "guides_records.pb.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("internal/guidespb/guides_records.pb.go is stale: run sh host/guides/proto/gen.sh")
	}
}
