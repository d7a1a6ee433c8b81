package storage

import (
	"crypto/sha256"
	"encoding/binary"
	"time"
)

// SessionHash is the key a session cookie is stored and cached under.
func SessionHash(cookie string) [32]byte { return sha256.Sum256([]byte(cookie)) }

// AccountID identifies one account (main or sub-account). On the wire it is
// decimal text.
type AccountID uint32

// SRPVerifier is what the server keeps to check a password proof: never the
// password and never the client's hashed secret p.
type SRPVerifier struct {
	Salt     []byte // s, 256 random bytes, first byte non-zero
	Salt2    string // 22 printable characters, used only inside p
	Verifier []byte // v = g^x mod N, big-endian
}

// Account is the durable record of one account. Only the account's actor
// changes it (see package actors); everything else reads snapshots.
type Account struct {
	ID      AccountID
	SuperID AccountID // the main account; equal to ID for a main account. Sub-accounts are found through an index (DB.SubAccounts), so creating one never rewrites the parent's record.
	Login   string    // stored and matched exactly as given (case-sensitive)

	Nickname    string
	Email       string
	AccountType int32 // int32 where the values are small: a live account's state is kept in memory
	Trial       int32
	SuspID      int
	Standing    int
	Created     time.Time

	// SRP is stored in a record of its own, written only when it changes
	// (credentials.go). It is empty on the state of a live account on
	// Pebble (see DropCredentials): read it with DB.Credentials.
	SRP SRPVerifier

	Stats Stats

	Upgrades         []Upgrade // owned upgrades in the order they were gained
	SelectedUpgrades []string
	Buddies          []Buddy
	Ignored          []Ignored
	Banned           []Banned
	Notifications    []Notification
	Chatrooms        []string
	FreeHeroes       string // comma-separated hero identifiers

	Gold       int64
	Silver     int64
	Tickets    int64
	GameTokens int64
	Points     int64
	MMPoints   int64
	DiceTokens int64

	SeasonLevel    int32
	CreepLevel     int32
	MuteExpiration int64 // unix seconds, 0 when not muted

	index *OwnedIndex // set only on the copies an actor hands out (WithIndex, WorkingCopy)

	// The small fields last, together, so that padding does not grow the
	// struct (TestAccountSize).
	IsNew bool
	Cloud CloudFlags
	// noCreds: SRP was dropped (DropCredentials) and is still stored in
	// the credentials record, which PutAccount leaves alone unless a
	// change sets new ones.
	noCreds bool
	// credFP is the low 32 bits of SaltFingerprint of the SRP salt
	// DropCredentials dropped (CredentialsFingerprint): 4 bytes, in what
	// was the struct's padding.
	credFP uint32
}

// Owns reports whether the account owns the upgrade with the given
// identifier. On an account held by its actor it is a map lookup (the actor
// keeps an index of the owned upgrades); elsewhere it scans.
func (a *Account) Owns(upgrade string) bool {
	if x := a.index; x != nil && x.n <= len(a.Upgrades) {
		if _, ok := x.m[upgrade]; ok {
			return true
		}
		for i := x.n; i < len(a.Upgrades); i++ { // gained by the change running now
			if a.Upgrades[i].ID == upgrade {
				return true
			}
		}
		return false
	}
	for i := range a.Upgrades {
		if a.Upgrades[i].ID == upgrade {
			return true
		}
	}
	return false
}

// OwnedIndex maps the ids of the first N owned upgrades of an account: the
// account's actor keeps one, so that Owns is a map lookup on the copies it
// hands to changes and reads. Only the actor's goroutine may use it.
type OwnedIndex struct {
	m map[string]struct{}
	n int
}

// NewOwnedIndex indexes us. (Its map is made on the first upgrade: many
// live accounts own none.)
func NewOwnedIndex(us []Upgrade) *OwnedIndex {
	x := &OwnedIndex{}
	x.Add(us...)
	return x
}

