package login

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
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

// FuzzSkeleton: any input is handled without a panic, gives valid UTF-8 for
// valid UTF-8, and ASCII logins that differ only in case share a skeleton.
func FuzzSkeleton(f *testing.F) {
	for _, s := range []string{"demo", "DEMO", "dеmo", "ｄｅｍｏ", "rnrn", "Δήμος", "ﬁsh", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sk := Skeleton(s)
		_ = CheckNewLogin(s)
		if utf8.ValidString(s) && !utf8.ValidString(sk) {
			t.Fatalf("Skeleton(%q) = %q: not UTF-8", s, sk)
		}
		ascii := true
		for i := 0; i < len(s); i++ {
			ascii = ascii && s[i] < utf8.RuneSelf
		}
		if ascii && Skeleton(strings.ToUpper(s)) != Skeleton(strings.ToLower(s)) {
			t.Fatalf("ASCII %q: upper and lower case differ", s)
		}
	})
}
