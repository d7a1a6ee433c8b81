package config

import (
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
)

func TestDuration(t *testing.T) {
	tests := []struct {
		in      string
		want    time.Duration
		wantOut string // MarshalText; "" = error expected
	}{
		{"24h", 24 * time.Hour, "24h"},
		{"60s", time.Minute, "1m"},
		{"2m", 2 * time.Minute, "2m"},
		{"1h30m", 90 * time.Minute, "1h30m"},
		{"1h0m30s", time.Hour + 30*time.Second, "1h0m30s"},
		{"30s", 30 * time.Second, "30s"},
		{"250ms", 250 * time.Millisecond, "250ms"},
		{" 5s ", 5 * time.Second, "5s"},
		{"0s", 0, "0s"},
		{"-10s", -10 * time.Second, "-10s"},
		{"60", 0, ""},
		{"", 0, ""},
		{"five seconds", 0, ""},
		{"5 s", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var d Duration
			err := d.UnmarshalText([]byte(tt.in))
			if tt.wantOut == "" {
				if err == nil {
					t.Fatalf("UnmarshalText(%q) = %v, want error", tt.in, d)
				}
				if !strings.Contains(err.Error(), "invalid duration") {
					t.Errorf("error %q", err)
				}
				return
			}
			if err != nil || d.Duration != tt.want {
				t.Fatalf("UnmarshalText(%q) = %v, %v; want %v", tt.in, d.Duration, err, tt.want)
			}
			out, _ := d.MarshalText()
			if string(out) != tt.wantOut {
				t.Errorf("MarshalText = %q, want %q", out, tt.wantOut)
			}
			var back Duration
			if err := back.UnmarshalText(out); err != nil || back != d {
				t.Errorf("round trip %q -> %v, %v", out, back, err)
			}
		})
	}
}

func TestByteSize(t *testing.T) {
	tests := []struct {
		in      string
		want    ByteSize
		wantOut string // MarshalText; "" = error expected
	}{
		{"512KiB", 512 * KiB, "512KiB"},
		{"1MiB", MiB, "1MiB"},
		{"4MiB", 4 * MiB, "4MiB"},
		{"1 GiB", GiB, "1GiB"},
		{"2TiB", 2 * TiB, "2TiB"},
		{"1536KiB", 1536 * KiB, "1536KiB"},
		{"1024", KiB, "1KiB"},
		{"1000", 1000, "1000B"},
		{"1000B", 1000, "1000B"},
		{"0", 0, "0B"},
		{"10kb", 10000, "10000B"},
		{"1MB", 1000 * 1000, "1000000B"},
		{"2mib", 2 * MiB, "2MiB"},
		{"", 0, ""},
		{"KiB", 0, ""},
		{"-1", 0, ""},
		{"+1", 0, ""},
		{"1.5MiB", 0, ""},
		{"12 parsecs", 0, ""},
		{"1XiB", 0, ""},
		{"9223372036854775807", 1<<63 - 1, "9223372036854775807B"},
		{"9223372036854775808", 0, ""},
		{"8388608TiB", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var b ByteSize
			err := b.UnmarshalText([]byte(tt.in))
			if tt.wantOut == "" {
				if err == nil {
					t.Fatalf("UnmarshalText(%q) = %d, want error", tt.in, b)
				}
				if !strings.Contains(err.Error(), "invalid size") {
					t.Errorf("error %q", err)
				}
				return
			}
			if err != nil || b != tt.want {
				t.Fatalf("UnmarshalText(%q) = %d, %v; want %d", tt.in, b, err, tt.want)
			}
			out, _ := b.MarshalText()
			if string(out) != tt.wantOut {
				t.Errorf("MarshalText = %q, want %q", out, tt.wantOut)
			}
			var back ByteSize
			if err := back.UnmarshalText(out); err != nil || back != b {
				t.Errorf("round trip %q -> %d, %v", out, back, err)
			}
		})
	}
}

// TestUnitsInTOML checks the forms a TOML file can use: strings for both,
// and a bare integer for a size only.
func TestUnitsInTOML(t *testing.T) {
	type doc struct {
		D Duration `toml:"d"`
		B ByteSize `toml:"b"`
	}
	tests := []struct {
		in      string
		want    doc
		wantErr bool
	}{
		{`d = "5m"` + "\n" + `b = "1MiB"`, doc{Duration{5 * time.Minute}, MiB}, false},
		{`b = 1048576`, doc{B: MiB}, false},
		{`b = -1`, doc{}, true},
		{`b = 1.5`, doc{}, true},
		{`d = 60`, doc{}, true},
		{`d = true`, doc{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			var got doc
			_, err := toml.Decode(tt.in, &got)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Decode: %v, wantErr %v", err, tt.wantErr)
			}
			if !tt.wantErr && got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestMemoryLimit(t *testing.T) {
	tests := []struct {
		in      string
		want    MemoryLimit
		wantErr bool
	}{
		{"auto", MemoryLimit{Auto: true}, false},
		{"AUTO", MemoryLimit{Auto: true}, false},
		{"off", MemoryLimit{}, false},
		{"0", MemoryLimit{}, false},
		{"900MiB", MemoryLimit{Bytes: 900 * MiB}, false},
		{"2GiB", MemoryLimit{Bytes: 2 * GiB}, false},
		{"lots", MemoryLimit{}, true},
		{"-1MiB", MemoryLimit{}, true},
	}
	for _, tt := range tests {
		var m MemoryLimit
		err := m.UnmarshalText([]byte(tt.in))
		if (err != nil) != tt.wantErr || m != tt.want {
			t.Errorf("%q: %+v, %v; want %+v (error %v)", tt.in, m, err, tt.want, tt.wantErr)
			continue
		}
		if err != nil {
			continue
		}
		var back MemoryLimit
		if b, _ := m.MarshalText(); back.UnmarshalText(b) != nil || back != m {
			t.Errorf("%q: %s does not read back", tt.in, b)
		}
	}
	c := Default()
	c.Server.MemoryLimit = MemoryLimit{Bytes: 10 * MiB}
	if err := c.Validate(); err == nil {
		t.Error("a 10MiB limit validated")
	}
}

// TestDurationTooLargeSaysSo: a duration of the right form past what a
// duration holds is refused as too large, not as malformed.
func TestDurationTooLargeSaysSo(t *testing.T) {
	var d Duration
	err := d.UnmarshalText([]byte("9999999h"))
	if err == nil || !strings.Contains(err.Error(), "too large: at most 2562047h") {
		t.Errorf("9999999h: %v", err)
	}
	if err := d.UnmarshalText([]byte("5 minutes")); err == nil || !strings.Contains(err.Error(), "invalid duration") {
		t.Errorf("5 minutes: %v", err)
	}
}

// TestDurationWithoutANumber: a unit without a number ("s", ".s", "m",
// "5m s") is malformed; it was reported as too large, which sent the
// operator looking for a smaller number. (From a review; failed before.)
func TestDurationWithoutANumber(t *testing.T) {
	for _, text := range []string{"s", ".s", "m", "5m s", "+h"} {
		var d Duration
		err := d.UnmarshalText([]byte(text))
		if err == nil || strings.Contains(err.Error(), "too large") || !strings.Contains(err.Error(), "invalid duration") {
			t.Errorf("%q: %v; want an invalid duration", text, err)
		}
	}
	var d Duration
	if err := d.UnmarshalText([]byte(".5s")); err != nil || d.Duration != 500*time.Millisecond {
		t.Errorf(".5s: %v %v", d, err)
	}
}
