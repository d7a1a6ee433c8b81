package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// testSection is a section as an area outside this package declares one
// (RegisterSection); wantDefaults holds its defaults.
type testSection struct {
	Reward int      `toml:"reward"`
	Label  string   `toml:"label"`
	Every  Duration `toml:"every"`
}

func (s *testSection) Validate() error {
	if s.Reward < 0 {
		return errors.New("reward must be >= 0")
	}
	return nil
}

const testSectionName = "testarea"

// testTable is a top-level table as a built-in area declares one
// (RegisterTable), with a slice that configurations must not share.
type testTable struct {
	Cost  int   `toml:"cost"`
	Slots []int `toml:"slots"`
}

func (t *testTable) Validate() error {
	var errs []error
	if t.Cost <= 0 {
		errs = append(errs, KeyProblem("cost", "must be > 0"))
	}
	if len(t.Slots) != 3 {
		errs = append(errs, KeyProblem("slots", "must hold 3 slots, got %v", t.Slots))
	}
	return errors.Join(errs...)
}

const testTableName = "testtable"

// testTableOf reads the test table (RegisterTable's reader).
var testTableOf func(*Config) testTable

const testTableDoc = `# A built-in area's table.
[testtable]
# What one use costs.
cost = 66
# The slots, left to right.
slots = [3, 1, 2]
`

func init() {
	RegisterSection(testSectionName, testSection{Reward: 5, Label: "daily", Every: Duration{24 * time.Hour}})
	testTableOf = RegisterTable[testTable](testTableName, testTableDoc)
}

// TestTable: a registered top-level table has its defaults from its
// document, which the reference ends with; a file sets its keys as
// [testtable] (not [areas.testtable]); problems name "testtable.<key>";
// Changed names each changed key and Keep keeps one.
func TestTable(t *testing.T) {
	if ref := string(DefaultTOML()); !strings.HasSuffix(ref, testTableDoc) {
		t.Errorf("the reference does not end with the table's document:\n%s", ref[max(0, len(ref)-300):])
	}
	c, err := Load(writeFile(t, "[testtable]\nslots = [1, 2, 3]\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := testTableOf(c)
	if diff := cmp.Diff(testTable{Cost: 66, Slots: []int{1, 2, 3}}, got); diff != "" {
		t.Errorf("loaded table (-want +got):\n%s", diff)
	}
	_, err = Load(writeFile(t, "[testtable]\ncost = \"many\"\nnope = 1\n[areas.testtable]\ncost = 1\n"))
	keys := map[string]bool{}
	for _, p := range Problems(err) {
		keys[p.Key] = true
	}
	for _, k := range []string{"testtable.cost", "testtable.nope", "areas.testtable"} {
		if !keys[k] {
			t.Errorf("no problem for %s in %v", k, err)
		}
	}
	bad := Default()
	SetSection(bad, testTableName, testTable{Cost: 0, Slots: []int{1}})
	keys = map[string]bool{}
	for _, p := range Problems(bad.Validate()) {
		keys[p.Key] = true
	}
	if !keys["testtable.cost"] || !keys["testtable.slots"] || len(keys) != 2 {
		t.Errorf("Validate's problems: %v, want testtable.cost and testtable.slots", keys)
	}
	if diff := cmp.Diff([]string{"testtable.slots"}, Changed(Default(), c)); diff != "" {
		t.Errorf("Changed (-want +got):\n%s", diff)
	}
	next := Default()
	SetSection(next, testTableName, testTable{Cost: 70, Slots: []int{2, 3, 1}})
	Keep(next, c, []string{"testtable.slots"})
	kept, _ := Section[testTable](next, testTableName)
	if diff := cmp.Diff(testTable{Cost: 70, Slots: []int{1, 2, 3}}, kept); diff != "" {
		t.Errorf("Keep of one key (-want +got):\n%s", diff)
	}
}

func TestSectionDefaultsAndOverlay(t *testing.T) {
	c := Default()
	got, ok := Section[testSection](c, testSectionName)
	if !ok || got != (testSection{Reward: 5, Label: "daily", Every: Duration{24 * time.Hour}}) {
		t.Fatalf("default section = %+v, %v", got, ok)
	}
	c, err := Load(writeFile(t, "[areas.testarea]\nreward = 7\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, _ = Section[testSection](c, testSectionName)
	if diff := cmp.Diff(testSection{Reward: 7, Label: "daily", Every: Duration{24 * time.Hour}}, got); diff != "" {
		t.Errorf("a key the file sets changes, the others keep their defaults (-want +got):\n%s", diff)
	}
	// The file's value is the loaded configuration's own: another Default
	// still has the defaults.
	if d, _ := Section[testSection](Default(), testSectionName); d.Reward != 5 {
		t.Errorf("Load changed the defaults: %+v", d)
	}
	if _, ok := Section[int](c, testSectionName); ok {
		t.Error("Section of the wrong type said ok")
	}
}

func TestSectionProblemsNameTheirKeys(t *testing.T) {
	_, err := Load(writeFile(t, `
[areas.testarea]
reward = "many"
every = "soon"
colour = "blue"

[areas.nosuch]
x = 1
`))
	var keys []string
	for _, p := range Problems(err) {
		keys = append(keys, p.Key+": "+p.Msg)
	}
	got := strings.Join(keys, "\n")
	for _, want := range []string{"areas.testarea.reward: ", "areas.testarea.every: ", "areas.testarea.colour: unknown key",
		"areas.nosuch: unknown area (areas with settings here: testarea)"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems lack %q; got:\n%s", want, got)
		}
	}
}

func TestSectionValidateRuns(t *testing.T) {
	c, err := Load(writeFile(t, "[areas.testarea]\nreward = -1\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = c.Validate()
	if ps := Problems(err); len(ps) != 1 || ps[0].Key != "areas.testarea" || !strings.Contains(ps[0].Msg, "reward must be >= 0") {
		t.Errorf("Validate = %v, want one problem for areas.testarea", err)
	}
}

func TestSectionChangeNeedsNamedReloadKey(t *testing.T) {
	old := Default()
	c, err := Load(writeFile(t, "[areas.testarea]\nlabel = \"weekly\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := Changed(old, c); !cmp.Equal(got, []string{"areas.testarea"}) {
		t.Errorf("Changed = %v, want [areas.testarea]", got)
	}
	Keep(c, old, []string{"areas.testarea"})
	if s, _ := Section[testSection](c, testSectionName); s.Label != "daily" {
		t.Errorf("Keep left %+v", s)
	}
}
