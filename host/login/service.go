package login

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/failure"
	"github.com/honmaster/masterserver/host/limit"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/storage/cache"
)

// MaxLoginLength is the longest login accepted, in characters.
const MaxLoginLength = 12

// Settings are the login area's configuration.
type Settings struct {
	CookieLifetime    time.Duration
	PreAuthLifetime   time.Duration
	PreAuthMaxPending int
	Secret            []byte // keys auth_hash, sec_info.hash_code and the fake salts of unknown logins

	// Limits (zero: the defaults of config's [limits] table).
	PreAuthPerAddress   int        // pending handshakes of one address group (see limit.AddrKey)
	LoginsAddress       limit.Rate // handshakes started (pre_auth) from one address group (zero: none)
	FailedProofsAddress limit.Rate // wrong proofs from one address group, all logins
	FailedProofsLogin   limit.Rate // wrong proofs from one address group on one login
	SessionsPerAccount  int
	TrackedKeys         int // keys each rate limiter remembers
	// Switches bound switch_auth's new sessions per account switched to
	// and per address (limits.toggles_per_account, toggles_per_address;
	// zero: none).
	Switches limit.WriteRates

	ChatHost, CommentingHost string
	ChatPort, CommentingPort int
	ICBURL, LeaverThreshold  string
	MMRRank, FreeHeroes      string
	KeyVersion               string
	MinRankedLevel           int
	CampaignSeason           int
	Chatrooms                []string
	// VerifierCacheSize bounds the logins whose account id is kept in
	// memory for pre_auth (0: DefaultVerifierCacheSize; negative: none).
	VerifierCacheSize int
}

// DefaultVerifierCacheSize is the default bound of the verifier cache
// (about 120 bytes per entry).
const DefaultVerifierCacheSize = 20_000

// Service runs the login calls.
type Service struct {
	group    *srp.Group
	sys      *actors.System
	db       *storage.DB
	set      Settings
	pending  *pendingSet
	failAddr *limit.Keyed // wrong proofs by address
	failPair *limit.Keyed // wrong proofs by login and address
	switches *limit.Writes
	logins   *limit.Keyed // pre_auth handshakes started, by address
	// live is the sessions_live gauge: the sessions stored at the last
	// sweep, plus those issued and less those ended since (forget.go).
	live     atomic.Int64
	now      func() time.Time
	rand     io.Reader
	tooltips encoded // awards_tooltip: constant, encoded once
	// verifiers caches the account id of a login for pre_auth and
	// switch_auth (pre_auth's SRP values come from the account's live
	// actor, or storage). A login's id never changes while its account
	// exists, but the account may be deleted and the login registered
	// again: the delete hook (forgetAccount) drops the entry when the
	// deletion runs here, and loginAccount drops an entry whose account is
	// gone or holds another login (a deletion on another node of a
	// cluster, where this node's hook never runs).
	// It is bounded (least recently used evicted), so logins ever seen do
	// not pile up in memory; it keeps no verifier, which a live account's
	// actor already holds.
	verifiers *cache.LRU[string, storage.AccountID]
	hook      SessionHook // see SetSessionHook
	// macs pools HMAC-SHA1 states keyed with set.Secret (mac): a new one
	// hashes the key into its pads, three times per login reply.
	macs sync.Pool
	// beforeCheck, set by tests, runs before a password is checked
	// (SRPAuth, CheckServerPassword), after the failed-proof limits.
	beforeCheck func(login string)
}

