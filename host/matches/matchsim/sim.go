// Package matchsim simulates the game's side of a match, as the master
// server meets it: a server manager (HoNfigurator, energizer) and the
// dedicated game servers it runs, written from the protocol notes
// (shared/spec/game-server-api.md), not from the matches area's code, so
// that the area's end-to-end tests and the load tester's "match"
// operation check the area against the protocol rather than against
// itself.
//
// A Manager logs in with replay_auth, resubmits saved statistics
// (resubmit_stats) and asks for the spectator header; a GameServer logs in
// as HOST:INSTANCE (new_session), sends heartbeats (set_online), starts a
// match (start_game), connects players by their client cookie (c_conn),
// checks connection keys (accept_key), and submits the match's statistics
// (stats_requester.php submit_stats). Match builds a submission of a 5v5
// match (about 1,040 form values; Long: about 4,500 with the item, ability
// and frag events) with a known winner and each player's K/D/A, and
// Hostile builds the forms a server must refuse.
//
// The package registers the load tester's "match" operation (loadtest.go);
// it does not import the area (host/matches blank-imports it).
package matchsim

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/wire"
)

// The master server's paths the game's side posts to.
const (
	PathServer = "/server_requester.php"
	PathStats  = "/stats_requester.php"
)

// ResubmissionSalt is the game's constant the resubmission key is made
// with (the notes, §2): every game server computes the same key.
const ResubmissionSalt = "s8c7xaduxAbRanaspUf3kadRachecrac9efeyupr8suwrewecrUphayeweqUmana"

// ResubmissionKey is the key a game server computes for a match's
// resubmission: the lowercase hex SHA-1 of the match id's decimal digits
// followed by ResubmissionSalt.
func ResubmissionKey(matchID int64) string {
	sum := sha1.Sum([]byte(strconv.FormatInt(matchID, 10) + ResubmissionSalt))
	return hex.EncodeToString(sum[:])
}

// PasswordMD5 is what managers and game servers send as pass: the
// lowercase hex MD5 of the plaintext password.
func PasswordMD5(password string) string {
	sum := md5.Sum([]byte(password))
	return hex.EncodeToString(sum[:])
}

// Reply is a reply of the master server to one call.
type Reply struct {
	Func   string // the function called
	Status int
	Body   []byte
	// Array is the body decoded, nil when it is not a PHP-serialized
	// array (an empty body, JSON, text).
	Array *wire.Array
}

// String is the reply for a message.
func (r *Reply) String() string {
	b := r.Body
	if len(b) > 300 {
		b = append(b[:300:300], "..."...)
	}
	return fmt.Sprintf("%s: HTTP %d %q", r.Func, r.Status, b)
}

// Int reads key as an integer sent as an integer or as decimal text.
func (r *Reply) Int(key string) (int64, bool) {
	if r.Array == nil {
		return 0, false
	}
	return IntOf(r.Array, key)
}

// Str reads key as text (an integer as its digits).
func (r *Reply) Str(key string) (string, bool) {
	if r.Array == nil {
		return "", false
	}
	if s, ok := r.Array.String(key); ok {
		return s, true
	}
	if n, ok := r.Array.Int(key); ok {
		return strconv.FormatInt(n, 10), true
	}
	return "", false
}

// IntOf reads key of arr as an integer sent as an integer or as decimal
// text.
func IntOf(arr *wire.Array, key any) (int64, bool) {
	if n, ok := arr.Int(key); ok {
		return n, true
	}
	s, ok := arr.String(key)
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return n, err == nil
}

// RefusedError is a reply that is not the function's success: another
// HTTP status, or a body without what the function answers.
type RefusedError struct {
	Reply *Reply
	Why   string
}

func (e *RefusedError) Error() string { return e.Why + ": " + e.Reply.String() }

// Refused returns the reply of a refusal (nil, false for any other error:
// no reply at all).
func Refused(err error) (*Reply, bool) {
	var re *RefusedError
	if errors.As(err, &re) {
		return re.Reply, true
	}
	return nil, false
}

// refused returns a *RefusedError.
func refused(r *Reply, format string, args ...any) error {
	return &RefusedError{Reply: r, Why: fmt.Sprintf(format, args...)}
}

// Call posts form (url-encoded) to path, which may carry a query, and
// returns the reply whatever its status. Its error is one of transport
// (no reply).
func Call(ctx context.Context, c *client.Client, fn, path string, form url.Values) (*Reply, error) {
	return CallBody(ctx, c, fn, path, []byte(form.Encode()))
}

// CallBody is Call with an url-encoded body of the caller's.
func CallBody(ctx context.Context, c *client.Client, fn, path string, body []byte) (*Reply, error) {
	r, err := c.Post(ctx, path, "application/x-www-form-urlencoded", body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fn, err)
	}
	out := &Reply{Func: fn, Status: r.Status, Body: r.Body}
	if v, err := wire.Unmarshal(r.Body); err == nil {
		out.Array, _ = v.(*wire.Array)
	}
	return out, nil
}

// ok returns the reply of a call that must answer 200 with a PHP array
// holding every key of want, or a *RefusedError.
func ok(r *Reply, want ...string) (*Reply, error) {
	if r.Status != 200 {
		return r, refused(r, "%s refused", r.Func)
	}
	if r.Array == nil && len(want) > 0 {
		return r, refused(r, "%s answered no PHP array", r.Func)
	}
	for _, k := range want {
		if _, present := r.Array.Get(k); !present {
			return r, refused(r, "%s answered without %s", r.Func, k)
		}
	}
	return r, nil
}

// statsOK checks a statistics reply: the four "OK" keys the game server
// checks (match_info, match_summ, match_stats, match_history), and, on a
// resubmission, the match id.
func statsOK(r *Reply, matchID int64) (*Reply, error) {
	if _, err := ok(r); err != nil {
		return r, err
	}
	if r.Array == nil {
		return r, refused(r, "%s answered no PHP array", r.Func)
	}
	for _, k := range []string{"match_info", "match_summ", "match_stats", "match_history"} {
		if s, _ := r.Array.String(k); s != "OK" {
			return r, refused(r, "%s answered %s other than \"OK\"", r.Func, k)
		}
	}
	if matchID != 0 {
		if id, _ := r.Int("match_id"); id != matchID {
			return r, refused(r, "%s answered match_id other than %d", r.Func, matchID)
		}
	}
	return r, nil
}
