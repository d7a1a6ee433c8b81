// Package accounts provides the operator-level account operations (create,
// grant) shared by the command line, the admin socket, the registration
// portal and the demo seed. Every write goes through the actors.
package accounts

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"math"
	"net/mail"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/failure/detail"
	"github.com/honmaster/masterserver/host/login"
	"github.com/honmaster/masterserver/host/srp"
	"github.com/honmaster/masterserver/storage"
)

var (
	// ErrBadLogin rejects a login that is empty, too long or has characters
	// other than letters, digits, '_' and '-' .
	ErrBadLogin = errors.New("accounts: login must be 1-12 letters, digits, '_' or '-'")
	// ErrBadPassword rejects an empty or over-long password.
	ErrBadPassword = errors.New("accounts: password must be 1-128 characters")
	// ErrBadEmail rejects an e-mail that is not a bare address or is
	// longer than the limit.
	ErrBadEmail = errors.New("accounts: e-mail must be a plain address of at most 254 bytes")
	// ErrBadNickname rejects a nickname that is too long, is not UTF-8
	// or holds control or invisible characters.
	ErrBadNickname = errors.New("accounts: bad nickname")
	// ErrNicknameTaken refuses a new account whose login, its nickname, is
	// another account's nickname.
	ErrNicknameTaken = errors.New("accounts: the login is another account's nickname")
	// ErrBadGrant rejects a grant that would make a balance negative or
	// overflow, or names a malformed upgrade; the detail.Error of this
	// kind says which.
	ErrBadGrant = errors.New("accounts: bad grant")
	// ErrGrantNegative is the ErrBadGrant of a balance that would end
	// below zero.
	ErrGrantNegative = errors.New("balance would go negative")
	// ErrGrantOverflow is the ErrBadGrant of a balance that would pass the
	// largest one stored (math.MaxInt64), where the sum would wrap round.
	ErrGrantOverflow = errors.New("balance would overflow")
	// ErrBadUpgrade refuses an upgrade id (CheckUpgrade); its text is the
	// rule, for the refusals of a grant and of a catalog.
	ErrBadUpgrade = errors.New("an upgrade id is <type>.<name> in at most 128 bytes of UTF-8, " +
		"without spaces, commas, pipes, backquotes, double quotes, control characters or invisible characters")
)

// Service creates accounts and grants them things.
type Service struct {
	Group *srp.Group
	Sys   *actors.System
	Rand  io.Reader // nil: crypto/rand
	Now   func() time.Time
	// MaxEmail bounds the e-mail length in bytes (0: 254).
	MaxEmail int

	skeletonsMu    sync.Mutex
	skeletonsBuilt bool // the store's look-alike index covers every stored login
}

// Create describes a new account.
type Create struct {
	Login, Password, Email, Nickname string
	Parent                           string // login of the main account, for a sub-account
	// Address is the client address of a registration ("" for an
	// operator's command), recorded with the account for the operator's
	// view of the accounts one address made.
	Address string
}

// CheckLogin validates a login for a new account.
func CheckLogin(l string) error {
	if l == "" || utf8.RuneCountInString(l) > login.MaxLoginLength {
		return ErrBadLogin
	}
	// Before the alphabet, which refuses them too: the sentence names them.
	if err := login.CheckVisible(l); err != nil {
		return fmt.Errorf("%w: %w", ErrBadLogin, err)
	}
	for _, r := range l {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-') {
			return ErrBadLogin
		}
	}
	if err := login.CheckNewLogin(l); err != nil {
		return fmt.Errorf("%w: %w", ErrBadLogin, err)
	}
	return nil
}

// MaxPasswordRunes is the longest password accepted, in characters.
const MaxPasswordRunes = 128

// Create makes an account: it derives the SRP verifier (the password itself
// is never stored) and has the registry write the record.
func (s *Service) Create(ctx context.Context, c Create) (*storage.Account, error) {
	defaulted := c.Nickname == ""
	if err := s.complete(&c); err != nil {
		return nil, err
	}
	if err := CheckPassword(c.Password); err != nil {
		return nil, err
	}
	salt, salt2, v, err := s.Group.NewVerifier(c.Login, c.Password, s.rand())
	if err != nil {
		return nil, err
	}
	// A login that looks like an existing one (DEMO, dеmo next to demo) is
	// refused by the store: its skeleton is inserted only if absent, in the
	// creating commit, whichever process creates it.
	if _, err := s.Sys.DB().LoginID(c.Login); err == nil {
		return nil, fmt.Errorf("%w: %q", actors.ErrLoginTaken, c.Login)
	}
	sk := login.Skeleton(c.Login)
	if _, err := s.Sys.DB().LoginSkeletonID(sk); err == nil { // early; the commit checks again
		return nil, login.ErrLoginLookalike
	}
	if defaulted {
		// The nickname is the login (every registration): it must not be
		// another player's nickname (an imported or operator-set one),
		// which the newcomer would then show as, and which reports and
		// match history, finding two players, would refuse to pick.
		// Case-insensitively, as the nickname index finds nicknames; a
		// nickname given on purpose (import, --nickname) may be shared.
		switch ids, err := s.Sys.DB().NicknameAccounts(c.Nickname); {
		case err != nil:
			return nil, err
		case len(ids) > 0:
			return nil, fmt.Errorf("%w: %q", ErrNicknameTaken, c.Nickname)
		}
	}
	if err := s.ensureSkeletons(ctx); err != nil {
		return nil, err
	}
	acct, err := s.Sys.CreateAccount(ctx, s.newAccount(c, sk, storage.SRPVerifier{Salt: salt, Salt2: salt2, Verifier: v}))
	if errors.Is(err, actors.ErrLoginLookalike) {
		return nil, fmt.Errorf("%w: %w", login.ErrLoginLookalike, err)
	}
	return acct, err
}

