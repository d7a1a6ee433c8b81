package sdk

import (
	"errors"
	"strconv"
	"testing"
)

// TestConfiguredAdoptsOnlyAGoodTable: Configure adopts a table without
// problems, and a refused one leaves the configuration in force.
func TestConfiguredAdoptsOnlyAGoodTable(t *testing.T) {
	c := NewConfigured(testConfig{After: 5})
	if got := c.Get().After; got != 5 {
		t.Fatalf("before Configure: after %d, want the default 5", got)
	}
	if ps := c.Configure(t.Context(), "x", map[string]any{"after": int64(9)}); len(ps) != 0 || c.Get().After != 9 {
		t.Fatalf("after = 9: problems %v, in force %d", ps, c.Get().After)
	}
	if ps := c.Configure(t.Context(), "x", map[string]any{"after": int64(0)}); len(ps) != 1 || c.Get().After != 9 {
		t.Errorf("after = 0: problems %v, in force %d (want refused, 9 kept)", ps, c.Get().After)
	}
	// A table leaving a key out takes the default, not the last value.
	if ps := c.Configure(t.Context(), "x", map[string]any{}); len(ps) != 0 || c.Get().After != 5 {
		t.Errorf("an empty table: problems %v, in force %d, want the default 5", ps, c.Get().After)
	}
}

// TestStateOfAHandWrittenCodec: a state whose codec has no message still
// decodes and checks; Message says there is none to print.
func TestStateOfAHandWrittenCodec(t *testing.T) {
	st := NewState("hand", Codec[int]{
		Marshal:   func(n int) ([]byte, error) { return []byte(strconv.Itoa(n)), nil },
		Unmarshal: func(b []byte) (int, error) { return strconv.Atoi(string(b)) },
	}, func(n int) error {
		if n < 0 {
			return errors.New("negative")
		}
		return nil
	})
	if n, err := st.Decode([]byte("12")); err != nil || n != 12 {
		t.Errorf("Decode(12) = %d, %v", n, err)
	}
	for _, b := range []string{"-1", "x"} {
		if _, err := st.Decode([]byte(b)); !errors.Is(err, ErrInvalidDecision) {
			t.Errorf("Decode(%s) = %v, want an invalid decision", b, err)
		}
	}
	if m, err := st.Message([]byte("12")); m != nil || err != nil {
		t.Errorf("Message = %v, %v; want none", m, err)
	}
}
