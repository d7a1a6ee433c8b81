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
	timeline []*second
	progress io.Writer
	done     chan struct{}
	wg       sync.WaitGroup
}

func newRecorder(progress io.Writer) *recorder {
	r := &recorder{start: time.Now(), ops: map[string]*opStats{}, progress: progress, done: make(chan struct{})}
	if progress != nil {
		r.wg.Add(1)
		go r.report()
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

func (r *recorder) record(name string, lat time.Duration, err error) {
	us := max(lat.Microseconds(), 1)
	r.mu.Lock()
	defer r.mu.Unlock()
	s := r.op(name)
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

func (r *recorder) setElapsed(name string, d time.Duration) {
	r.mu.Lock()
	r.op(name).elapsed = d
	r.mu.Unlock()
}

// report writes a status line every second until stop.
func (r *recorder) report() {
	defer r.wg.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var lastOK int64
	for {
		select {
		case <-r.done:
			fmt.Fprint(r.progress, "\r\033[K")
			return
		case <-t.C:
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
		fmt.Fprintf(r.progress, "\r\033[K%5.0fs  %d ok  %d/s  %d errors  p99 so far %s",
			time.Since(r.start).Seconds(), ok, ok-lastOK, errs, usDur(all.ValueAtQuantile(99)))
		lastOK = ok
	}
}

func (r *recorder) stop() {
	close(r.done)
	r.wg.Wait()
}

func usDur(us int64) time.Duration { return time.Duration(us) * time.Microsecond }
