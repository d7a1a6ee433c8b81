package login

import (
	"errors"
	"testing"
)

func TestSkeleton(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"demo", "DEMO", true},
		{"demo", "dеmo", true},     // Cyrillic е
		{"demo", "ｄｅｍｏ", true},     // fullwidth
		{"demo", "dem0", true},     // zero
		{"paypal", "раураl", true}, // Cyrillic р а у
		{"Ilya", "lIya", true},
		{"modern", "modem", true}, // rn / m
		{"demo", "dema", false},
		{"alice", "bob", false},
	} {
		if got := Skeleton(tc.a) == Skeleton(tc.b); got != tc.same {
			t.Errorf("Skeleton(%q)=%q, Skeleton(%q)=%q: same=%v, want %v", tc.a, Skeleton(tc.a), tc.b, Skeleton(tc.b), got, tc.same)
		}
	}
}

func TestCheckNewLogin(t *testing.T) {
	for login, want := range map[string]error{
		"demo":     nil,
		"Демо":     nil,
		"Δήμος":    nil,
		"dеmo":     ErrLoginMixedScripts,
		"ｄｅｍｏ":     ErrLoginNotNormal,
		"ﬁsh":      ErrLoginNotNormal, // ligature
		"player_1": nil,
	} {
		if err := CheckNewLogin(login); !errors.Is(err, want) {
			t.Errorf("CheckNewLogin(%q) = %v, want %v", login, err, want)
		}
	}
}

func TestNamesReserve(t *testing.T) {
	n := NewNames(func(add func(string)) error { add("demo"); return nil })
	if _, err := n.Reserve("DEMO"); !errors.Is(err, ErrLoginLookalike) {
		t.Fatalf("DEMO next to demo: %v", err)
	}
	release, err := n.Reserve("newbie")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Reserve("NEWBIE"); !errors.Is(err, ErrLoginLookalike) {
		t.Errorf("a reserved skeleton is free: %v", err)
	}
	release(false) // creation failed: the name is free again
	if _, err := n.Reserve("NEWBIE"); err != nil {
		t.Errorf("after a failed creation: %v", err)
	}
}