// New returns a login service. now and rnd may be nil (wall clock,
// crypto/rand).
func New(group *srp.Group, sys *actors.System, set Settings, now func() time.Time, rnd io.Reader) *Service {
	if now == nil {
		now = time.Now
	}
	if rnd == nil {
		rnd = rand.Reader
	}
	set = set.withDefaults()
	size := set.VerifierCacheSize
	if size == 0 {
		size = DefaultVerifierCacheSize
	}
	s := &Service{group: group, sys: sys, db: sys.DB(), set: set, now: now, rand: rnd,
		verifiers: cache.New[string, storage.AccountID](size, func(s string) uint32 {
			h := fnv.New32a()
			h.Write([]byte(s))
			return h.Sum32()
		}),
		pending:  newPendingSet(set.PreAuthMaxPending, set.PreAuthPerAddress, set.PreAuthLifetime),
		failAddr: limit.NewAdjustable(set.FailedProofsAddress, set.TrackedKeys, now),
		failPair: limit.NewAdjustable(set.FailedProofsLogin, set.TrackedKeys, now),
		switches: limit.NewWrites(set.Switches, now),
		logins:   limit.NewAdjustable(set.LoginsAddress, set.TrackedKeys, now),
		tooltips: mustEncode(awardsTooltip())}
	s.macs.New = func() any { return hmac.New(sha1.New, set.Secret) }
	sys.OnDelete(s.forgetAccount) // forget.go
	// At a memory release (many accounts passivated), the logins of the
	// passivated accounts leave the cache: their next pre_auth reads the
	// login's id from storage, as any miss does. The entries were allocated
	// at their logins beside the accounts' states, and would keep those
	// freed pages in use (17 MiB after 100k logins passivated, for 3 MiB
	// of entries: docs/performance.md "Memory").
	sys.OnMemoryRelease(func(live func(storage.AccountID) bool) {
		s.verifiers.Compact(func(_ string, id storage.AccountID) bool { return live(id) })
	})
	return s
}

// SetFailedProofRates changes Settings.FailedProofsAddress and
// FailedProofsLogin (a configuration reload): budgets already spent stay
// spent, capped at the new bursts; a zero rate turns a limit off.
func (s *Service) SetFailedProofRates(byAddress, byLoginAddress limit.Rate) {
	s.failAddr.SetRate(byAddress)
	s.failPair.SetRate(byLoginAddress)
}

// SetLoginRate changes Settings.LoginsAddress (a configuration reload),
// as SetFailedProofRates.
func (s *Service) SetLoginRate(r limit.Rate) { s.logins.SetRate(r) }

// SetSwitchRates changes Settings.Switches (a configuration reload), as
// SetFailedProofRates.
func (s *Service) SetSwitchRates(r limit.WriteRates) { s.switches.SetRates(r) }

// withDefaults fills zero settings (tests, tools) with the defaults of
// config's embedded file.
func (set Settings) withDefaults() Settings {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&set.PreAuthMaxPending, 100_000)
	def(&set.PreAuthPerAddress, 256)
	def(&set.SessionsPerAccount, 10)
	if set.PreAuthLifetime <= 0 {
		set.PreAuthLifetime = time.Minute
	}
	if set.CookieLifetime <= 0 {
		set.CookieLifetime = 24 * time.Hour
	}
	return set
}

func checkLogin(login string) error {
	switch {
	case login == "" || !utf8.ValidString(login):
		return fail(ReasonMalformed, errors.New("login missing or not UTF-8"))
	case utf8.RuneCountInString(login) > MaxLoginLength:
		return fail(ReasonLoginTooLong, nil)
	}
	return nil
}

// PreAuth starts a handshake from client address ip: it checks A, draws b
// and answers salt, salt2, B. A login without an account gets a handshake
// too, with a fake salt and verifier derived from the login and the server
// secret (the same on every call), so that pre_auth tells nobody whether an
// account exists; its srpAuth fails as a wrong password does. sysInfo is the
// client's SysInfo, kept with the handshake for the session hook (never
// logged). It never refuses for lack of room: the pending set drops the
// spender's own oldest handshake instead (see pendingSet).
func (s *Service) PreAuth(ctx context.Context, login, aHex, ip, sysInfo string) (*PreAuthReply, error) {
	if err := checkLogin(login); err != nil {
		return nil, err
	}
	// Before the exponentiation: a handshake costs the server one, and
	// its proof two more, right password or wrong.
	if ok, wait := s.logins.Allow(limit.AddrKey(ip)); !ok {
		return nil, fail(ReasonTooManyLogins, fmt.Errorf("address %s: next in %v", limit.AddrKey(ip), wait.Round(time.Millisecond)))
	}
	v, err := s.verifier(login)
	if err != nil {
		return nil, err
	}
	server, err := s.group.NewServer(v.login, v.srp.Salt, v.srp.Verifier, aHex, s.rand)
	if errors.Is(err, srp.ErrBadPublicValue) {
		return nil, fail(ReasonMalformed, err)
	} else if err != nil {
		return nil, fail(ReasonInternal, err)
	}
	// Keyed by the client's address group (an IPv6 client by its /64, as
	// every per-address limit): one host holds one handshake per login, so
	// it cannot line up a proof per address of its /64 against one login
	// and send them all at once past the wrong-password limits.
	s.pending.put(login, &handshake{server: server, account: v.id, fake: v.fake, addr: limit.AddrKey(ip), sysInfo: boundSysInfo(sysInfo)}, s.now())
	return &PreAuthReply{Salt: server.SaltHex(), Salt2: v.srp.Salt2, B: server.BHex()}, nil
}

