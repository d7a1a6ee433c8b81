package loadtest

import (
	"strings"
	"testing"
)

// TestAreaCheckFailsTheRun: an area's own check that found a mismatch
// fails the consistency check, also once added from a converged try, and
// is said in the summary.
func TestAreaCheckFailsTheRun(t *testing.T) {
	var try Consistency
	ac := try.Area("matches", "match totals")
	ac.Checked, ac.OK, ac.Left = 3, 2, 1
	var c Consistency
	c.add(&try)
	if c.OK() {
		t.Fatalf("an area check with 2/3 passed: %s", c.Summary())
	}
	if s := c.Summary(); !strings.Contains(s, "match totals 2/3 (1 left out") {
		t.Errorf("summary %q", s)
	}
	c.Area("matches", "match totals").OK++
	if !c.OK() {
		t.Errorf("3/3 failed: %s", c.Summary())
	}
}
