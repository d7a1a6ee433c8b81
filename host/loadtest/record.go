package loadtest

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram range: 1 µs to 2 minutes, 3 significant digits.
const (
	histMin    = 1
	histMax    = int64(2 * time.Minute / time.Microsecond)
	histDigits = 3
)

// opStats are one operation's figures.
type opStats struct {
	hist    *hdrhistogram.Histogram // latency of successful operations, µs
	ok      int64
	errs    int64
	kinds   map[string]int64
	first   map[string]string // first error detail per kind
	elapsed time.Duration
	retried int64 // requests sent again after a stale keep-alive connection (transport)
	stopped string
	// counted is how many operations the operation's rows (its fallback
	// rows included) had when its last phase ended: the next phase's
	// operations are those counted past it.
	counted int64
}

// phaseCPU is the server's CPU time during one phase, and the operations
// of that phase (fallbacks and failures included).
type phaseCPU struct {
	cpu time.Duration // < 0: not measured
	ops int64
}

// perOp is the phase's CPU time per operation (0: not measured, or no
// operation).
func (p phaseCPU) perOp() time.Duration {
	if p.cpu < 0 || p.ops <= 0 {
		return 0
	}
	return p.cpu / time.Duration(p.ops)
}

// phase is one phase of the run, as recorded when it ended: the operation
// of the mix it ran (its fallback rows included), its round, and the
// server's CPU time during it. A run of one operation alone, or a mixed
// run, records one phase per operation of the mix in round 0.
type phase struct {
	name  string
	round int
	cpu   phaseCPU
}

// second is one second of the run, all operations together.
type second struct {
	ok, errs int64
	hist     *hdrhistogram.Histogram
}

// recorder collects results from every sender.
type recorder struct {
	mu       sync.Mutex
	start    time.Time
	ops      map[string]*opStats
	phases   []phase // in the order they ended
	timeline []*second
	progress io.Writer
	tty      bool
	done     chan struct{}
	wg       sync.WaitGroup
}

// Progress intervals: a terminal's line is rewritten every second; a log
// or a pipe gets a line every logProgressEvery, enough to see a long run
// move without flooding it.
const (
	ttyProgressEvery = time.Second
	logProgressEvery = 5 * time.Second
)

func newRecorder(progress io.Writer, tty bool) *recorder {
	every := logProgressEvery
	if tty {
		every = ttyProgressEvery
	}
	var ticks <-chan time.Time
	var stopTicker func()
	if progress != nil {
		t := time.NewTicker(every)
		ticks, stopTicker = t.C, t.Stop
	}
	return newRecorderTicks(progress, tty, ticks, stopTicker)
}

// newRecorderTicks is newRecorder with the progress ticks given (tests).
func newRecorderTicks(progress io.Writer, tty bool, ticks <-chan time.Time, stopTicks func()) *recorder {
	r := &recorder{start: time.Now(), ops: map[string]*opStats{}, progress: progress, tty: tty, done: make(chan struct{})}
	if progress != nil {
		r.wg.Add(1)
		go r.report(ticks, stopTicks)
	}
	return r
}

func (r *recorder) op(name string) *opStats {
	s := r.ops[name]
	if s == nil {
		s = &opStats{hist: hdrhistogram.New(histMin, histMax, histDigits), kinds: map[string]int64{}, first: map[string]string{}}
		r.ops[name] = s
	}
	return s
}

func (r *recorder) record(name string, lat time.Duration, retried int64, err error) {
	us := max(lat.Microseconds(), 1)
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.op(name)
	s.retried += retried
	sec := int(time.Since(r.start) / time.Second)
	for len(r.timeline) <= sec {
		r.timeline = append(r.timeline, &second{hist: hdrhistogram.New(histMin, histMax, 2)})
	}
	t := r.timeline[sec]
	if err != nil {
		s.errs++
		t.errs++
		k := kindOf(err)
		s.kinds[k]++
		if _, ok := s.first[k]; !ok {
			s.first[k] = err.Error()
		}
		return
	}
	s.ok++
	t.ok++
	_ = s.hist.RecordValue(min(us, histMax))
	_ = t.hist.RecordValue(min(us, histMax))
}

// setPhase records that a phase of the operation name in that round ended:
// how long it ran (added to the operation's time over all its phases), why
// it stopped, and the server's CPU time meanwhile (cpu < 0: not measured);
// its fallback rows (fallbackRows) ran in the same phase. An operation may
// have several phases in a round (the no-op of a bracketed run).
func (r *recorder) setPhase(name string, round int, d time.Duration, stopped string, cpu time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rows := []string{name}
	for row, of := range fallbackRows {
		if of == name {
			rows = append(rows, row)
		}
	}
	var n int64
	for _, row := range rows {
		if s := r.ops[row]; s != nil {
			n += s.ok + s.errs
		}
	}
	for _, row := range rows[1:] {
		if s := r.ops[row]; s != nil {
			s.stopped = stopped
		}
	}
	s := r.op(name)
	s.elapsed += d
	s.stopped = stopped
	r.phases = append(r.phases, phase{name: name, round: round, cpu: phaseCPU{cpu: cpu, ops: n - s.counted}})
	s.counted = n
}

// report writes a status line on every tick until stop.
func (r *recorder) report(ticks <-chan time.Time, stopTicks func()) {
	defer r.wg.Done()
	if stopTicks != nil {
		defer stopTicks()
	}
	var lastOK int64
	last := r.start
	for {
		var now time.Time
		select {
		case <-r.done:
			if r.tty {
				fmt.Fprint(r.progress, "\r\033[K")
			}
			return
		case now = <-ticks:
		}
		r.mu.Lock()
		var ok, errs int64
		all := hdrhistogram.New(histMin, histMax, 2)
		for _, s := range r.ops {
			ok += s.ok
			errs += s.errs
			all.Merge(s.hist)
		}
		r.mu.Unlock()
		rate := float64(ok-lastOK) / max(now.Sub(last).Seconds(), 1e-3)
		line := fmt.Sprintf("%5.0fs  %d ok  %.0f/s  %d errors  p99 so far %s",
			now.Sub(r.start).Seconds(), ok, rate, errs, usDur(all.ValueAtQuantile(99)))
		if r.tty {
			fmt.Fprint(r.progress, "\r\033[K"+line)
		} else {
			fmt.Fprintln(r.progress, line)
		}
		lastOK, last = ok, now
	}
}

func (r *recorder) stop() {
	close(r.done)
	r.wg.Wait()
}

func usDur(us int64) time.Duration { return time.Duration(us) * time.Microsecond }