// verifierEntry is what pre_auth needs of an account.
type verifierEntry struct {
	id    storage.AccountID
	login string
	srp   storage.SRPVerifier
	fake  bool // no such account: see fakeVerifier
}

// verifier returns the SRP values of login: the account id from the cache
// or storage, the salt and verifier from storage (one read of the
// account's credentials record; a live account's state holds them only on
// PostgreSQL, see storage.DB.CredentialsOnDemand, and then they are taken
// from it, shared, no copy). Unknown logins are not
// cached (the account may be created any moment).
func (s *Service) verifier(login string) (*verifierEntry, error) {
	id, acct, err := s.loginAccount(login)
	if errors.Is(err, storage.ErrNotFound) {
		return s.fakeVerifier(login)
	} else if err != nil {
		return nil, fail(ReasonInternal, err)
	}
	// A live account's state holds no credentials on Pebble (loginAccount
	// took it from the actor): read them from their record.
	if len(acct.SRP.Verifier) > 0 {
		return &verifierEntry{id: id, login: acct.Login, srp: acct.SRP}, nil
	}
	cred, err := s.db.Credentials(id)
	if err != nil {
		return nil, fail(ReasonInternal, err)
	}
	return &verifierEntry{id: id, login: acct.Login, srp: cred}, nil
}

// loginAccount returns the account of login (its id from the cache or
// storage, its profile from its live actor or storage), or
// storage.ErrNotFound when no account holds login. A cached id whose
// account is gone or holds another login (compared exactly, as the login
// index does) is stale: the account was deleted where this service's
// delete hook did not run (another node of a cluster) and the login may
// have been registered again. It is dropped and the login read from
// storage again. Unknown logins are not cached (the account may be created
// any moment).
func (s *Service) loginAccount(login string) (storage.AccountID, *storage.Account, error) {
	if id, ok := s.verifiers.Get(login); ok {
		acct, err := s.profile(id)
		switch {
		case err == nil && acct.Login == login:
			return id, acct, nil
		case err == nil, errors.Is(err, storage.ErrNotFound):
			s.verifiers.Remove(login)
		default:
			return 0, nil, err
		}
	}
	id, err := s.db.LoginID(login)
	if err != nil {
		return 0, nil, err
	}
	acct, err := s.profile(id)
	switch {
	case errors.Is(err, storage.ErrNotFound), err == nil && acct.Login != login:
		// Deleted between the two reads: as if it had been read after.
		return 0, nil, fmt.Errorf("storage: login %q: %w", login, storage.ErrNotFound)
	case err != nil:
		return 0, nil, err
	}
	s.verifiers.Set(login, id)
	return id, acct, nil
}

