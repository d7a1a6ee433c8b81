// Package configtest helps the tests of an area's settings table.
package configtest

import (
	"slices"
	"testing"

	"github.com/honmaster/masterserver/config"
)

// Case is one change of an area's table and the key Validate must name
// for it ("" when the change is valid).
type Case[T any] struct {
	Name string
	Edit func(*T)
	Want string
}

// CheckTable runs each case on the defaults of the table name (an area's
// RegisterTable or RegisterSection): the configuration's Validate must
// name exactly the case's key, or nothing.
func CheckTable[T any](t *testing.T, name string, cases []Case[T]) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			c := config.Default()
			v, ok := config.Section[T](c, name)
			if !ok {
				t.Fatalf("no table %q of type %T registered", name, v)
			}
			tc.Edit(&v)
			config.SetSection(c, name, v)
			var keys []string
			for _, p := range config.Problems(c.Validate()) {
				keys = append(keys, p.Key)
			}
			if want := []string{tc.Want}; (tc.Want == "" && len(keys) != 0) || (tc.Want != "" && !slices.Equal(keys, want)) {
				t.Errorf("problems %v, want %q", keys, tc.Want)
			}
		})
	}
}