// complete checks c's login, e-mail and nickname and fills in the
// defaults of the e-mail and the nickname. Every way an account is made
// (Create: registration, the console, the operator API, account create;
// Import) goes through it, so none skips a rule.
func (s *Service) complete(c *Create) error {
	if err := CheckLogin(c.Login); err != nil {
		return err
	}
	if c.Email == "" {
		c.Email = strings.ToLower(c.Login) + "@example.invalid"
	}
	maxEmail := s.MaxEmail
	if maxEmail <= 0 {
		maxEmail = 254
	}
	if err := checkEmail(c.Email, maxEmail); err != nil {
		return err
	}
	if c.Nickname == "" {
		c.Nickname = c.Login
	}
	return CheckNickname(c.Nickname)
}

// MaxNicknameRunes is the longest nickname, in characters.
const MaxNicknameRunes = 64

// CheckNickname refuses a nickname that is longer than MaxNicknameRunes,
// is not UTF-8, or holds a control character (a line break, NUL) or an
// invisible or text-direction one (U+200B, U+202E): a nickname goes into
// every session record and identity list the game clients receive, and
// into the operator's pages and logs.
func CheckNickname(n string) error {
	if utf8.RuneCountInString(n) > MaxNicknameRunes || !PlainText(n) {
		return ErrBadNickname
	}
	return nil
}

// PlainText reports whether s is UTF-8 without a control character (a
// line break, NUL, a tab) or an invisible or text-direction one
// (login.CheckVisible: U+200B, U+202E): the rule of the texts every game
// client receives, nicknames, upgrade ids and the Plinko catalog's texts.
func PlainText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl) && login.CheckVisible(s) == nil
}

// CheckPassword refuses a password that is empty or longer than
// MaxPasswordRunes characters (ErrBadPassword): the rule of a new
// account's password and of a reset one.
func CheckPassword(p string) error {
	if p == "" || utf8.RuneCountInString(p) > MaxPasswordRunes {
		return ErrBadPassword
	}
	return nil
}

// newAccount is the creation request of a new account as c describes it
// (its defaults filled in), with the login's skeleton sk and its SRP
// credentials: every account starts from this record, whoever creates it.
func (s *Service) newAccount(c Create, sk string, cred storage.SRPVerifier) *actors.NewAccount {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	return &actors.NewAccount{
		Login: c.Login, ParentLogin: c.Parent, Address: c.Address, LoginSkeleton: sk,
		Account: storage.Account{
			Nickname: c.Nickname, Email: c.Email, AccountType: 1, Standing: 3, IsNew: true,
			Created: now().UTC(), SRP: cred,
			Stats: storage.Stats{Level: 1, AccPubSkill: 1500, RnkRating: 1500, CSRating: 1500},
		},
	}
}

// checkEmail accepts a bare address (name@example.com) of at most max
// bytes whose domain has a dot, as net/mail parses it back to itself: no display name, angle
// brackets, comments or quoted parts, and no control or invisible
// character (a CR LF would let the address add a header to a mail sent
// to it; <script> has no business in it either). The local part may hold
// UTF-8 letters (RFC 6532).
func checkEmail(email string, max int) error {
	if len(email) > max || strings.ContainsAny(email, "<>") ||
		strings.ContainsFunc(email, func(r rune) bool { return unicode.IsControl(r) || login.CheckVisible(string(r)) != nil }) {
		return emailError{max: max}
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Name != "" || a.Address != email {
		return emailError{max: max}
	}
	// A domain of the internet's: labels joined by dots ("name@localhost"
	// or "name@example" reaches nobody outside a machine or a network).
	domain := email[strings.LastIndexByte(email, '@')+1:]
	if !strings.Contains(domain, ".") || strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") || strings.Contains(domain, "..") {
		return emailError{max: max}
	}
	return nil
}