// SRPAuth checks the client's proof against the handshake that client
// address ip started for login (see pendingSet for why only that one) and,
// when it matches, opens a session and answers the 60-entry record. The
// handshake is spent either way: one proof per pre_auth.
//
// Only a proof checked against a live handshake and found wrong is a wrong
// password, charged to the failed-proof limits (per address group, and per
// login and address group). A proof with no handshake to check against (it
// expired, was pushed out by the address's own newer ones, was already
// used, or was started from another address) is answered "please log in
// again" and charged nowhere: it says nothing about the password, and
// charging it let strangers who pushed a player's handshake out get the
// player throttled for their own right password (issue 22). sysInfo is the
// client's SysInfo of srpAuth (never logged).
func (s *Service) SRPAuth(ctx context.Context, login, proof, ip, sysInfo string) (*SessionRecord, error) {
	if err := checkLogin(login); err != nil {
		return nil, err
	}
	if !isHexDigest(proof) {
		return nil, fail(ReasonMalformed, errors.New("proof is not 64 hex characters"))
	}
	group := limit.AddrKey(ip) // the limiters' key; the session keeps ip
	pair := login + "\x00" + group
	refund, err := s.reserveFailure(login, ip, group, pair)
	if err != nil {
		return nil, err
	}
	h := s.pending.take(login, group, s.now())
	if h == nil {
		refund()
		return nil, fail(ReasonNoPendingLogin, nil)
	}
	if s.beforeCheck != nil {
		s.beforeCheck(login)
	}
	m2, err := h.server.Verify(proof)
	switch {
	case err == nil && !h.fake:
		refund()
		rec, err := s.open(ctx, h.account, ip, time.Time{}, ClientInfo{PreAuthSysInfo: h.sysInfo, SysInfo: boundSysInfo(sysInfo)},
			chainProof{account: h.account, salt: storage.SaltFingerprint(h.server.Salt())})
		if err != nil {
			return nil, err
		}
		rec.Proof = m2
		mute := rec.muteExpiration
		rec.MuteExpiration = &mute
		return &rec.SessionRecord, nil
	case err == nil, errors.Is(err, srp.ErrBadProof): // a fake handshake matches nothing a client knows
		return nil, fail(ReasonWrongPassword, nil) // charged: the reservation stands
	default: // a degenerate handshake (u = 0): no fault of the client's
		refund()
		return nil, fail(ReasonNoPendingLogin, err)
	}
}

// reserveFailure spends, before a password is checked, the failure the
// check may turn out to be, from both failed-proof limits (the address
// group's and the login-and-address's); refund gives both back when it
// was none (a right password, nothing to check). Spent first, so that
// attempts sent at once cannot all pass a check that nothing has spent
// yet: checked first and charged after, a burst of parallel proofs from
// one address, one per login, each got a password check past the
// address's limit.
func (s *Service) reserveFailure(login, ip, group, pair string) (refund func(), err error) {
	if ok, wait := s.failAddr.Allow(group); !ok {
		return nil, fail(ReasonTooManyFailures, fmt.Errorf("address %s: retry in %v", ip, wait))
	}
	if ok, wait := s.failPair.Allow(pair); !ok {
		s.failAddr.Refund(group)
		return nil, fail(ReasonTooManyFailures, fmt.Errorf("login %q from %s: retry in %v", login, ip, wait))
	}
	return func() { s.failAddr.Refund(group); s.failPair.Refund(pair) }, nil
}

func isHexDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// SwitchAuth opens a session on another account of the same main account as
// the session of cookie, and answers the 59-entry record. The old session
// stays valid. The new session expires when the old one does: switching
// (even to the same account) never extends a login past its absolute
// lifetime, cookie_lifetime after the password was checked.
func (s *Service) SwitchAuth(ctx context.Context, login, accountID, cookie, ip string) (*SessionRecord, error) {
	sess, err := s.Authenticate(cookie)
	if err != nil {
		return nil, err
	}
	if err := checkLogin(login); err != nil {
		return nil, err
	}
	// A login with no account, one with another account id and another
	// player's account all answer alike: the player may switch only among
	// the accounts the login record listed, and the answers must not tell
	// any logged-in player which logins exist and their ids.
	target, acct, err := s.loginAccount(login)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, fail(ReasonNotYourAccount, err)
	} else if err != nil {
		return nil, fail(ReasonInternal, err)
	}
	if accountID != strconv.FormatUint(uint64(target), 10) {
		return nil, fail(ReasonNotYourAccount, errors.New("account_id does not match login"))
	}
	if acct.SuperID != sess.SuperID {
		return nil, fail(ReasonNotYourAccount, nil)
	}
	// Every switch stores a session (a synced commit): spent here, once
	// the switch is known to be allowed, from the budgets of the account
	// switched to (whose records it writes; in a cluster the request is
	// served on that account's node) and of the client's address.
	if err := s.switches.Spend(uint64(target), ip); err != nil {
		return nil, fail(ReasonTooManySwitches, err)
	}
	// The new session continues the chain of the one it switched from:
	// refused, in the target's actor, when the password that opened the
	// chain has been reset since (a thief with a session of another account
	// of the family, switching back into an account just reset).
	rec, err := s.open(ctx, target, ip, sess.Expires, ClientInfo{}, chainProof{account: sess.ProofAccount, salt: sess.ProofSalt, switched: true})
	if err != nil {
		if !failure.Uncertain(err) {
			s.switches.Refund(uint64(target), ip) // refused with nothing written (a full disk, a reset chain)
		}
		return nil, err
	}
	rec.ClientDisco = "OK"
	return &rec.SessionRecord, nil
}

