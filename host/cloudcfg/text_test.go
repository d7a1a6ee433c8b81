package cloudcfg

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

// TestWriteTextGolden lists testdata/sample.cfg parsed leniently and compares
// the result with testdata/sample.golden. Run with -update to rewrite it.
func TestWriteTextGolden(t *testing.T) {
	f, err := Parse(readTestdata(t, "sample.cfg"), Lenient)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	var got bytes.Buffer
	if err := f.WriteText(&got); err != nil {
		t.Fatalf("WriteText: %v", err)
	}
	var again bytes.Buffer
	if err := f.WriteText(&again); err != nil || !bytes.Equal(got.Bytes(), again.Bytes()) {
		t.Fatalf("WriteText output is not stable (err %v)", err)
	}

	golden := filepath.Join("testdata", "sample.golden")
	if *update {
		if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := readTestdata(t, "sample.golden")
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("WriteText differs from %s (run go test -update to accept):\n--- got\n%s\n--- want\n%s", golden, got.Bytes(), want)
	}
}

func TestWriteTextEscapes(t *testing.T) {
	f := &File{
		Settings: []Setting{{Name: "evil", Value: "\x1b[2Jcleared\ttab", Flag: true}},
		Rebinds:  []Rebind{{Name: "A", Command: "B", Kind: "button", Context: "game", Key1: "invalid", Key2: "Q"}},
		Unknown:  []Line{{Number: 7, Text: "Exec \"\x07\"", Err: syntaxf("unknown command %q", "Exec")}},
	}
	var buf bytes.Buffer
	if err := f.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, r := range out {
		if r < ' ' && r != '\n' {
			t.Fatalf("control character %q reached the listing:\n%s", r, out)
		}
	}
	for _, want := range []string{
		`"\x1b[2Jcleared\ttab"`,
		"(unbound)",
		`""`,
		"Binds (0)\n  (none)\n",
		`unknown command "Exec"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("listing lacks %q:\n%s", want, out)
		}
	}
}

func TestWriteTextEmpty(t *testing.T) {
	var buf bytes.Buffer
	if err := (&File{}).WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	want := "Settings (0)\n  (none)\n\nRebinds (0)\n  (none)\n\nBinds (0)\n  (none)\n\nUnrecognised lines (0)\n  (none)\n"
	if buf.String() != want {
		t.Errorf("got\n%q\nwant\n%q", buf.String(), want)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteTextWriterError(t *testing.T) {
	f, err := Parse(readTestdata(t, "sample.cfg"), Lenient)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.WriteText(failWriter{}); err == nil {
		t.Error("WriteText hid the writer's error")
	}
}