// Add indexes upgrades appended after the indexed ones.
func (x *OwnedIndex) Add(us ...Upgrade) {
	if x.m == nil && len(us) > 0 {
		x.m = make(map[string]struct{}, len(us))
	}
	for _, u := range us {
		x.m[u.ID] = struct{}{}
	}
	x.n += len(us)
}

// Has reports whether one of the indexed upgrades is id.
func (x *OwnedIndex) Has(id string) bool { _, ok := x.m[id]; return ok }

// WithIndex returns a shallow copy of a whose Owns uses x (which must index
// a's upgrades). For the actor's own use: the copy shares everything with a.
func (a *Account) WithIndex(x *OwnedIndex) *Account {
	c := *a
	c.index = x
	return &c
}

// WorkingCopy is the copy a change edits: every field of a is copied except
// the owned upgrades, which are all (the actor's list, of which a holds a
// clipped view) with its index x. An append made by the change writes past
// the end of all (unseen by anyone, all's length being unchanged) or
// reallocates: gaining an upgrade costs the same whatever the account owns.
// A change must not edit an owned upgrade in place. The SRP salt and
// verifier are shared too: they are only ever replaced whole (a new
// SRPVerifier), never edited in place. a itself is not touched (it may be
// published to readers).
func (a *Account) WorkingCopy(all []Upgrade, x *OwnedIndex) *Account {
	c := *a
	c.Upgrades = all
	c.index = x
	c.copyLists()
	return &c
}

// Detach makes a safe to hand out of the goroutine that owns its original:
// no shared index (Owns then scans) and the owned list clipped, so an
// append reallocates instead of writing into the original's spare capacity.
func (a *Account) Detach() {
	a.index = nil
	a.Upgrades = a.Upgrades[:len(a.Upgrades):len(a.Upgrades)]
}

// Clone returns a deep copy, so that a snapshot handed out of an actor never
// aliases the actor's own state.
func (a *Account) Clone() *Account {
	c := *a
	c.SRP.Salt = append([]byte(nil), a.SRP.Salt...)
	c.SRP.Verifier = append([]byte(nil), a.SRP.Verifier...)
	c.Upgrades = append([]Upgrade(nil), a.Upgrades...)
	c.index = nil
	c.copyLists()
	return &c
}

// copyLists gives a its own copies of the lists it shares with the account
// it was copied from.
func (a *Account) copyLists() {
	a.SelectedUpgrades = append([]string(nil), a.SelectedUpgrades...)
	a.Buddies = append([]Buddy(nil), a.Buddies...)
	a.Ignored = append([]Ignored(nil), a.Ignored...)
	a.Banned = append([]Banned(nil), a.Banned...)
	a.Notifications = append([]Notification(nil), a.Notifications...)
	a.Chatrooms = append([]string(nil), a.Chatrooms...)
}

// CloudFlags are the account's cloud-settings enrollment switches. They
// are part of the profile, not of host/cloud's keyspace, because the
// session record every login serves carries them (use_cloud,
// cloud_storage_info), like the balances: the login reads one record.
// host/cloud's own records (the archives) live in its keyspace.
type CloudFlags struct {
	UseCloud   bool
	AutoUpload bool
}

// Upgrade is one owned upgrade ("<type>.<name>", e.g. "aa.Hero_Pyromancer.Alt2").
type Upgrade struct {
	ID        string
	Data      string
	StartTime int64 // unix seconds, 0 when none
	EndTime   int64 // unix seconds, 0 means no end
	Used      int
	Score     string
}

// Buddy is one entry of an account's buddy list.
type Buddy struct {
	ID       AccountID
	Nickname string
	Group    string
	ClanTag  string // empty means none (null on the wire)
	Status   int
	Standing int
	Inactive bool
	New      bool
}

// Ignored is one entry of an account's ignore list.
type Ignored struct {
	ID       AccountID
	Nickname string
}