// Authenticate returns the live session of cookie.
func (s *Service) Authenticate(cookie string) (*storage.Session, error) {
	if len(cookie) != 32 || !isLowerHex(cookie) {
		return nil, fail(ReasonInvalidCookie, nil)
	}
	sess, err := s.sys.Session(cookie) // memory, not disk, for a live session
	if errors.Is(err, storage.ErrNotFound) {
		return nil, fail(ReasonInvalidCookie, nil)
	} else if err != nil {
		return nil, fail(ReasonInternal, err)
	}
	if !sess.Valid(s.now()) {
		return nil, fail(ReasonInvalidCookie, errors.New("expired"))
	}
	return sess, nil
}

// LoggedAccount names the account of a session cookie for an access line:
// the live session's account. In cluster mode it is the account the
// cookie's session was seen to be of (actors.System.SessionAccount), the
// one the request was routed to, which checks the session itself: the
// node a request reached reads no session for its log line. false: none.
func (s *Service) LoggedAccount(cookie string) (storage.AccountID, bool) {
	if len(cookie) != 32 || !isLowerHex(cookie) {
		return 0, false
	}
	if s.sys.Clustered() {
		id, err := s.sys.SessionAccount(cookie)
		return id, err == nil
	}
	sess, err := s.Authenticate(cookie)
	if err != nil {
		return 0, false
	}
	return sess.AccountID, true
}

// ErrInvalidCookie matches Authenticate's failures with errors.Is.
var ErrInvalidCookie = &Error{Reason: ReasonInvalidCookie}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// opened is a session record still being filled by its caller.
type opened struct {
	SessionRecord
	muteExpiration int64
}

// open issues a session for account id (through its actor) and builds the
// record from the account as the actor held it at that moment. The session
// expires cookie_lifetime from now, or at notAfter if that is earlier and
// not zero. Past sessions_per_account live sessions, the oldest are ended in
// the same commit.
//
// p is the password check the session's chain began with (kept with the
// session): the account's actor refuses the session when that account's
// credentials have changed since (an operator reset the password while
// the handshake was pending, or after a session of the chain switched to
// another account of the family; every new verifier has a new salt, see
// srp.Group.NewVerifier): a login is told to log in again, a switch that
// its cookie is invalid.
func (s *Service) open(ctx context.Context, id storage.AccountID, ip string, notAfter time.Time, client ClientInfo, p chainProof) (*opened, error) {
	var raw [16]byte
	if _, err := io.ReadFull(s.rand, raw[:]); err != nil {
		return nil, fail(ReasonInternal, err)
	}
	now := s.now().UTC()
	expires := now.Add(s.set.CookieLifetime)
	if !notAfter.IsZero() && notAfter.Before(expires) {
		expires = notAfter
	}
	sess := &storage.Session{Cookie: hex.EncodeToString(raw[:]), AccountID: id, IP: ip,
		Created: now, Expires: expires, ProofAccount: p.account, ProofSalt: p.salt}
	issued, err := actors.Apply(ctx, s.sys, id, (&issueSession{session: sess, max: s.set.SessionsPerAccount, hook: s.hook,
		client: client, now: now, switched: p.switched, published: s.sys.Published, identities: s.identities}).apply)
	if err != nil {
		return nil, writeFailure(err)
	}
	s.live.Add(1 - int64(issued.ended))
	rec := s.record(issued.acct, sess, issued.idents, now)
	if issued.fields.SuspID != "" {
		rec.SuspID = issued.fields.SuspID
	}
	return rec, nil
}

