package login

import (
	"errors"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Errors of CheckNewLogin and Names.Reserve.
var (
	// ErrLoginNotNormal refuses a login that Unicode NFKC normalisation
	// changes (fullwidth ｄｅｍｏ, ligatures, compatibility forms): it could
	// be typed two ways.
	ErrLoginNotNormal = errors.New("login must be written in ordinary characters (Unicode NFKC form)")
	// ErrLoginMixedScripts refuses a login that mixes Latin, Cyrillic and
	// Greek letters (dеmo with a Cyrillic е).
	ErrLoginMixedScripts = errors.New("login must not mix Latin, Cyrillic and Greek letters")
	// ErrLoginLookalike refuses a login that looks like an existing one
	// (DEMO, dеmo or dem0 next to demo).
	ErrLoginLookalike = errors.New("a login that looks the same already exists")
)

// CheckNewLogin applies the look-alike rules to the login of a new account
// (the alphabet and length are checked by the caller).
func CheckNewLogin(l string) error {
	if !norm.NFKC.IsNormalString(l) {
		return ErrLoginNotNormal
	}
	var latin, cyrillic, greek bool
	for _, r := range l {
		latin = latin || unicode.Is(unicode.Latin, r)
		cyrillic = cyrillic || unicode.Is(unicode.Cyrillic, r)
		greek = greek || unicode.Is(unicode.Greek, r)
	}
	if n := b2i(latin) + b2i(cyrillic) + b2i(greek); n > 1 {
		return ErrLoginMixedScripts
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Skeleton maps a login to the form two look-alike logins share: NFKC
// normalised, lower case, each Cyrillic and Greek letter that looks like a
// Latin one replaced by it, digits and letters that look alike (0/o, 1/l/i)
// and letter pairs (rn/m, vv/w) merged. It follows the idea of Unicode
// TR 39's skeleton with a compact table for the scripts the game's players
// use (Latin, Cyrillic, Greek), not the full confusables data.
func Skeleton(l string) string {
	l = strings.ToLower(norm.NFKC.String(l))
	var b strings.Builder
	for _, r := range l {
		if m, ok := confusables[r]; ok {
			r = m
		}
		b.WriteRune(r)
	}
	return pairs.Replace(b.String())
}

// confusables maps lower-case letters and digits to the Latin letter they
// are mistaken for. Cyrillic and Greek letters are mapped by the look of
// their capital and their small form where those agree; where they do not
// (Greek ν, η, μ) the small form, the one logins are usually typed in, wins.
var confusables = map[rune]rune{
	// Digits and Latin.
	'0': 'o', '1': 'l', 'i': 'l', 'ı': 'l',
	// Cyrillic.
	'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p', 'с': 'c',
	'т': 't', 'у': 'y', 'х': 'x', 'ѕ': 's', 'і': 'l', 'ї': 'l', 'ј': 'j', 'ԁ': 'd', 'һ': 'h', 'ӏ': 'l',
	'ԛ': 'q', 'ԝ': 'w', 'ь': 'b', 'г': 'r', 'п': 'n', 'з': '3',
	// Greek.
	'α': 'a', 'β': 'b', 'ε': 'e', 'ζ': 'z', 'η': 'n', 'ι': 'l', 'κ': 'k', 'μ': 'u', 'ν': 'v', 'ο': 'o',
	'ρ': 'p', 'τ': 't', 'υ': 'u', 'χ': 'x', 'γ': 'y', 'ω': 'w',
}

// pairs merges letter pairs that read as one letter.
var pairs = strings.NewReplacer("rn", "m", "vv", "w")

// Names is the set of skeletons of existing logins, so that a new login
// that looks like one of them is refused. It is an index of what storage
// holds (filled by the caller from it, then kept up to date by Reserve), not
// durable state; one process owns a data directory at a time.
type Names struct {
	mu   sync.Mutex
	m    map[string]int // skeleton -> logins (and reservations) with it
	load func(add func(login string)) error
	err  error
	done bool
}

// NewNames returns an index filled on first use by load, which calls add
// for every existing login.
func NewNames(load func(add func(login string)) error) *Names {
	return &Names{m: map[string]int{}, load: load}
}

// Reserve claims login's skeleton for an account about to be created.
// Call release(true) once the account exists (or may exist), release(false)
// when its creation failed.
func (n *Names) Reserve(login string) (release func(created bool), err error) {
	sk := Skeleton(login)
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.done {
		n.err = n.load(func(l string) { n.m[Skeleton(l)]++ })
		n.done = n.err == nil
		if n.err != nil {
			clear(n.m)
			return nil, n.err
		}
	}
	if n.m[sk] > 0 {
		return nil, ErrLoginLookalike
	}
	n.m[sk]++
	return func(created bool) {
		if created {
			return
		}
		n.mu.Lock()
		defer n.mu.Unlock()
		if n.m[sk]--; n.m[sk] <= 0 {
			delete(n.m, sk)
		}
	}, nil
}
