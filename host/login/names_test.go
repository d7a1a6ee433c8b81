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
		// The second red team's look-alikes (issue 22, item 12).
		{"demo", "demօ", true},     // Armenian o
		{"demo", "Ꭰemo", true},     // Cherokee capital A, which looks like D
		{"demo", "ꭰemo", true},     // its lower case, which looks like a small capital D
		{"alice1", "ɑlice1", true}, // Latin alpha
		{"friend", "frɩend", true}, // Latin iota
		{"demo", "ᴅᴇᴍᴏ", true},     // small capitals
		{"demo", "đemo", true},     // d with stroke
		{"demo", "ḍemo", true},     // d with dot below
		{"jose", "josé", true},     // accents are not told apart
		{"vvolf", "wolf", true},
		// Multi-letter shapes UTS #39 leaves apart (issue 36 item 5).
		{"clan", "dan", true},       // cl / d
		{"cIan", "dan", true},       // c, capital i / d
		{"rnaster", "master", true}, // rn / m
		{"vvin", "win", true},       // vv / w
		{"close", "dose", true},
		{"clan", "elan", false},
		{"josé", "josie", false},
		{"Демо", "Дема", false},
	} {
		if got := Skeleton(tc.a) == Skeleton(tc.b); got != tc.same {
			t.Errorf("Skeleton(%q)=%q, Skeleton(%q)=%q: same=%v, want %v", tc.a, Skeleton(tc.a), tc.b, Skeleton(tc.b), got, tc.same)
		}
	}
}

// TestCheckVisible: invisible and text-direction characters are refused
// in any name; visible text passes.
func TestCheckVisible(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want error
	}{
		{"demo", nil},
		{"josé", nil},
		{"Guide Writer", nil},
		{"de\u200bmo", ErrInvisible},     // zero-width space
		{"de\u200dmo", ErrInvisible},     // zero-width joiner
		{"demo\u2060", ErrInvisible},     // word joiner
		{"\u202edemo", ErrInvisible},     // right-to-left override
		{"demo\u2066", ErrInvisible},     // left-to-right isolate
		{"de\u200fmo", ErrInvisible},     // right-to-left mark
		{"demo\u00ad", ErrInvisible},     // soft hyphen
		{"\ufeffdemo", ErrInvisible},     // byte order mark
		{"demo\u3164", ErrInvisible},     // Hangul filler (a letter that shows nothing)
		{"demo\ufe0f", ErrInvisible},     // variation selector
		{"de\u034fmo", ErrInvisible},     // combining grapheme joiner
		{"demo\U000e0041", ErrInvisible}, // tag character
	} {
		if err := CheckVisible(tc.s); !errors.Is(err, tc.want) {
			t.Errorf("CheckVisible(%+q) = %v, want %v", tc.s, err, tc.want)
		}
		if tc.want != nil {
			if err := CheckNewLogin(tc.s); !errors.Is(err, tc.want) {
				t.Errorf("CheckNewLogin(%+q) = %v, want %v", tc.s, err, tc.want)
			}
		}
	}
}

// TestSkeletonLookalikes: each look-alike of the red team's list shares
// its skeleton with one of the logins it imitates, and ordinary logins
// share none with them.
func TestSkeletonLookalikes(t *testing.T) {
	existing := map[string]bool{}
	for _, l := range []string{"demo", "friend", "alice1", "jose"} {
		existing[Skeleton(l)] = true
	}
	for _, l := range []string{"demօ", "Ꭰemo", "ɑlice1", "frɩend", "ᴅᴇᴍᴏ", "đemo", "ḍemo", "DEMO", "dem0", "Friend", "josé"} {
		if !existing[Skeleton(l)] {
			t.Errorf("Skeleton(%q) = %q: none of demo, friend, alice1, jose has it", l, Skeleton(l))
		}
	}
	for _, l := range []string{"josie", "alice2", "Zoë", "Демо", "Δήμος", "player_1", "山田", "やまだ太郎"} {
		if err := CheckNewLogin(l); err != nil {
			t.Errorf("CheckNewLogin(%q) = %v, want nil", l, err)
		}
		if existing[Skeleton(l)] {
			t.Errorf("Skeleton(%q) = %q: taken by an existing login", l, Skeleton(l))
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
		"demօ":     ErrLoginMixedScripts, // Latin and Armenian
		"Ꭰemo":     ErrLoginMixedScripts, // Cherokee and Latin
		"demo١":    ErrLoginMixedScripts, // Latin and an Arabic-Indic digit
		"دمو1١":    ErrLoginMixedScripts, // two numbering systems
		"دمو١":     nil,
		"やまだ太郎":    nil, // Hiragana and Han: Japanese
		"김철수":      nil,
		"josé":     nil,
	} {
		if err := CheckNewLogin(login); !errors.Is(err, want) {
			t.Errorf("CheckNewLogin(%q) = %v, want %v", login, err, want)
		}
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