// identities lists [nickname, account id] of the main account and each of its
// sub-accounts, and their ids (the family, main first). The account
// logging in is already at hand; the others are read from storage.
func (s *Service) identities(self *storage.Account) ([][2]string, []storage.AccountID, error) {
	subs, err := s.db.SubAccounts(self.SuperID)
	if err != nil {
		return nil, nil, err
	}
	out := make([][2]string, 0, 1+len(subs))
	family := make([]storage.AccountID, 0, 1+len(subs))
	for _, id := range append([]storage.AccountID{self.SuperID}, subs...) {
		a := self
		if id != self.ID {
			a, err = s.profile(id)
			if errors.Is(err, storage.ErrNotFound) {
				continue // deleted since the list was read
			} else if err != nil {
				return nil, nil, err
			}
		}
		out = append(out, [2]string{a.Nickname, itoa(a.ID)})
		family = append(family, a.ID)
	}
	return out, family, nil
}

// profile returns account id's profile (no owned upgrades) for a read that
// feeds no write: the live actor's published state when there is one (no
// disk read, no decode: what switch_auth and every login spend most on
// besides the commit), else the stored record, without activating an actor
// for it.
func (s *Service) profile(id storage.AccountID) (*storage.Account, error) {
	if a := s.sys.Published(id); a != nil {
		return a, nil
	}
	return s.db.AccountProfile(id)
}

func (s *Service) mac(parts ...string) []byte {
	m := s.macs.Get().(hash.Hash)
	defer s.macs.Put(m)
	m.Reset()
	for _, p := range parts {
		m.Write([]byte(p))
		m.Write([]byte{0})
	}
	return m.Sum(nil)
}

func (s *Service) record(a *storage.Account, sess *storage.Session, idents [][2]string, now time.Time) *opened {
	id := itoa(a.ID)
	upgrades := make([]string, 0, len(a.Upgrades))
	for _, u := range a.Upgrades {
		upgrades = append(upgrades, u.ID)
	}
	notices := make([]Notice, 0, len(a.Notifications))
	for _, n := range a.Notifications {
		notices = append(notices, notice(n))
	}
	useCloud := flag(a.Cloud.UseCloud)
	iv := s.mac("iv", sess.Cookie)
	r := &opened{muteExpiration: a.MuteExpiration}
	r.SessionRecord = SessionRecord{
		SecInfo: SecInfo{InitialVector: hex.EncodeToString(iv[:8]), HashCode: hex.EncodeToString(s.mac("hash", id, sess.Cookie)),
			KeyVersion: s.set.KeyVersion},
		SuperID: itoa(a.SuperID), AccountID: id, Nickname: a.Nickname, Email: a.Email,
		AccountType: itoa(a.AccountType), Trial: itoa(a.Trial), SuspID: itoa(a.SuspID), Standing: itoa(a.Standing),
		UseCloud: &useCloud, IsNew: boolInt(a.IsNew), Cookie: sess.Cookie, IP: sess.IP,
		MinimumRankedLevel: itoa(s.set.MinRankedLevel), LeaverThreshold: s.set.LeaverThreshold,
		IsSubaccount: len(idents) > 1, IsCurrentSubaccount: a.SuperID != a.ID,
		ICBURL: s.set.ICBURL, AuthHash: hex.EncodeToString(s.mac("auth", id, sess.IP, sess.Cookie)),
		HostTime: unix(now), ChatURL: s.set.ChatHost, ChatPort: itoa(s.set.ChatPort),
		CommentingURL: s.set.CommentingHost, CommentingPort: s.set.CommentingPort,
		HeroList:       HeroList{Free: pick(a.FreeHeroes, s.set.FreeHeroes)},
		BuddyList:      buddyList(a),
		IgnoredList:    ignoredList(a),
		BannedList:     bannedList(a),
		Infos:          []StatsInfo{statsInfo(a)},
		ClanMemberInfo: ErrorEntry{Error: "No clan member info found"},
		Chatrooms:      append(append([]string{}, s.set.Chatrooms...), a.Chatrooms...),
		Notifications:  notices,
		ClanRoster:     ErrorEntry{Error: "No clan roster found"},
		Identities:     idents,
		Points:         itoa(a.Points), MMPoints: itoa(a.MMPoints), DiceTokens: itoa(a.DiceTokens),
		SeasonLevel: int(a.SeasonLevel), MyUpgrades: upgrades, SelectedUpgrades: append([]string{}, a.SelectedUpgrades...),
		GameTokens: a.GameTokens, MyUpgradesInfo: upgradesInfo(a), CreepLevel: int(a.CreepLevel),
		Timestamp: now.Unix(), AwardsTooltip: s.tooltips,
		CampaignSeason: itoa(s.set.CampaignSeason), MMRRank: s.set.MMRRank,
		CloudStorageInfo: a.Cloud.UseCloud,
	}
	return r
}

