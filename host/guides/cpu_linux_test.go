package guides_test

import (
	"bytes"
	"os"
	"strconv"
	"time"

	"github.com/honmaster/masterserver/host/internal/cpustat"
)

// cpuTime is the CPU time used so far by this process (the benchmark's
// load generator and the server) and by its running children (the plugin
// subprocesses), from getrusage and /proc. Per request, it compares a
// route with its ceiling without the noise of other processes' load.
func cpuTime() (time.Duration, bool) {
	t, ok := cpustat.Self()
	if !ok {
		return 0, false
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	me := os.Getpid()
	const ticks = 100 // USER_HZ, 100 on Linux
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + p.Name() + "/stat")
		if err != nil {
			continue
		}
		// Fields after the command's closing parenthesis: state, ppid, ...,
		// utime is the 12th and stime the 13th.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 13 {
			continue
		}
		if ppid, _ := strconv.Atoi(string(f[1])); ppid != me {
			continue
		}
		u, _ := strconv.ParseInt(string(f[11]), 10, 64)
		s, _ := strconv.ParseInt(string(f[12]), 10, 64)
		t += time.Duration(u+s) * time.Second / ticks
	}
	return t, true
}
