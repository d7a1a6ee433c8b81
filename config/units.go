package config

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Duration is a time.Duration written in TOML as a Go duration string
// ("60s", "5m", "24h"). A bare number is rejected: the unit is required.
type Duration struct {
	time.Duration
}

// durationForm is the form time.ParseDuration reads; a text of that form
// it refuses is too large.
// Each number holds a digit ("5m", ".5s", "5.m"): a unit alone ("s") is
// malformed, not too large.
var durationForm = regexp.MustCompile(`^[-+]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`)

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(text []byte) error {
	t := strings.TrimSpace(string(text))
	v, err := time.ParseDuration(t)
	if err != nil {
		if durationForm.MatchString(t) {
			// Well formed, but past what a duration holds.
			return fmt.Errorf("duration %q is too large: at most %s", text, Duration{math.MaxInt64})
		}
		return fmt.Errorf("invalid duration %q (want e.g. \"60s\", \"5m\", \"24h\")", text)
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration in the shortest form that parses back to
// the same value ("24h", not "24h0m0s").
func (d Duration) MarshalText() ([]byte, error) {
	return []byte(d.String()), nil
}

// String is like time.Duration.String without trailing zero units.
func (d Duration) String() string {
	s := d.Duration.String()
	// "24h0m0s" -> "24h0m" -> "24h"; "2m0s" -> "2m". Only strip a zero that
	// stands alone after another unit, never the last digit of "30s".
	if strings.HasSuffix(s, "m0s") || strings.HasSuffix(s, "h0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// ByteSize is a number of bytes written in TOML either as an integer
// (1048576) or as a string with a unit ("512KiB", "1MiB"). KiB, MiB, GiB and
// TiB are powers of 1024; KB, MB, GB and TB are powers of 1000; B is bytes.
// Units are matched without regard to case.
type ByteSize int64

// Common sizes.
const (
	Byte ByteSize = 1
	KiB           = 1024 * Byte
	MiB           = 1024 * KiB
	GiB           = 1024 * MiB
	TiB           = 1024 * GiB
)

var byteUnits = []struct {
	name string
	size ByteSize
}{
	// Longest names first so "KiB" is not read as "B".
	{"kib", KiB}, {"mib", MiB}, {"gib", GiB}, {"tib", TiB},
	{"kb", 1000}, {"mb", 1000 * 1000}, {"gb", 1000 * 1000 * 1000}, {"tb", 1000 * 1000 * 1000 * 1000},
	{"b", Byte},
}

var errByteSize = errors.New(`want a whole number of bytes, optionally with a unit: "512KiB", "1MiB", 1048576`)

// UnmarshalText parses a size such as "512KiB", "1 MiB", "10MB" or "1024".
func (b *ByteSize) UnmarshalText(text []byte) error {
	v, err := parseByteSize(string(text))
	if err != nil {
		return fmt.Errorf("invalid size %q: %w", text, err)
	}
	*b = v
	return nil
}

func parseByteSize(s string) (ByteSize, error) {
	s = strings.TrimSpace(s)
	num, unit := s, Byte
	lower := strings.ToLower(s)
	for _, u := range byteUnits {
		if strings.HasSuffix(lower, u.name) {
			num, unit = strings.TrimSpace(s[:len(s)-len(u.name)]), u.size
			break
		}
	}
	if num == "" || strings.ContainsAny(num, "+-") {
		return 0, errByteSize
	}
	n, err := strconv.ParseUint(num, 10, 63)
	if err != nil {
		return 0, errByteSize
	}
	if n > uint64(math.MaxInt64/int64(unit)) {
		return 0, errors.New("too large")
	}
	return ByteSize(n) * unit, nil
}

// MarshalText writes the size with the largest binary unit that divides it
// exactly ("512KiB", "1MiB"), or in bytes ("1000B").
func (b ByteSize) MarshalText() ([]byte, error) {
	return []byte(b.String()), nil
}

// String formats the size as MarshalText does.
func (b ByteSize) String() string {
	for _, u := range []struct {
		name string
		size ByteSize
	}{{"TiB", TiB}, {"GiB", GiB}, {"MiB", MiB}, {"KiB", KiB}} {
		if b != 0 && b%u.size == 0 {
			return strconv.FormatInt(int64(b/u.size), 10) + u.name
		}
	}
	return strconv.FormatInt(int64(b), 10) + "B"
}
