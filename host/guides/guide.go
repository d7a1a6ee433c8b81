package guides

import (
	"time"

	"github.com/honmaster/masterserver/storage"

	rules "github.com/honmaster/masterserver/plugins/guides"
)

// GuideID is a guide's id (gid on the wire); the plugin contract's type.
type GuideID = rules.GuideID

// Vote is an account's vote on a guide; the plugin contract's type.
type Vote = rules.Vote

// Votes, re-exported for the host side.
const (
	VoteNone = rules.VoteNone
	VoteDown = rules.VoteDown
	VoteUp   = rules.VoteUp
)

// Reserved and ranged guide ids.
const (
	// ProbeGid is the gid the client asks for first in a session; it never
	// names a guide and always answers no_guides_found.
	ProbeGid GuideID = 99999
	// MaxOwnGid is the largest gid of the project's own import format.
	// Original guide ids (for example 415077) sit far below it.
	MaxOwnGid GuideID = ArchiveGidBase - 1
	// ArchiveGidBase and ArchiveGidEnd bound the gids assigned to guides
	// imported from captured replies (format 2), which carry none: the
	// range never meets an own-format gid nor ProbeGid, and stays below
	// 2^24 so that a client holding ids as 32-bit floats keeps them exact.
	ArchiveGidBase GuideID = 10_000_000
	ArchiveGidEnd  GuideID = 1 << 24 // exclusive
)

// Limits of guide content (the specification's Limits table).
const (
	// ListNameRunes is how many characters of a guide name the list shows.
	ListNameRunes = 36
	// MaxIntroRunes is the longest txt_intro.
	MaxIntroRunes = 200
	// MaxNameRunes bounds guide and author names at import; the list cuts
	// guide names to ListNameRunes, get_guide shows them whole.
	MaxNameRunes = 200
	// MaxListEntries is the most guides a list reply carries.
	MaxListEntries = rules.MaxList
)

// Guide is one hero guide as the host keeps it. Names are kept unescaped and
// whole; escaping and cutting happen only when a reply is written.
type Guide struct {
	Gid        GuideID
	Hero       string // hero CLI name, "Hero_<name>"
	HeroName   string // display name; may be empty
	Name       string // guide name
	AuthorName string
	// Author is the account whose login equals AuthorName when the guide
	// was imported (its guide: is_yours); 0 when no account matches.
	Author  storage.AccountID
	Edited  time.Time // last-edited date (UTC)
	Premium bool
	Hidden  bool // hidden by an operator: never listed nor served
	Start   []string
	Laning  []string
	Core    []string
	Luxury  []string
	Abil    []string // ability-level order (abilQ)
	Intro   string   // txt_intro, at most MaxIntroRunes characters
	// Up and Down are the imported starting counts; players' votes add to
	// them (see Tally).
	Up, Down uint32
	// ArchiveKey identifies a guide imported from captured replies (format
	// 2), so that re-importing the archive updates it under the same gid;
	// empty for other guides.
	ArchiveKey string
}

// Flags are one account's marks on one guide.
type Flags struct {
	Default  bool // the account's default guide for the guide's hero
	Favorite bool
	Vote     Vote
}

// Flag names a boolean mark that the set/remove functions change.
type Flag uint8

// Flags the set/remove functions change.
const (
	FlagDefault Flag = iota + 1
	FlagFavorite
)

func (f Flag) String() string {
	switch f {
	case FlagDefault:
		return "default"
	case FlagFavorite:
		return "favorite"
	}
	return "unknown flag"
}

// Thumb values of get_guide: the requester's own vote. The captured value
// for "not voted" is noVote; the others are this server's (the client only
// checks that thumb is not empty, together with the vote key).
const (
	ThumbNone = "noVote"
	ThumbUp   = "up"
	ThumbDown = "down"
)

// Thumb returns the thumb text for the requester's vote v.
func Thumb(v Vote) string {
	switch v {
	case VoteUp:
		return ThumbUp
	case VoteDown:
		return ThumbDown
	}
	return ThumbNone
}

// Counts are a guide's vote counts.
type Counts struct {
	Up, Down uint32
}

// Add returns c plus d.
func (c Counts) Add(d Counts) Counts { return Counts{Up: c.Up + d.Up, Down: c.Down + d.Down} }