func pick(v, fallback string) string {
	if v != "" {
		return v
	}
	return fallback
}

// issueSession stores a new session of the account and answers a snapshot
// of the account taken in the same step.
type issueSession struct {
	session *storage.Session
	max     int // sessions per account
	hook    SessionHook
	client  ClientInfo
	now     time.Time
	// switched: a switch_auth's session (continuing another's chain), not
	// a password's.
	switched bool
	// published is actors.System.Published (another account's live state,
	// or nil).
	published func(storage.AccountID) *storage.Account
	// identities lists the accounts of the record's account list; read
	// before the commit, so that no failure after it hides the session
	// (and the older sessions it ended).
	identities func(*storage.Account) ([][2]string, []storage.AccountID, error)
}

// issued is the reply of issueSession.
type issued struct {
	acct   *storage.Account
	idents [][2]string
	fields RecordFields
	ended  int // sessions of the account ended: the expired ones and those past the limit
}

// chainProof is the password check a session's chain began with: the account
// whose password was checked, and the fingerprint of its salt then
// (storage.Session.ProofAccount, ProofSalt). The zero proof checks nothing
// (a session from before they were kept).
type chainProof struct {
	account  storage.AccountID
	salt     uint64
	switched bool // passed on by switch_auth (not checked by this session's own password)
}

// errCredentialsChanged: the password was checked against credentials the
// account no longer has.
var errCredentialsChanged = errors.New("the password that began this login was changed since")

// stale reports whether p's account no longer has the credentials p was
// checked against, read in the actor of account a: from a's state when p
// is a's (exact: a reset of a runs in this actor), else from the live
// state of p's account when it has one on this node (published), else from
// storage. (A reset of another account published a moment after its
// commit lets a switch into this one through; the reset's pass over the
// family's sessions, which follows, ends it.)
func (p chainProof) stale(tx *actors.Tx, a *storage.Account, published func(storage.AccountID) *storage.Account) (bool, error) {
	switch {
	case p.account == 0:
		return false, nil
	case p.account == a.ID:
		return !a.CredentialsMatch(p.salt), nil
	}
	if o := published(p.account); o != nil {
		return !o.CredentialsMatch(p.salt), nil
	}
	cred, err := tx.DB().Credentials(p.account)
	if errors.Is(err, storage.ErrNotFound) {
		// Deleted since (its own sessions went with it): no password of
		// it can have been reset, and the chain's other sessions stay
		// valid, as a deletion leaves them.
		return false, nil
	} else if err != nil {
		return false, err
	}
	return storage.SaltFingerprint(cred.Salt) != p.salt, nil
}

func (c *issueSession) apply(tx *actors.Tx) (*issued, error) {
	a := tx.View()
	switch stale, err := (chainProof{account: c.session.ProofAccount, salt: c.session.ProofSalt}).stale(tx, a, c.published); {
	case err != nil:
		return nil, err
	case stale && c.switched:
		return nil, fail(ReasonInvalidCookie, errCredentialsChanged) // the chain's password was reset: its cookie is done
	case stale:
		return nil, fail(ReasonNoPendingLogin, errCredentialsChanged) // a pre_auth from before the reset: log in again
	}
	idents, family, err := c.identities(a)
	if err != nil {
		return nil, err
	}
	c.client.Family = family
	c.session.SuperID = a.SuperID
	if err := tx.PutSession(c.session); err != nil {
		return nil, err
	}
	// The actor runs one change of this account at a time, and commits each
	// before the next: the account's sessions read here are all there are.
	stored, err := tx.Sessions()
	if err != nil {
		return nil, err
	}
	out := &issued{acct: a, idents: idents}
	for _, old := range sessionsToEnd(stored, c.session, c.max, c.now) {
		if err := tx.DeleteSession(old); err != nil {
			return nil, err
		}
		out.ended++
	}
	if c.hook != nil {
		f, err := c.hook(tx, c.client, c.now)
		if err != nil {
			return nil, err
		}
		out.fields = f
	}
	// This change never calls tx.Account(), so the working copy is the
	// change's own and is not adopted by the actor: it may leave without
	// another copy.
	return out, nil
}
