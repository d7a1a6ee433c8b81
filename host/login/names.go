package login

import (
	"errors"
	"strings"
	"unicode"

	"go.mau.fi/util/confusable"
	"golang.org/x/text/unicode/norm"
)

// Errors of CheckNewLogin and CheckVisible, and the look-alike refusal.
var (
	// ErrLoginNotNormal refuses a login that Unicode NFKC normalisation
	// changes (fullwidth ｄｅｍｏ, ligatures, compatibility forms): it could
	// be typed two ways.
	ErrLoginNotNormal = errors.New("login must be written in ordinary characters (Unicode NFKC form)")
	// ErrLoginMixedScripts refuses a login that mixes letters of several
	// scripts (dеmo with a Cyrillic е, Ꭰemo with a Cherokee Ꭰ) or digits
	// of several numbering systems (demo1١).
	ErrLoginMixedScripts = errors.New("login must not mix letters of different scripts or digits of different numbering systems")
	// ErrLoginLookalike refuses a login that looks like an existing one
	// (DEMO, dеmo, dem0, ḍemo or ᴅᴇᴍᴏ next to demo).
	ErrLoginLookalike = errors.New("a login that looks the same already exists")
	// ErrInvisible refuses a name holding a character that shows nothing
	// or changes how its neighbours show: zero-width characters, bidi
	// controls, other format characters (Unicode Cf), fillers and
	// variation selectors (Default_Ignorable_Code_Point).
	ErrInvisible = errors.New("name must not hold invisible or text-direction characters")
)

// CheckNewLogin applies the look-alike rules to the login of a new account
// (the alphabet and length are checked by the caller): no invisible
// character, NFKC normal, one script (Unicode's Common and Inherited
// characters go with any; Han goes with Hiragana and Katakana, Hangul or
// Bopomofo, as UTS #39's "highly restrictive" level allows) and digits of
// one numbering system.
func CheckNewLogin(l string) error {
	if err := CheckVisible(l); err != nil {
		return err
	}
	if !norm.NFKC.IsNormalString(l) {
		return ErrLoginNotNormal
	}
	if !singleScript(l) || !singleNumbering(l) {
		return ErrLoginMixedScripts
	}
	return nil
}

// CheckVisible refuses text holding an invisible or bidi character (see
// ErrInvisible): such a character lets two names that show the same
// differ, or makes one name show as another (a right-to-left override).
// Logins and guide author names go through it.
func CheckVisible(s string) error {
	for _, r := range s {
		if invisible(r) {
			return ErrInvisible
		}
	}
	return nil
}

// invisible reports whether r is a Default_Ignorable_Code_Point (Unicode's
// derived property: Other_Default_Ignorable_Code_Point, Cf and variation
// selectors; the standard library has its parts, not the derived set) or a
// bidi control. All of Cf is refused, the few Cf characters that do show
// (the Arabic number signs) included: none belongs in a name.
func invisible(r rune) bool {
	return unicode.In(r, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector,
		unicode.Bidi_Control, unicode.Join_Control)
}

// scriptOf returns the name of r's Unicode script ("Common" when none
// matches: unassigned characters, which the caller's alphabet refuses).
func scriptOf(r rune) string {
	for _, name := range scriptOrder {
		if unicode.Is(unicode.Scripts[name], r) {
			return name
		}
	}
	return "Common"
}

// scriptOrder is unicode.Scripts' names, the usual ones first so that a
// login of Latin letters finds its script at once.
var scriptOrder = func() []string {
	first := []string{"Latin", "Common", "Inherited", "Cyrillic", "Greek", "Han", "Hiragana", "Katakana", "Hangul", "Arabic", "Hebrew", "Thai"}
	seen := map[string]bool{}
	for _, n := range first {
		seen[n] = true
	}
	for n := range unicode.Scripts {
		if !seen[n] {
			first = append(first, n)
		}
	}
	return first
}()

// cjk are the combinations of scripts one language writes together.
var cjk = [][]string{{"Han", "Hiragana", "Katakana"}, {"Han", "Hangul"}, {"Han", "Bopomofo"}}

func singleScript(l string) bool {
	scripts := map[string]bool{}
	for _, r := range l {
		if s := scriptOf(r); s != "Common" && s != "Inherited" {
			scripts[s] = true
		}
	}
	if len(scripts) <= 1 {
		return true
	}
next:
	for _, set := range cjk {
		for s := range scripts {
			if !contains(set, s) {
				continue next
			}
		}
		return true
	}
	return false
}

func contains(set []string, s string) bool {
	for _, x := range set {
		if x == s {
			return true
		}
	}
	return false
}

