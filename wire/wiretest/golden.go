// Package wiretest checks PHP-serialized reply fixtures for tests outside
// package wire: each case is marshalled, compared byte for byte with its
// golden file, read back by wire.Unmarshal, and round-tripped by real PHP
// (unserialize then serialize must give the same bytes), as wire's own
// golden tests do. Without php the PHP check skips, except under CI=true
// where it fails, because CI installs php-cli.
package wiretest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/honmaster/masterserver/wire"
)

// Case is one reply value and the name of its fixture, dir/<Name>.golden.
// Keys, when set, are the top-level keys PHP must see, in order (integer
// keys written as decimal text).
type Case struct {
	Name  string
	Value any
	Keys  []string
}

// Golden checks every case against dir/<name>.golden; with update it first
// rewrites the files from Marshal. It also fails on a .golden file in dir
// that no case names, so stale fixtures do not linger.
func Golden(t *testing.T, dir string, update bool, cases []Case) {
	t.Helper()
	names := map[string]bool{}
	for _, tc := range cases {
		names[tc.Name+".golden"] = true
		t.Run(tc.Name, func(t *testing.T) {
			got, err := wire.Marshal(tc.Value)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			for range 3 {
				if again, err := wire.Marshal(tc.Value); err != nil || !bytes.Equal(again, got) {
					t.Fatalf("Marshal is not stable:\n%s\n%s", got, again)
				}
			}
			path := filepath.Join(dir, tc.Name+".golden")
			if update {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run the test with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("Marshal differs from %s\n got %s\nwant %s", path, got, want)
			}
			v, err := wire.Unmarshal(want)
			if err != nil {
				t.Fatalf("Unmarshal(%s): %v", path, err)
			}
			if re, err := wire.Marshal(v); err != nil || !bytes.Equal(re, want) {
				t.Fatalf("Marshal(Unmarshal(%s)) = %s, %v", path, re, err)
			}
			if tc.Keys != nil {
				arr, ok := v.(*wire.Array)
				if !ok || arr.Len() != len(tc.Keys) {
					t.Fatalf("%s: not an array of %d entries", path, len(tc.Keys))
				}
			}
			keys := PHPRoundTrip(t, path)
			if tc.Keys != nil && keys != nil && !slices.Equal(keys, tc.Keys) {
				t.Fatalf("PHP sees keys\n%v\nwant\n%v", keys, tc.Keys)
			}
		})
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.golden"))
	for _, f := range files {
		if !names[filepath.Base(f)] {
			t.Errorf("%s has no case; delete it or add the case", f)
		}
	}
}

// phpArgs runs php without php.ini so that no local setting changes the
// output; serialize_precision=-1 is PHP 8's default.
var phpArgs = []string{"-n", "-d", "serialize_precision=-1", "-d", "display_errors=stderr", "-d", "error_reporting=-1"}

const phpRoundTrip = `
$x = file_get_contents($argv[1]);
$v = unserialize($x, ["allowed_classes" => false]);
if ($v === false && $x !== serialize(false)) {
	fwrite(STDERR, "unserialize returned false\n");
	exit(2);
}
$y = serialize($v);
if ($y !== $x) {
	echo "serialize(unserialize(x)) differs:\n", $y, "\n";
	var_dump($v);
	exit(3);
}
if (is_array($v)) {
	echo json_encode(array_map("strval", array_keys($v)));
}
`

// PHPRoundTrip checks that real PHP unserializes the file at path and
// serializes it back to the same bytes, and returns the top-level keys PHP
// sees when the value is an array (nil otherwise).
func PHPRoundTrip(t *testing.T, path string) []string {
	t.Helper()
	php, err := exec.LookPath("php")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("php not installed, but CI=true: CI must install php-cli to check the golden fixtures")
		}
		t.Skip("php not installed: golden fixtures not checked by PHP")
	}
	keys, err := checkPHP(php, path)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// checkPHP runs the round trip with the php binary at php and returns the
// array's keys as PHP printed them.
func checkPHP(php, path string) ([]string, error) {
	args := append(append([]string{}, phpArgs...), "-r", phpRoundTrip, path)
	cmd := exec.Command(php, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("php rejects %s: %v\n%s%s", path, err, out, stderr.Bytes())
	}
	if len(out) == 0 {
		return nil, nil
	}
	var keys []string
	if err := json.Unmarshal(out, &keys); err != nil {
		return nil, fmt.Errorf("php printed %q for %s: %v", out, path, err)
	}
	return keys, nil
}
