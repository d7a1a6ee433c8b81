package matchsim

import (
	"context"
	"net/url"
	"strconv"

	"github.com/honmaster/masterserver/host/client"
)

// Manager is a simulated server manager of a game-host account: it logs
// in with replay_auth (login "HOST:", the password's MD5), resubmits the
// statistics its game servers could not submit, and asks for the
// spectator header, as HoNfigurator does (the notes, §1, §2).
type Manager struct {
	C        *client.Client
	Host     string // the game-host account's login
	Password string // its plaintext password (only its MD5 is sent)

	// What replay_auth answered.
	ServerID int64
	Session  string
}

// NewManager returns a manager of the host account.
func NewManager(c *client.Client, host, password string) *Manager {
	return &Manager{C: c, Host: host, Password: password}
}

// Login is the manager's login: the host account's name and a colon.
func (m *Manager) Login() string { return m.Host + ":" }

// ReplayAuth logs the manager in. The reply must carry server_id,
// official 1 and session.
func (m *Manager) ReplayAuth(ctx context.Context) (*Reply, error) {
	r, err := m.ReplayAuthWith(ctx, m.Login(), PasswordMD5(m.Password))
	if err != nil {
		return nil, err
	}
	if _, err := ok(r, "server_id", "official", "session"); err != nil {
		return r, err
	}
	if off, _ := r.Int("official"); off != 1 {
		return r, refused(r, "replay_auth answered official other than 1")
	}
	m.ServerID, _ = r.Int("server_id")
	m.Session, _ = r.Str("session")
	if m.Session == "" {
		return r, refused(r, "replay_auth answered an empty session")
	}
	return r, nil
}

// ReplayAuthWith sends replay_auth with the login and pass given (a test's
// wrong ones), returning the reply whatever it says.
func (m *Manager) ReplayAuthWith(ctx context.Context, login, pass string) (*Reply, error) {
	return Call(ctx, m.C, "replay_auth", PathServer+"?f=replay_auth", url.Values{"login": {login}, "pass": {pass}})
}

// Resubmit sends the match's saved statistics again, as a manager does
// with a game server's M<match_id>.stats file: f=resubmit_stats, login,
// pass, resubmission_key and server_id, then the saved statistics body as
// it is. Success is the four "OK" keys and the match id.
func (m *Manager) Resubmit(ctx context.Context, matchID, serverID int64, stats url.Values) (*Reply, error) {
	return m.ResubmitWith(ctx, matchID, serverID, ResubmissionKey(matchID), stats)
}

// ResubmitWith is Resubmit with a key of the caller's (a wrong one).
func (m *Manager) ResubmitWith(ctx context.Context, matchID, serverID int64, key string, stats url.Values) (*Reply, error) {
	head := url.Values{"f": {"resubmit_stats"}, "login": {m.Login()}, "pass": {PasswordMD5(m.Password)},
		"resubmission_key": {key}, "server_id": {strconv.FormatInt(serverID, 10)}}
	body := []byte(head.Encode() + "&" + stats.Encode())
	r, err := CallBody(ctx, m.C, "resubmit_stats", PathStats, body)
	if err != nil {
		return nil, err
	}
	return statsOK(r, matchID)
}

// SpectatorHeader asks where to upload a replay (get_spectator_header,
// the function in the form). The notes read NEXUS's reply as JSON; the
// reply is returned as it is once it is a 200.
func (m *Manager) SpectatorHeader(ctx context.Context) (*Reply, error) {
	r, err := Call(ctx, m.C, "get_spectator_header", PathServer, url.Values{"f": {"get_spectator_header"},
		"login": {m.Login()}, "session": {m.Session}})
	if err != nil {
		return nil, err
	}
	return ok(r)
}
