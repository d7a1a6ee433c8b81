package config

import (
	"fmt"
	"strings"
)

// MemoryLimit is server.memory_limit, the Go runtime's soft memory limit
// (runtime/debug.SetMemoryLimit): "auto", "off", or a size such as
// "900MiB". With a limit the runtime collects garbage more often as the
// process nears it, instead of letting the heap grow to twice its live
// data (GOGC=100) between collections.
type MemoryLimit struct {
	// Auto derives the limit from the memory the process's cgroup allows
	// (none outside a memory-limited cgroup).
	Auto bool
	// Bytes is the limit when Auto is false; 0 is no limit.
	Bytes ByteSize
}

// MinMemoryLimit is the smallest explicit limit accepted: below it the
// runtime would collect almost continuously.
const MinMemoryLimit = 64 * MiB

// UnmarshalText parses "auto", "off" (or "0") or a size.
func (m *MemoryLimit) UnmarshalText(text []byte) error {
	switch strings.ToLower(strings.TrimSpace(string(text))) {
	case "auto":
		*m = MemoryLimit{Auto: true}
		return nil
	case "off", "0":
		*m = MemoryLimit{}
		return nil
	}
	b, err := parseByteSize(string(text))
	if err != nil {
		return fmt.Errorf(`invalid memory limit %q: want "auto", "off" or a size such as "900MiB"`, text)
	}
	*m = MemoryLimit{Bytes: b}
	return nil
}

// MarshalText writes "auto", "off" or the size.
func (m MemoryLimit) MarshalText() ([]byte, error) {
	switch {
	case m.Auto:
		return []byte("auto"), nil
	case m.Bytes == 0:
		return []byte("off"), nil
	}
	return m.Bytes.MarshalText()
}

func (m MemoryLimit) String() string {
	b, _ := m.MarshalText()
	return string(b)
}
