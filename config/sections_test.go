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

func init() {
	RegisterSection(testSectionName, testSection{Reward: 5, Label: "daily", Every: Duration{24 * time.Hour}})
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
