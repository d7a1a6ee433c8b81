package matches

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	mrand "math/rand/v2"
	"time"

	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/host/area"
	pb "github.com/honmaster/masterserver/host/matches/internal/matchesrecpb"
	"github.com/honmaster/masterserver/storage"
)

// The area's records (see doc.go).
var (
	// roles: key "game_host", true when the account may run a server
	// manager and game servers.
	roles = storage.NewAccountKeyspace("matches.role", storage.Proto[*wrapperspb.BoolValue]())
	// servers of a game-host account, by id (KeyUint32).
	servers = storage.NewAccountKeyspace("matches.server", storage.Proto[*pb.Server]())
	// matchRecs of a game-host account, by id (KeyUint32).
	matchRecs = storage.NewAccountKeyspace("matches.match", storage.Proto[*pb.Match]())
	// matchIndex finds a match's game-host account: key the match id
	// (KeyUint32), writer the host; written with the match.
	matchIndex = storage.NewIndexKeyspace("matches.byid", storage.Proto[*wrapperspb.UInt32Value]())
	// totals of a player, key "".
	totals = storage.NewAccountKeyspace("matches.totals", storage.Proto[*pb.Totals]())
	// keys issued to a player, by server id (KeyUint32).
	keys = storage.NewAccountKeyspace("matches.key", storage.Proto[*pb.Key]())
	// seq holds the sequences "match" and "server" (global: unique across
	// the nodes of a cluster, whose global commits are ordered).
	seq = storage.NewGlobalKeyspace("matches.seq", storage.Proto[*pb.Counter]())
)

const roleGameHost = "game_host"

// IsGameHost reports whether account id may run a server manager and game
// servers.
func IsGameHost(db *storage.DB, id storage.AccountID) (bool, error) {
	v, err := roles.Get(db, id, roleGameHost)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return v.GetValue(), nil
}

// SetGameHost gives (or, with on false, takes away) the game-host role of
// account id, through the account's actor. Taking it away ends the
// sessions of the account's servers and manager at their next request
// (they are refused while the account is not a game host).
func SetGameHost(ctx context.Context, sys *actors.System, id storage.AccountID, on bool) error {
	_, err := actors.Apply(ctx, sys, id, func(tx *actors.Tx) (struct{}, error) {
		if !on {
			roles.Delete(tx, roleGameHost)
			return struct{}{}, nil
		}
		return struct{}{}, roles.Put(tx, roleGameHost, wrapperspb.Bool(true))
	})
	return err
}

// SetGameHostByLogin is SetGameHost for the account of login; it returns
// the account's id.
func SetGameHostByLogin(ctx context.Context, sys *actors.System, login string, on bool) (storage.AccountID, error) {
	id, err := sys.DB().LoginID(login)
	if err != nil {
		return 0, err
	}
	return id, SetGameHost(ctx, sys, id, on)
}

// seqTries bounds the runs of one update of a global sequence (see
// retried).
const seqTries = 8

// retried runs fn again, at most seqTries times in all after a short
// random pause, while it is refused with nothing written because another
// writer committed first (area.CauseRetry). It is for the global
// sequences (nextID): in cluster mode every node's registry takes ids from
// them, ordered by compare-and-set, and UpdateGlobal's own few runs can
// all lose to the other nodes while many matches start at once. Any other
// error, an unknown outcome above all, is returned at once.
//
// The writes of a game-host account are not retried (applyHost): every
// request about the host is served on its home node (hostOf), by its one
// actor, so no other activation writes it first. What remains is every
// area's lot in cluster mode, answered "try again" (503) with nothing
// written: a request served while the home moves (a membership change)
// or away from an unreachable home (actors run such a change once more
// in a fresh activation). The shares of a match's totals are applied by
// each participant's actor, in a transient activation when the
// participant is homed on another node: the effect's design
// (docs/effects.md), whose recovery pass finishes a share that failed.
func retried[R any](ctx context.Context, fn func() (R, error)) (R, error) {
	for try := 1; ; try++ {
		r, err := fn()
		if err == nil || try == seqTries || area.CauseOf(err) != area.CauseRetry {
			return r, err
		}
		t := time.NewTimer(time.Duration(try)*5*time.Millisecond + time.Duration(mrand.Int64N(int64(10*time.Millisecond))))
		select {
		case <-ctx.Done():
			t.Stop()
			return r, err
		case <-t.C:
		}
	}
}

// applyHost is actors.Apply on a game-host account. In cluster mode the
// request runs on the host's home node (the area's routes name the host:
// hostOf), whose actor is the host's one writer: no retry (see retried).
func applyHost[R any](ctx context.Context, sys *actors.System, host storage.AccountID, fn actors.ChangeFunc[R]) (R, error) {
	return actors.Apply(ctx, sys, host, fn)
}

// errSequence: a sequence ran out of 31-bit ids (the game reads them as
// signed 32-bit integers).
var errSequence = errors.New("the id sequence is exhausted")

// nextID takes the next id of the global sequence name ("match" or
// "server"): durable before it is returned, never handed out twice, on
// any node of a cluster (global commits are ordered by compare-and-set).
func nextID(ctx context.Context, sys *actors.System, name string) (uint32, error) {
	next := nextOf(name)
	v, err := retried(ctx, func() (any, error) { return sys.UpdateGlobal(ctx, next) })
	if err != nil {
		return 0, err
	}
	return v.(uint32), nil
}

