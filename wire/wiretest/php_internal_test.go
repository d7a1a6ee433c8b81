package wiretest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestCheckPHP(t *testing.T) {
	php, err := exec.LookPath("php")
	if err != nil {
		t.Skip("php not installed")
	}
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		data string
		ok   bool
	}{
		"good":          {`a:2:{i:0;s:4:"true";i:1;s:1:"1";}`, true},
		"bad length":    {`a:1:{i:0;s:5:"abc";}`, false},
		"not canonical": {`a:1:{s:1:"0";b:1;}`, false}, // PHP makes "0" an integer key
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := checkPHP(php, path); (err == nil) != tc.ok {
			t.Errorf("%s: checkPHP = %v, want ok %v", name, err, tc.ok)
		}
	}
}
