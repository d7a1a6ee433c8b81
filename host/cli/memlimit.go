package cli

import (
	"log/slog"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/host/gcfloor"
)

// applyMemoryLimit sets the Go runtime's soft memory limit from
// server.memory_limit (see config/defaults.toml). GOMEMLIMIT, when set,
// wins: the runtime has applied it already. Only serve calls it: the limit
// is the whole process's.
func applyMemoryLimit(cfg *config.Config, log *slog.Logger) {
	if v := os.Getenv("GOMEMLIMIT"); v != "" {
		log.Info("memory limit from GOMEMLIMIT", "GOMEMLIMIT", v)
		return
	}
	limit, why := memoryLimit(cfg, cgroupMemoryMax)
	if limit <= 0 {
		log.Debug("no memory limit", "why", why)
		return
	}
	debug.SetMemoryLimit(limit)
	log.Info("memory limit", "limit", config.ByteSize(limit).String(), "from", why)
}

// applyGCPercent sets GOGC to server.gc_percent, unless GOGC is set in the
// environment (the runtime has applied it already).
func applyGCPercent(percent int, log *slog.Logger) {
	if os.Getenv("GOGC") != "" || percent <= 0 {
		return
	}
	debug.SetGCPercent(percent)
	log.Debug("garbage collector", "gc_percent", percent)
}

// applyGCHeapFloor keeps the collector from running before the heap reaches
// floor bytes (see package gcfloor); GOGC, when set, wins. The floor lasts
// as long as the process.
func applyGCHeapFloor(floor config.ByteSize, log *slog.Logger) {
	switch {
	case gcfloor.Start(uint64(max(floor, 0))) != nil:
		log.Debug("garbage collector heap floor", "floor", floor.String())
	case os.Getenv("GOGC") != "":
		log.Info("garbage collector from GOGC", "GOGC", os.Getenv("GOGC"))
	}
}

// memoryLimit computes the limit (0: none) and says where it comes from.
// cgroupMax reads the process's cgroup memory limit (0: none).
func memoryLimit(cfg *config.Config, cgroupMax func() int64) (int64, string) {
	m := cfg.Server.MemoryLimit
	if !m.Auto {
		if m.Bytes == 0 {
			return 0, "server.memory_limit is off"
		}
		return int64(m.Bytes), "server.memory_limit"
	}
	cg := cgroupMax()
	if cg <= 0 {
		return 0, "server.memory_limit is auto and no cgroup memory limit applies"
	}
	// Pebble's block cache and memtables are allocated outside the Go heap;
	// the plugin processes and the kernel's own share come out of the 20%.
	limit := cg/10*8 - int64(cfg.Storage.CacheSize) - 2*int64(cfg.Storage.MemTableSize)
	limit = max(limit, cg/4, int64(config.MinMemoryLimit))
	return limit, "server.memory_limit auto: 80% of the cgroup limit " + config.ByteSize(cg).String() +
		" less storage.cache_size and two storage.memtable_size"
}

// cgroupMemoryMax reads the memory limit of the process's cgroup (v2
// memory.max, else v1 memory.limit_in_bytes): first of the cgroup
// /proc/self/cgroup names (a systemd service with MemoryMax= runs in
// /sys/fs/cgroup/system.slice/NAME.service), then at the mount's root,
// which inside a container is the container's own. 0 when there is none.
func cgroupMemoryMax() int64 {
	self, _ := os.ReadFile("/proc/self/cgroup")
	for _, f := range cgroupMemoryFiles(string(self)) {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		return parseCgroupMax(string(b))
	}
	return 0
}

// cgroupMemoryFiles lists the files that may hold the process's memory
// limit, most specific first, from the text of /proc/self/cgroup: the v2
// line "0::PATH" and the v1 line naming the memory controller
// ("N:memory:PATH" or "N:cpu,memory:PATH").
func cgroupMemoryFiles(procSelfCgroup string) []string {
	var own []string
	for _, line := range strings.Split(procSelfCgroup, "\n") {
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 || parts[2] == "/" || !strings.HasPrefix(parts[2], "/") {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			own = append(own, "/sys/fs/cgroup"+parts[2]+"/memory.max")
		case slices.Contains(strings.Split(parts[1], ","), "memory"):
			own = append(own, "/sys/fs/cgroup/memory"+parts[2]+"/memory.limit_in_bytes")
		}
	}
	return append(own, "/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes")
}

// parseCgroupMax reads a cgroup memory limit: "max" (v2) or a value of
// 2^62 or more (v1's "unlimited") is none.
func parseCgroupMax(s string) int64 {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n <= 0 || n >= 1<<62 {
		return 0
	}
	return n
}
