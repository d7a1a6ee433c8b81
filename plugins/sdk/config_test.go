package sdk

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

type testDuration struct{ time.Duration }

func (d *testDuration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	d.Duration = v
	return err
}

type testConfig struct {
	After   int64        `json:"after"`
	Weight  float64      `json:"weight"`
	Name    string       `json:"name"`
	On      bool         `json:"on"`
	Every   testDuration `json:"every"`
	Tiers   []uint8      `json:"tiers"`
	Limits  testLimits   `json:"limits"`
	Ignored string       `json:"-"`
	hidden  int
}

type testLimits struct {
	Max int `json:"max"`
}

func (c *testConfig) Validate() []ConfigProblem {
	if c.After < 1 {
		return []ConfigProblem{{Key: "after", Message: "must be at least 1"}}
	}
	return nil
}

func TestDecodeConfig(t *testing.T) {
	defaults := testConfig{After: 5, Name: "d", hidden: 7}
	tests := []struct {
		name string
		cfg  map[string]any
		keys []string // problems' keys, nil: accepted
		want func(c testConfig) bool
	}{
		{"empty keeps the defaults", nil, nil, func(c testConfig) bool { return c.After == 5 && c.Name == "d" && c.hidden == 7 }},
		{"every kind", map[string]any{"after": float64(3), "weight": 0.5, "name": "x", "on": true, "every": "2s",
			"tiers": []any{float64(1), float64(2)}, "limits": map[string]any{"max": float64(9)}}, nil,
			func(c testConfig) bool {
				return c.After == 3 && c.Weight == 0.5 && c.Name == "x" && c.On && c.Every.Duration == 2*time.Second &&
					slices.Equal(c.Tiers, []uint8{1, 2}) && c.Limits.Max == 9
			}},
		{"unknown keys, nested too", map[string]any{"afterr": float64(1), "limits": map[string]any{"min": float64(1)}, "Ignored": "x"},
			[]string{"Ignored", "afterr", "limits.min"}, nil},
		{"wrong types", map[string]any{"after": 2.5, "name": float64(1), "on": "yes", "tiers": []any{float64(300)}, "every": "soon"},
			[]string{"after", "every", "name", "on", "tiers"}, nil},
		{"validated", map[string]any{"after": float64(0)}, []string{"after"}, nil},
		{"validated with a decoding problem", map[string]any{"after": float64(0), "on": "yes"}, []string{"after", "on"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := defaults
			ps := DecodeConfig(tt.cfg, &c)
			var keys []string
			for _, p := range ps {
				keys = append(keys, p.Key)
				if p.Message == "" || strings.Contains(p.Message, "json") || strings.Contains(p.Message, "sdk") {
					t.Errorf("%s: message %q is not for an operator", p.Key, p.Message)
				}
			}
			if !slices.Equal(keys, tt.keys) {
				t.Fatalf("problems %v, want keys %v", ps, tt.keys)
			}
			if tt.keys != nil && fmt.Sprint(c) != fmt.Sprint(defaults) {
				t.Errorf("refused configuration changed the value: %+v", c)
			}
			if tt.want != nil && !tt.want(c) {
				t.Errorf("decoded %+v", c)
			}
		})
	}
}

func TestDecodeConfigMessages(t *testing.T) {
	c := testConfig{}
	ps := DecodeConfig(map[string]any{"after": 2.5, "nope": float64(1)}, &c)
	if len(ps) != 2 {
		t.Errorf("%v: want one problem per key (after's refused value is not validated again)", ps)
	}
	got := fmt.Sprint(ps)
	for _, want := range []string{"after: must be a whole number, got 2.5", "nope: unknown key (known: after, every, limits, name, on, tiers, weight)"} {
		if !strings.Contains(got, want) {
			t.Errorf("%s does not say %q", got, want)
		}
	}
}

func TestConfigureWith(t *testing.T) {
	var adopted []testConfig
	configure := ConfigureWith(testConfig{After: 5}, func(c testConfig) { adopted = append(adopted, c) })
	if ps := configure(context.Background(), PickArea, map[string]any{"after": float64(0)}); len(ps) != 1 || len(adopted) != 0 {
		t.Fatalf("refused: %v, adopted %v", ps, adopted)
	}
	if ps := configure(context.Background(), PickArea, map[string]any{"name": "n"}); len(ps) != 0 || len(adopted) != 1 || adopted[0].After != 5 || adopted[0].Name != "n" {
		t.Fatalf("accepted: %v, adopted %+v", ps, adopted)
	}
}
