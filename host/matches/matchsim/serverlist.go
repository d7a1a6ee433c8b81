package matchsim

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"net/url"

	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/wire"
)

// The client's side of the server list and the chat server's session
// check, as the notes (sections 3 and 4) describe them.

// PathClient is the client's path.
const PathClient = "/client_requester.php"

// Game types of the server list.
const (
	GameTypeJoin   = "10" // servers in a lobby or loading
	GameTypeCreate = "90" // servers to create a game on
)

// ListEntry is one server of a list.
type ListEntry struct {
	ServerID int64
	IP       string
	Port     int64
	Location string
	// CState is c_state (the create list), Class class (the join list);
	// "" when absent.
	CState, Class string
}

// ServerList is a server_list reply.
type ServerList struct {
	Servers map[int64]ListEntry
	Key     string // acc_key
	KeyHash string // acc_key_hash
	Reply   *Reply
}

// ListServers asks the server list as a player (its cookie) for gametype
// and region. The reply must be a 200 carrying server_list, acc_key and
// acc_key_hash, each entry keyed by its server_id.
func ListServers(ctx context.Context, c *client.Client, cookie, gametype, region string) (*ServerList, error) {
	r, err := Call(ctx, c, "server_list", PathClient+"?f=server_list", url.Values{"cookie": {cookie}, "gametype": {gametype}, "region": {region}})
	if err != nil {
		return nil, err
	}
	if _, err := ok(r, "server_list", "acc_key", "acc_key_hash", "vested_threshold"); err != nil {
		return &ServerList{Reply: r}, err
	}
	l := &ServerList{Servers: map[int64]ListEntry{}, Reply: r}
	l.Key, _ = r.Str("acc_key")
	l.KeyHash, _ = r.Str("acc_key_hash")
	list, good := r.Array.Array("server_list")
	if !good {
		return l, refused(r, "server_list is not an array")
	}
	for k, v := range list.All() {
		e, good := v.(*wire.Array)
		if !good {
			return l, refused(r, "server_list entry %v is not an array", k)
		}
		var ent ListEntry
		ent.ServerID, _ = IntOf(e, "server_id")
		ent.IP, _ = e.String("ip")
		ent.Port, _ = IntOf(e, "port")
		ent.Location, _ = e.String("location")
		ent.CState, _ = e.String("c_state")
		ent.Class, _ = e.String("class")
		if key, isInt := k.(int64); !isInt || key != ent.ServerID || ent.ServerID <= 0 {
			return l, refused(r, "server_list entry %v carries server_id %d", k, ent.ServerID)
		}
		l.Servers[ent.ServerID] = ent
	}
	if l.Key == "" {
		return l, refused(r, "server_list answered an empty acc_key")
	}
	return l, nil
}

// KeyHash is the acc_key_hash the notes describe: the lowercase hex SHA-1
// of the key, the player's cookie and the chat salt.
func KeyHash(key, cookie, salt string) string {
	sum := sha1.Sum([]byte(key + cookie + salt))
	return hex.EncodeToString(sum[:])
}

// ChatClientConnect checks a player's session as a chat server does
// (client_requester.php?f=chatclient_connect). The reply is returned
// whatever its status.
func ChatClientConnect(ctx context.Context, c *client.Client, accountID, cookie, chatMode string) (*Reply, error) {
	return Call(ctx, c, "chatclient_connect", PathClient+"?f=chatclient_connect",
		url.Values{"account_id": {accountID}, "cookie": {cookie}, "chat_mode_type": {chatMode}})
}
