package wire

import (
	"crypto/sha1"
	"crypto/subtle"
	"encoding/hex"
	"strconv"
)

// resubmissionSalt is a constant of the game itself (its engine library),
// so every game server computes the same key for a match
// (game-server-api.md §2).
const resubmissionSalt = "s8c7xaduxAbRanaspUf3kadRachecrac9efeyupr8suwrewecrUphayeweqUmana"

// ResubmissionKey returns the resubmission_key a game server computes for
// match matchID and a manager sends with f=resubmit_stats: the lowercase
// hex SHA-1 of the match id's decimal digits followed by the game's
// constant salt.
//
// The key is public (anyone holding the game can compute it): it tells
// which match a resubmission is for and catches a file sent for the wrong
// match, but it authenticates nobody. A resubmission is authenticated by
// the manager's login and password.
func ResubmissionKey(matchID int64) string {
	sum := sha1.Sum(append(strconv.AppendInt(make([]byte, 0, 20+len(resubmissionSalt)), matchID, 10), resubmissionSalt...))
	return hex.EncodeToString(sum[:])
}

// ResubmissionKeyMatches reports whether key is match matchID's
// resubmission key, in either letter case, comparing in constant time.
func ResubmissionKeyMatches(matchID int64, key string) bool {
	want := ResubmissionKey(matchID)
	if len(key) != len(want) {
		return false
	}
	got := []byte(key)
	for i, c := range got {
		if 'A' <= c && c <= 'F' {
			got[i] = c + ('a' - 'A')
		}
	}
	return subtle.ConstantTimeCompare(got, []byte(want)) == 1
}
