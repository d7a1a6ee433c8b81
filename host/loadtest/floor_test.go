package loadtest

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestLoginFloor: each round's naive login floor is its modexps plus two of
// the login's no-op baseline in the round, and its ratio the login's
// server CPU per operation over it; a round missing the modexps or the
// no-op has no floor, a round missing either the floor or the login no
// ratio, and the median is over the rounds that have one. The text report
// states it in a line, each round's ratio in order ("-" for none).
func TestLoginFloor(t *testing.T) {
	us := func(vs ...int) []time.Duration {
		var out []time.Duration
		for _, v := range vs {
			out = append(out, time.Duration(v)*time.Microsecond)
		}
		return out
	}
	r := &Report{Rounds: 5, FloorCores: "0-1", ModExpCPURounds: us(1000, 1100, 1200, 0, 900)}
	// Round 2 (from 1) has no login figure, round 3 no no-op, round 4 no
	// modexps.
	login, noop := us(2200, 0, 2600, 2000, 3000), us(50, 50, 0, 50, 50)
	r.fillFloor(login, noop)
	r.Ops = []OpReport{{Name: "login", CPUPerOp: medianOf(login)}}
	wantFloors, wantRatios := us(1100, 1200, 0, 0, 1000), []float64{2, 0, 0, 0, 3}
	if !slices.Equal(r.LoginFloorRounds, wantFloors) || !slices.Equal(r.LoginFloorRatioRounds, wantRatios) || r.LoginFloorRatio != 2.5 ||
		r.ModExpCPU != 1050*time.Microsecond || r.LoginFloor != 1150*time.Microsecond {
		t.Errorf("floors %v, ratios %v (median %v), modexps %s, floor %s; want %v, %v (2.5), 1.05ms, 1.15ms",
			r.LoginFloorRounds, r.LoginFloorRatioRounds, r.LoginFloorRatio, r.ModExpCPU, r.LoginFloor, wantFloors, wantRatios)
	}
	want := "login floor: three math/big modexps 1050 µs (median over rounds, measured on cores 0-1 during each login phase) + two no-ops 100 µs = 1150 µs; " +
		"server CPU per login 2400 µs; 2.50 x the floor (median of the rounds' ratios: 2.00 - - - 3.00)"
	if got := r.floorLine(); got != want {
		t.Errorf("floor line\n%s\nwant\n%s", got, want)
	}

	// One round.
	one := &Report{Rounds: 1, FloorCores: "0", ModExpCPURounds: us(1000), Ops: []OpReport{{Name: "login", CPUPerOp: 3 * time.Millisecond}}}
	one.fillFloor(us(3000), us(250))
	want = "login floor: three math/big modexps 1000 µs (measured on cores 0 during the login phase) + two no-ops 500 µs = 1500 µs; " +
		"server CPU per login 3000 µs; 2.00 x the floor"
	if got := one.floorLine(); got != want {
		t.Errorf("floor line of one round\n%s\nwant\n%s", got, want)
	}

	// Not measured, and not asked for.
	failed := &Report{Rounds: 2, FloorCores: "7", ModExpCPURounds: us(0, 0), FloorUnavailable: "pinning a thread to cores [7]: invalid argument"}
	failed.fillFloor(us(3000, 3000), us(50, 50))
	if got := failed.floorLine(); got != "login floor: not measured: pinning a thread to cores [7]: invalid argument" || failed.LoginFloorRatioRounds != nil {
		t.Errorf("floor line of a failed measurement %q, ratios %v", got, failed.LoginFloorRatioRounds)
	}
	none := &Report{Rounds: 2}
	none.fillFloor(us(3000, 3000), us(50, 50))
	if none.floorLine() != "" || none.LoginFloorRounds != nil {
		t.Errorf("a run without the floor has a floor line %q, floors %v", none.floorLine(), none.LoginFloorRounds)
	}
}

// TestLoginFloorBracketed: in a bracketed run the floor's no-op baseline
// is the login's, the mean of the no-op phases on either side of its
// phase in the round, and the JSON report carries the figures.
func TestLoginFloorBracketed(t *testing.T) {
	rec := newRecorder(nil, false)
	// phase runs 10 operations of name costing the server perOp each.
	phase := func(name string, round int, perOp time.Duration) {
		for range 10 {
			rec.record(name, time.Millisecond, 0, nil)
		}
		rec.setPhase(name, round, time.Second, stoppedRequests, 10*perOp)
	}
	us := time.Microsecond
	phase("noop", 0, 40*us)
	phase("login", 0, 2000*us)
	phase("noop", 0, 60*us)
	phase("noop", 1, 50*us)
	phase("login", 1, 3300*us)
	phase("noop", 1, 50*us)
	rec.stop()
	r := &Report{Sequential: true, Rounds: 2, Bracket: true, FloorCores: "0", ModExpCPURounds: []time.Duration{900 * us, 1000 * us}}
	r.fill(rec)
	if !slices.Equal(r.LoginFloorRounds, []time.Duration{1000 * us, 1100 * us}) || r.LoginFloorRatio != 2.5 ||
		len(r.LoginFloorRatioRounds) != 2 || math.Abs(r.LoginFloorRatioRounds[0]-2) > 1e-9 || math.Abs(r.LoginFloorRatioRounds[1]-3) > 1e-9 ||
		r.LoginFloor != 1050*us {
		t.Errorf("floors %v, ratios %v (median %v), floor %s; want [1ms 1.1ms], [2 3] (2.5), 1.05ms",
			r.LoginFloorRounds, r.LoginFloorRatioRounds, r.LoginFloorRatio, r.LoginFloor)
	}
	j, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"modexp_cpu_ns_rounds":[900000,1000000]`, `"login_floor_ns_rounds":[1000000,1100000]`, `"login_floor_ratio":2.5`,
		`"floor_cores":"0"`} {
		if !strings.Contains(string(j), s) {
			t.Errorf("json report lacks %s:\n%s", s, j)
		}
	}
	var b strings.Builder
	r.WriteText(&b)
	if !strings.Contains(b.String(), "server CPU per login 2650 µs; 2.50 x the floor (median of the rounds' ratios: 2.00 3.00)") {
		t.Errorf("text report lacks the floor line:\n%s", b.String())
	}
}

// TestParseCores: core lists as taskset -c writes them, each core once;
// anything else is refused, saying what is wrong.
func TestParseCores(t *testing.T) {
	for in, want := range map[string][]int{"0": {0}, "0-1": {0, 1}, "0,2-3": {0, 2, 3}, " 1 , 1-2": {1, 2}} {
		if got, err := parseCores(in); err != nil || !slices.Equal(got, want) {
			t.Errorf("parseCores(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, why := range map[string]string{"": "not a core number", "a": "not a core number", "1-": "not a core number", "-1": "not a core number",
		"3-1": "runs backwards", "0,1024": "past the last one"} {
		if _, err := parseCores(in); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("parseCores(%q) = %v, want an error saying %q", in, err, why)
		}
	}
}
