package loadtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of the CPU times in /proc/PID/stat (USER_HZ). It is
// 100 on every Linux architecture Go supports; reading it for sure takes
// sysconf(_SC_CLK_TCK), which needs cgo. Phases of seconds make its 10 ms
// resolution negligible.
const clockTick = 10 * time.Millisecond

// errNoProc marks a server whose CPU time cannot be read (no /proc, or no
// such process).
var errNoProc = errors.New("server CPU time unavailable")

// processTreeCPU returns the CPU time (user + system) the process pid and
// its descendants have used so far: pid's own utime+stime, the cutime+cstime
// of the children it has reaped (a plugin restarted mid-run still counts),
// and the utime+stime of every live descendant (the plugin processes), found
// through /proc/PID/task/TID/children. proc is the /proc mount ("/proc").
//
// A child that exits and is reaped while the tree is read moves its time
// from the live children to pid's cutime: read once, a sample could miss
// it (read among neither) or count it twice, and one phase's CPU went
// negative and the next's too high. The tree is read again until pid's
// reaped children's time is the same before and after (a few tries).
func processTreeCPU(proc string, pid int) (time.Duration, error) {
	var ticks int64
	for try := 0; ; try++ {
		before, err := readStat(proc, pid)
		if err != nil {
			return 0, fmt.Errorf("%w: %w", errNoProc, err)
		}
		ticks = treeTicks(proc, pid, before)
		after, err := readStat(proc, pid)
		if err != nil {
			return 0, fmt.Errorf("%w: %w", errNoProc, err)
		}
		if after.cutime+after.cstime == before.cutime+before.cstime || try == 4 {
			break
		}
	}
	return time.Duration(ticks) * clockTick, nil
}

// treeTicks is pid's CPU ticks (st, its stat) and its live descendants'.
func treeTicks(proc string, pid int, st procStat) int64 {
	ticks := st.utime + st.stime + st.cutime + st.cstime
	seen := map[int]bool{pid: true}
	queue := childrenOf(proc, pid)
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if seen[c] {
			continue
		}
		seen[c] = true
		cs, err := readStat(proc, c)
		if err != nil {
			continue // exited since it was listed: its time is in its parent's cutime once reaped
		}
		// A live child's own reaped children are its cutime.
		ticks += cs.utime + cs.stime + cs.cutime + cs.cstime
		queue = append(queue, childrenOf(proc, c)...)
	}
	return ticks
}

// procStat holds the CPU fields of /proc/PID/stat, in clock ticks.
type procStat struct {
	utime, stime, cutime, cstime int64
}

// readStat reads /proc/PID/stat (a var for tests).
var readStat = func(proc string, pid int) (procStat, error) {
	b, err := os.ReadFile(filepath.Join(proc, strconv.Itoa(pid), "stat"))
	if err != nil {
		return procStat{}, err
	}
	return parseStat(b)
}

// parseStat reads the CPU fields of a /proc/PID/stat line. The command name
// (field 2) is in parentheses and may hold spaces and parentheses itself, so
// the fields are counted from the last ')'.
func parseStat(b []byte) (procStat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, errors.New("stat: no command name")
	}
	// After ")": state(3) ppid(4) ... utime(14) stime(15) cutime(16) cstime(17).
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 15 {
		return procStat{}, fmt.Errorf("stat: %d fields after the command name, want at least 15", len(f))
	}
	var out procStat
	for k, p := range []*int64{&out.utime, &out.stime, &out.cutime, &out.cstime} {
		n, err := strconv.ParseInt(f[11+k], 10, 64)
		if err != nil {
			return procStat{}, fmt.Errorf("stat field %d: %w", 14+k, err)
		}
		*p = n
	}
	return out, nil
}

// childrenOf lists the live children of pid, over all its threads (each
// thread's children file lists the children it forked).
func childrenOf(proc string, pid int) []int {
	tasks, _ := filepath.Glob(filepath.Join(proc, strconv.Itoa(pid), "task", "*", "children"))
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, s := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(s); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}
