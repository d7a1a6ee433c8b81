package logflood

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// fakeClock is the clock and timer of a test: timers run when the test
// calls fire, never by themselves.
type fakeClock struct {
	now    time.Time
	timers []func()
}

func (c *fakeClock) Now() time.Time                      { return c.now }
func (c *fakeClock) AfterFunc(_ time.Duration, f func()) { c.timers = append(c.timers, f) }

func (c *fakeClock) fire() {
	ts := c.timers
	c.timers = nil
	for _, f := range ts {
		f()
	}
}

func newLogger(limit int) (*slog.Logger, *bytes.Buffer, *fakeClock) {
	var buf bytes.Buffer
	clock := &fakeClock{now: time.Unix(1000, 0)}
	h := NewHandler(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}),
		Options{Limit: limit, Window: 10 * time.Second, Now: clock.Now, AfterFunc: clock.AfterFunc})
	return slog.New(h), &buf, clock
}

func lines(buf *bytes.Buffer) []string {
	s := strings.TrimSpace(buf.String())
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// The storage engine's flood of issue 22 item 5: one error per object,
// each with its own number, thousands a second. The first few pass, then
// one summary when the window ends, even though the flood has stopped.
func TestNumberedFloodIsOneKind(t *testing.T) {
	log, buf, clock := newLogger(5)
	for i := range 1000 {
		log.Error(fmt.Sprintf("background error: open db/%06d.sst: too many open files", 100+i), "component", "pebble")
	}
	if got := lines(buf); len(got) != 5 {
		t.Fatalf("%d lines pass of 1000 of one kind, want 5:\n%s", len(got), buf)
	}
	buf.Reset()
	clock.now = clock.now.Add(10 * time.Second)
	clock.fire()
	got := lines(buf)
	if len(got) != 1 || !strings.Contains(got[0], "995 more log lines like this suppressed in 10s") ||
		!strings.Contains(got[0], "level=ERROR") || !strings.Contains(got[0], "suppressed=995") {
		t.Fatalf("summary:\n%s", buf)
	}
	// A new window: lines pass again.
	buf.Reset()
	log.Error("background error: open db/009999.sst: too many open files")
	if len(lines(buf)) != 1 {
		t.Errorf("the next window's first line did not pass:\n%s", buf)
	}
}

// A hung plugin: every call fails with the same message; another plugin's
// failures, other messages and lines below warning are not held back by it.
func TestKindsAreSeparate(t *testing.T) {
	log, buf, clock := newLogger(2)
	guides, plinko := log.With("plugin", "guides"), log.With("plugin", "plinko")
	for i := range 388 {
		guides.Error("guide request failed", "err", fmt.Sprintf("call %d: deadline exceeded", i))
		log.Debug("request", "n", i)
	}
	plinko.Error("guide request failed")
	log.Warn("guide request failed") // another level: another kind
	log.Error("storage commit failed")
	got := lines(buf)
	count := func(sub string) (n int) {
		for _, l := range got {
			if strings.Contains(l, sub) {
				n++
			}
		}
		return n
	}
	if n := count("plugin=guides"); n != 2 {
		t.Errorf("guides: %d lines pass, want 2", n)
	}
	if n := count("msg=request"); n != 388 {
		t.Errorf("debug lines: %d, want all 388", n)
	}
	if count("plugin=plinko") != 1 || count("level=WARN") != 1 || count("storage commit failed") != 1 {
		t.Errorf("other kinds held back:\n%s", buf)
	}
	// Lines of a kind after its window ended bring out its summary first,
	// before the timer runs.
	buf.Reset()
	clock.now = clock.now.Add(11 * time.Second)
	guides.Error("guide request failed")
	got = lines(buf)
	if len(got) != 2 || !strings.Contains(got[0], "386 more log lines like this suppressed") ||
		!strings.Contains(got[0], "plugin=guides") || !strings.Contains(got[1], "msg=\"guide request failed\"") {
		t.Errorf("after the window:\n%s", buf)
	}
	buf.Reset()
	clock.fire() // the window's timer finds nothing more to say
	if buf.Len() != 0 {
		t.Errorf("a summary written twice:\n%s", buf)
	}
}

func TestKindsBounded(t *testing.T) {
	log, buf, _ := newLogger(1)
	for i := range 3 * maxKinds {
		// Distinct messages without digits (digits would make one kind).
		log.Error("failure " + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676)))
	}
	h := log.Handler().(*Handler)
	if n := len(h.st.kinds); n > maxKinds+1 {
		t.Errorf("%d kinds remembered, bound %d", n, maxKinds)
	}
	if n := len(lines(buf)); n != maxKinds+1 {
		t.Errorf("%d lines passed for a flood of distinct messages, want one per kind remembered and one for the overflow", n)
	}
}

func TestOff(t *testing.T) {
	next := slog.NewTextHandler(&bytes.Buffer{}, nil)
	if NewHandler(next, Options{}) != slog.Handler(next) {
		t.Error("a zero limit does not turn the handler off")
	}
}

func TestShape(t *testing.T) {
	for in, want := range map[string]string{
		"open 000123.sst: errno 24":  "open #.sst: errno #",
		"no digits":                  "no digits",
		strings.Repeat("a", 500):     strings.Repeat("a", maxKeyMessage),
		"took 1.5ms for 10 requests": "took #.#ms for # requests",
	} {
		if got := shape(in); got != want {
			t.Errorf("shape(%q) = %q, want %q", in, got, want)
		}
	}
}