// nextOf is nextID's global update of sequence name.
func nextOf(name string) func(g *actors.GlobalTx) (any, error) {
	return func(g *actors.GlobalTx) (any, error) {
		c, err := seq.Get(g.DB(), name)
		if errors.Is(err, storage.ErrNotFound) {
			c, err = &pb.Counter{}, nil
		}
		if err != nil {
			return nil, err
		}
		if c.Last >= math.MaxInt32 {
			return nil, errSequence
		}
		n := c.Last + 1
		return uint32(n), seq.Put(g, name, &pb.Counter{Last: n})
	}
}

// A token is what a server, a manager or a player's connection key
// carries: the owner's account id, an id (the server's; 0 for a key) and a
// secret of secretBytes random bytes, in lowercase hex. Only the secret's
// SHA-256 is stored; a token is checked in constant time.
const secretBytes = 16

// tokenLen is a server session's length in hex characters (48): never a
// player's cookie (32), so neither is ever taken for the other.
const tokenLen = 2 * (4 + 4 + secretBytes)

type token struct {
	owner  storage.AccountID
	id     uint32
	secret [secretBytes]byte
}

func newToken(owner storage.AccountID, id uint32) token {
	t := token{owner: owner, id: id}
	_, _ = rand.Read(t.secret[:])
	return t
}

func (t token) String() string {
	var b [4 + 4 + secretBytes]byte
	binary.BigEndian.PutUint32(b[0:], uint32(t.owner))
	binary.BigEndian.PutUint32(b[4:], t.id)
	copy(b[8:], t.secret[:])
	return hex.EncodeToString(b[:])
}

func (t token) hash() []byte { h := sha256.Sum256(t.secret[:]); return h[:] }

// matches reports whether stored is the hash of t's secret (constant
// time).
func (t token) matches(stored []byte) bool {
	h := t.hash()
	return len(stored) == len(h) && subtle.ConstantTimeCompare(h, stored) == 1
}

// parseToken reads a token; ok is false for anything else (a player's
// cookie, garbage).
func parseToken(s string) (token, bool) {
	if len(s) != tokenLen {
		return token{}, false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return token{}, false
		}
	}
	var b [4 + 4 + secretBytes]byte
	if _, err := hex.Decode(b[:], []byte(s)); err != nil {
		return token{}, false
	}
	t := token{owner: storage.AccountID(binary.BigEndian.Uint32(b[0:])), id: binary.BigEndian.Uint32(b[4:])}
	copy(t.secret[:], b[8:])
	return t, t.owner != 0
}

// hostOfMatch is the game-host account that started match id.
func hostOfMatch(db *storage.DB, id uint32) (storage.AccountID, bool, error) {
	var host storage.AccountID
	err := matchIndex.Each(db, storage.KeyUint32(id), func(_ string, w storage.AccountID, _ *wrapperspb.UInt32Value) error {
		host = w
		return nil
	})
	return host, host != 0, err
}

// LoadMatch reads match id and its game-host account (ErrNotFound).
func LoadMatch(db *storage.DB, id uint32) (*pb.Match, storage.AccountID, error) {
	host, ok, err := hostOfMatch(db, id)
	if err != nil {
		return nil, 0, err
	}
	if !ok {
		return nil, 0, fmt.Errorf("match %d: %w", id, storage.ErrNotFound)
	}
	m, err := matchRecs.Get(db, host, storage.KeyUint32(id))
	return m, host, err
}

// TotalsOf reads a player's totals (zero when none recorded).
func TotalsOf(db *storage.DB, id storage.AccountID) (*pb.Totals, error) {
	t, err := totals.Get(db, id, "")
	if errors.Is(err, storage.ErrNotFound) {
		return &pb.Totals{}, nil
	}
	return t, err
}

// IssueKey issues a connection key for player to connect to server
// serverID, valid for lifetime: what the client's server list hands out
// (acc_key), checked by the server's accept_key. It replaces the player's
// earlier key for that server, drops the player's expired keys, and is
// written through the player's actor. The server must exist.
func IssueKey(ctx context.Context, sys *actors.System, player storage.AccountID, serverID uint32, lifetime time.Duration, now time.Time) (string, error) {
	t := newToken(player, 0)
	_, err := actors.Apply(ctx, sys, player, func(tx *actors.Tx) (struct{}, error) {
		var stale []string
		err := keys.Each(tx.DB(), tx.ID(), "", func(k string, v *pb.Key) error {
			if v.Expires <= now.Unix() {
				stale = append(stale, k)
			}
			return nil
		})
		if err != nil {
			return struct{}{}, err
		}
		for _, k := range stale {
			keys.Delete(tx, k)
		}
		return struct{}{}, keys.Put(tx, storage.KeyUint32(serverID), &pb.Key{ServerId: serverID, SecretHash: t.hash(),
			Expires: now.Add(lifetime).Unix()})
	})
	if err != nil {
		return "", err
	}
	return t.String(), nil
}

// checkKey reports whether key is a live key issued for server serverID.
func checkKey(db *storage.DB, key string, serverID uint32, now time.Time) bool {
	t, ok := parseToken(key)
	if !ok || t.id != 0 {
		return false
	}
	k, err := keys.Get(db, t.owner, storage.KeyUint32(serverID))
	return err == nil && k.ServerId == serverID && now.Unix() < k.Expires && t.matches(k.SecretHash)
}