// skeletonsMarker is the metadata value that records which version of the
// skeleton rules (login.SkeletonVersion) the store's look-alike index was
// built with.
const skeletonsMarker = "login_skeletons"

// ensureSkeletons builds the store's look-alike index from the stored
// logins, once per database and version of the rules, before the first
// creation (actors.System.IndexLoginSkeletons): accounts created before
// the index existed get their entries. Creations wait for it (the first
// creation after an upgrade takes about as long as a scan of the logins
// and a commit per 1,024 of them); a failure is retried by the next
// creation.
func (s *Service) ensureSkeletons(ctx context.Context) error {
	s.skeletonsMu.Lock()
	defer s.skeletonsMu.Unlock()
	if s.skeletonsBuilt {
		return nil
	}
	// Not bounded by the request that came first (each step of the build
	// is, by the actors' ask timeout): a build cut short starts again.
	if _, err := s.Sys.IndexLoginSkeletons(context.WithoutCancel(ctx), skeletonsMarker, login.SkeletonVersion, login.Skeleton); err != nil {
		return fmt.Errorf("build the look-alike login index: %w", err)
	}
	s.skeletonsBuilt = true
	return nil
}

func (s *Service) rand() io.Reader {
	if s.Rand != nil {
		return s.Rand
	}
	return rand.Reader
}

// Grant adds to an account's balances and upgrades. Amounts may be negative
// (a correction) but no balance may end below zero (ErrGrantNegative) or
// above math.MaxInt64 (ErrGrantOverflow).
type Grant struct {
	Gold, Silver, Tickets int64
	Upgrades              []string
}

// To applies g to account id, through its actor, and returns the account
// as the grant left it.
func (g *Grant) To(ctx context.Context, sys *actors.System, id storage.AccountID) (*storage.Account, error) {
	return actors.Apply(ctx, sys, id, g.apply)
}

var _ actors.ChangeFunc[*storage.Account] = (*Grant)(nil).apply

// apply is the grant, run by actors.Apply in the account's actor.
func (g *Grant) apply(tx *actors.Tx) (*storage.Account, error) {
	v := tx.View()
	for _, b := range []struct {
		name      string
		have, add int64
	}{{"gold", v.Gold, g.Gold}, {"silver", v.Silver, g.Silver}, {"tickets", v.Tickets, g.Tickets}} {
		// Overflow first: a wrapped sum is negative and would be
		// reported as such.
		if b.add > 0 && b.have > math.MaxInt64-b.add {
			return nil, detail.New(ErrBadGrant, "%s %w (it holds %d, the grant adds %d, the largest balance is %d)",
				b.name, ErrGrantOverflow, b.have, b.add, int64(math.MaxInt64))
		}
		if b.have+b.add < 0 {
			return nil, detail.New(ErrBadGrant, "%s %w (it holds %d, the grant adds %d)", b.name, ErrGrantNegative, b.have, b.add)
		}
	}
	for _, u := range g.Upgrades {
		if err := CheckUpgrade(u); err != nil {
			return nil, detail.New(ErrBadGrant, "upgrade %q is refused: %w", u, err)
		}
	}
	a := tx.Account()
	a.Gold += g.Gold
	a.Silver += g.Silver
	a.Tickets += g.Tickets
	for _, u := range g.Upgrades {
		tx.AddUpgrade(storage.Upgrade{ID: u})
	}
	return a.Clone(), nil
}

// MaxUpgradeBytes is the longest upgrade id, in bytes.
const MaxUpgradeBytes = 128

// CheckUpgrade refuses an upgrade id (ErrBadUpgrade) that is not
// "<type>.<name>", is longer than MaxUpgradeBytes, or holds a character
// the wire or the client cannot carry as it is: a space, comma, pipe,
// backquote or double quote (the ids travel in separated lists), invalid
// UTF-8, a control character or an invisible one (as nicknames: PlainText).
// The ids land in my_upgrades of every session record of the account. It
// is the one rule of every way an upgrade is granted: an operator's grant
// and a Plinko catalog's prizes. Stored ids are not re-checked when read.
func CheckUpgrade(u string) error {
	typ, name, ok := strings.Cut(u, ".")
	if !ok || typ == "" || name == "" || len(u) > MaxUpgradeBytes || strings.ContainsAny(u, " |`,\"") || !PlainText(u) {
		return ErrBadUpgrade
	}
	return nil
}

// GrantTo applies g to the account with the given login.
func (s *Service) GrantTo(ctx context.Context, loginName string, g *Grant) (*storage.Account, error) {
	id, err := s.Sys.DB().LoginID(loginName)
	if err != nil {
		return nil, err
	}
	return g.To(ctx, s.Sys, id)
}