// singleNumbering reports whether every decimal digit of l comes from the
// same run of ten (ASCII 0-9, Arabic-Indic ٠-٩, ...): demo1 and demo١ look
// alike, and a login mixing both would stand for either.
func singleNumbering(l string) bool {
	zero := rune(-1)
	for _, r := range l {
		if !unicode.Is(unicode.Nd, r) {
			continue
		}
		z := r - digitValue(r)
		if zero >= 0 && z != zero {
			return false
		}
		zero = z
	}
	return true
}

// digitValue is r's decimal value: Nd characters come in contiguous runs
// of ten starting at a zero, so the value is the distance to the run's
// start. Runs that touch (the mathematical digits) would be misread, but
// NFKC folds those to ASCII, so CheckNewLogin has refused them already.
func digitValue(r rune) rune {
	v := rune(0)
	for v < 9 && unicode.Is(unicode.Nd, r-v-1) {
		v++
	}
	return v
}

// Skeleton maps a login to the form two look-alike logins share. It is
// Unicode's confusable skeleton (UTS #39, from the go.mau.fi/util
// confusables table) made case- and accent-blind, since logins are chosen
// so:
//   - NFKC normalised (ｄｅｍｏ), mapped by the table (which maps
//     capitals too: I and l), then lower-cased (DEMO); as I is both l and
//     a capital i, i joins l too;
//   - small capitals read as their capital (ᴅᴇᴍᴏ);
//   - combining marks shared by all scripts (Unicode script Inherited:
//     accents, dots, strokes; not the vowel signs of Indic scripts) are
//     dropped, so ḍemo, đemo and josé meet demo and jose;
//   - vv reads as w and cl as d (pairs the table leaves alone; it maps m
//     to rn itself). The pairs apply after i joined l, so ci meets d too
//     (cI does look like d; a few honest logins such as "lucia" then
//     share a skeleton with "luda", and the second of them is refused).
//
// Lower-casing can yield a character the table maps again (a Cherokee
// capital lowers to a letter that looks like a small capital D), so the
// steps repeat until nothing changes.
//
// The look-alike index is the store's (one entry per skeleton, written
// insert-if-absent with each new account, so that it holds across every
// process creating accounts: see PutLoginSkeletonNew in package storage). A
// change of these rules or of the table (a new go.mau.fi/util) must raise
// SkeletonVersion: the stored logins then get entries under the new rules
// too (host/accounts does, before its first creation; the entries of the
// old rules stay until their account is deleted, and only refuse more);
// two existing logins that come to share a skeleton both stay, and new
// ones like them are refused.
func Skeleton(l string) string {
	s := norm.NFKC.String(l)
	for range 4 {
		next := skeletonStep(s)
		if next == s {
			break
		}
		s = next
	}
	return s
}

func skeletonStep(s string) string {
	s = strings.Map(func(r rune) rune {
		if c, ok := smallCapitals[r]; ok {
			return c
		}
		return r
	}, s)
	// The table before lower-casing: it maps capitals too (I to l).
	s = strings.ToLower(confusable.Skeleton(s))
	s = strings.Map(func(r rune) rune {
		switch {
		case unicode.Is(unicode.Inherited, r) && unicode.Is(unicode.Mn, r):
			return -1
		case r == 'i': // I looks like l and like i: all three are one
			return 'l'
		}
		return r
	}, norm.NFD.String(s))
	return pairs.Replace(s)
}

// smallCapitals maps the Latin small capital letters (IPA and phonetic
// extensions), which UTS #39 keeps apart from the letters because it is
// case-sensitive, to the capital they are a small form of.
var smallCapitals = map[rune]rune{
	'ᴀ': 'A', 'ʙ': 'B', 'ᴄ': 'C', 'ᴅ': 'D', 'ᴇ': 'E', 'ꜰ': 'F', 'ɢ': 'G', 'ʜ': 'H', 'ɪ': 'I', 'ᴊ': 'J',
	'ᴋ': 'K', 'ʟ': 'L', 'ᴍ': 'M', 'ɴ': 'N', 'ᴏ': 'O', 'ᴘ': 'P', 'ꞯ': 'Q', 'ʀ': 'R', 'ꜱ': 'S', 'ᴛ': 'T',
	'ᴜ': 'U', 'ᴠ': 'V', 'ᴡ': 'W', 'ʏ': 'Y', 'ᴢ': 'Z',
}

// pairs merges letter pairs that read as one letter and the table leaves
// apart.
var pairs = strings.NewReplacer("vv", "w", "cl", "d")

// SkeletonVersion names the rules of Skeleton (and the confusables table
// they use): raise it whenever a change makes any login's skeleton change.
const SkeletonVersion = "2"
