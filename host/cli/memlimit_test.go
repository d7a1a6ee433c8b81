package cli

import (
	"slices"
	"testing"

	"github.com/honmaster/masterserver/config"
)

func TestMemoryLimit(t *testing.T) {
	const gib = int64(config.GiB)
	tests := []struct {
		name    string
		setting config.MemoryLimit
		cgroup  int64
		want    int64
	}{
		{"auto outside a cgroup limit: none", config.MemoryLimit{Auto: true}, 0, 0},
		{"auto in a 2GiB cgroup: 80% less Pebble's 64+2*2 MiB", config.MemoryLimit{Auto: true}, 2 * gib, 2*gib/10*8 - 68<<20},
		{"auto in a tiny cgroup: 64MiB at least", config.MemoryLimit{Auto: true}, 160 << 20, 64 << 20},
		{"explicit wins over the cgroup", config.MemoryLimit{Bytes: 900 * config.MiB}, 2 * gib, 900 << 20},
		{"off", config.MemoryLimit{}, 2 * gib, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Server.MemoryLimit = tt.setting
			got, why := memoryLimit(cfg, func() int64 { return tt.cgroup })
			if got != tt.want || why == "" {
				t.Errorf("memoryLimit = %d (%s), want %d", got, why, tt.want)
			}
		})
	}
}

func TestParseCgroupMax(t *testing.T) {
	for in, want := range map[string]int64{"max\n": 0, "1073741824\n": 1 << 30, "9223372036854771712": 0, "": 0, "junk": 0} {
		if got := parseCgroupMax(in); got != want {
			t.Errorf("parseCgroupMax(%q) = %d, want %d", in, got, want)
		}
	}
}

// TestCgroupMemoryFiles: the limit is looked for in the process's own
// cgroup first (a systemd service's MemoryMax=), v2 and v1, then at the
// mount's root (a container).
func TestCgroupMemoryFiles(t *testing.T) {
	root := []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"}
	for in, want := range map[string][]string{
		"0::/system.slice/honmaster.service\n": append([]string{"/sys/fs/cgroup/system.slice/honmaster.service/memory.max"}, root...),
		"12:cpu,memory:/system.slice/honmaster.service\n1:name=systemd:/x\n": append(
			[]string{"/sys/fs/cgroup/memory/system.slice/honmaster.service/memory.limit_in_bytes"}, root...),
		"0::/\n": root,
		"":       root,
	} {
		if got := cgroupMemoryFiles(in); !slices.Equal(got, want) {
			t.Errorf("cgroupMemoryFiles(%q) = %q, want %q", in, got, want)
		}
	}
}