// Banned is one entry of an account's ban list.
type Banned struct {
	ID       AccountID
	Nickname string
	Reason   string
}

// Notification is one pending account notification.
type Notification struct {
	ID       int64
	Sender   string
	Code     int
	Type     string // e.g. "notify_buddy_added"
	Template string
	Date     time.Time
}

// Stats is the statistics record (infos[0] of the session record).
type Stats struct {
	Level          int32
	LevelExp       int32
	Discos         int32
	PossibleDiscos int32
	GamesPlayed    int32

	AccPubSkill   float64
	AccWins       int32
	AccLosses     int32
	AccGames      int32
	AccDiscos     int32
	RnkRating     float64
	RnkWins       int32
	RnkLosses     int32
	RnkGames      int32
	RnkDiscos     int32
	CSRating      float64
	CSWins        int32
	CSLosses      int32
	CSGames       int32
	CSDiscos      int32
	MidGames      int32
	MidDiscos     int32
	RiftGames     int32
	RiftDiscos    int32
	CamGames      int32
	CamDiscos     int32
	CamCSGames    int32
	CamCSDiscos   int32
	BotGamesWon   int32
	BotGamesValid bool // num_bot_games_won is null on the wire unless set
}

// Session is a login session, found by its cookie. Sessions outlive a server
// restart until they expire. Storage keeps only the SHA-256 of the cookie
// (Hash): a session read back by EachSession has an empty Cookie.
type Session struct {
	Cookie string   // 32 lowercase hex characters; empty when read back by EachSession
	Hash   [32]byte // SHA-256 of Cookie, the session's key

	AccountID AccountID
	SuperID   AccountID
	IP        string
	Created   time.Time
	Expires   time.Time
	// ProofAccount is the account whose password was checked to open the
	// first session of this one's chain (switch_auth passes it on), and
	// ProofSalt the fingerprint of its salt then (SaltFingerprint): the
	// chain is stale once that account's password was reset. 0: not kept
	// (a session from before they were).
	ProofAccount AccountID
	ProofSalt    uint64
}

// SaltFingerprint is the fingerprint of an SRP salt kept with a session
// (Session.ProofSalt): the first 8 bytes of its SHA-256. Every new
// verifier has a new random salt.
func SaltFingerprint(salt []byte) uint64 {
	h := sha256.Sum256(salt)
	return binary.BigEndian.Uint64(h[:8])
}

// CompactSession is a session as the session cache keeps it: its fields
// without the cookie or its hash (the cache's key), times as Unix
// nanoseconds as stored (56 bytes instead of a Session's 136 and its
// cookie).
type CompactSession struct {
	account, super   AccountID
	created, expires int64
	ip               string
	proof            AccountID
	proofSalt        uint64
}

// Compact is s without its cookie and hash.
func (s *Session) Compact() CompactSession {
	return CompactSession{account: s.AccountID, super: s.SuperID, created: nanos(s.Created), expires: nanos(s.Expires), ip: s.IP,
		proof: s.ProofAccount, proofSalt: s.ProofSalt}
}

// AccountID is the account the session is logged in as.
func (c CompactSession) AccountID() AccountID { return c.account }

// Session is the session c holds, given its cookie and hash.
func (c CompactSession) Session(cookie string, hash [32]byte) *Session {
	return &Session{Cookie: cookie, Hash: hash, AccountID: c.account, SuperID: c.super, IP: c.ip,
		Created: unixNano(c.created), Expires: unixNano(c.expires), ProofAccount: c.proof, ProofSalt: c.proofSalt}
}

// Key returns the session's storage key: the SHA-256 of its cookie (Hash
// when the cookie is not known).
func (s *Session) Key() [32]byte {
	if s.Cookie != "" {
		return SessionHash(s.Cookie)
	}
	return s.Hash
}

// Valid reports whether the session can still be used at time now.
func (s *Session) Valid(now time.Time) bool { return now.Before(s.Expires) }
