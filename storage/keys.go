package storage

import (
	"encoding/binary"
	"fmt"
)

// Every key prefix of the database lives in this file. Prefixes are one
// byte plus '/', so that a prefix scan of one kind never touches another.
// Schema version 2 (see migrate.go for version 1):
//
//	a/<id:4>                    Profile: profile, balances, statistics (pb.Profile)
//	b/<id:4>                    Lists: buddies, ignored, banned, notifications ... (pb.Lists)
//	o/<id:4><upgrade>           one owned upgrade (pb.Upgrade)
//	l/<login>                   AccountID of a login (4 bytes)
//	u/<super:4><id:4>           sub-account index entry (empty value)
//	s/<sha256(cookie):32>       Session (pb.Session); the cookie itself is never stored
//	c/<id:4><key>               taken by an area's keyspace declared at a fixed
//	                            prefix (NewAccountKeyspaceAt): host/cloud's archives,
//	                            stored there since schema version 1
//	x/<keyspace>/<id:4><key>    a record of a per-account keyspace an area declared
//	g/<keyspace>/<key>          a record of a global keyspace an area declared
//	i/<keyspace>/<key><id:4>    an entry of an index keyspace, owned by account id (index.go)
//	m/<name>                    metadata (next account id, schema version, secrets)
//	m/global_seq                the global sequence, raised by every global write (global.go)
//	m/gver/<keyspace>           the global sequence of the last write of a global keyspace
//	e/<id:4>                    owner record: the account's owner epoch and node (owner.go)
//	k/<skeleton>                AccountID of the login whose look-alike skeleton this is (skeleton.go)
//	n/<keyspace>/<key>          a kept count an area declared, changed by count operations (counts.go)
//	r/<id:4><key>               (empty) the i/ or k/ entry <key> belongs to account id, so that
//	                            deleting an account finds its entries without scanning every
//	                            account's (owners.go; since schema version 4)
//	v/<id:4>                    the account's SRP salt, salt2 and verifier (pb.Credentials,
//	                            credentials.go; since schema version 5: a/<id> held them before)
//	t/<id:4>                    the account's sessions: the key, creation and expiry of each,
//	                            oldest first (sessions.go; since schema version 6)
//	f/<effect id:16>            an unfinished effect on several accounts (pb.Effect, effects.go)
//
// Every value written by version 2 starts with the format byte 2 (a
// version 1 value starts with 1), except the fixed-size index values, the
// counters (8 bytes, big-endian) and the owner records.
const (
	prefixAccount  = "a/"
	prefixLists    = "b/"
	prefixOwned    = "o/"
	prefixLogin    = "l/"
	prefixSub      = "u/"
	prefixSession  = "s/"
	prefixAcctKS   = "x/"
	prefixGlobKS   = "g/"
	prefixMeta     = "m/"
	prefixOwner    = "e/"
	prefixSkeleton = "k/"
	prefixOwners   = "r/"
	prefixCreds    = "v/"
)

// ownPrefixes are the one-letter prefixes storage uses itself: no keyspace
// may be declared at one of them (NewAccountKeyspaceAt). pluginstate/ is
// longer and never shares a "<byte>/" start.
var ownPrefixes = map[string]bool{
	prefixAccount: true, prefixLists: true, prefixOwned: true, prefixLogin: true, prefixSub: true,
	prefixSession: true, prefixAcctKS: true, prefixGlobKS: true, prefixMeta: true, prefixIndex: true,
	prefixOwner: true, prefixSkeleton: true, prefixCount: true, prefixOwners: true, prefixCreds: true,
	prefixAccountSession: true, prefixEffect: true,
}

// Metadata names kept under the m/ prefix.
const (
	metaNextAccountID = "next_account_id"
	metaSchema        = "schema_version"
	metaClusterName   = "cluster_name"  // the cluster whose nodes use this PostgreSQL database (OpenPostgres)
	metaClusterPeer   = "cluster_peer/" // + a peer's cluster address, as some node's peers list it (RecordClusterPeer)
	metaGlobalSeq     = "global_seq"
	metaGlobalVersion = "gver/" // + keyspace name
)

// Value format bytes.
const (
	formatV1 = 1 // JSON (schema version 1)
	formatV2 = 2 // protobuf (schema version 2)
)

func accountKey(id AccountID) []byte { return appendID([]byte(prefixAccount), id) }
func listsKey(id AccountID) []byte   { return appendID([]byte(prefixLists), id) }
func credsKey(id AccountID) []byte   { return appendID([]byte(prefixCreds), id) }
func ownedPrefix(id AccountID) []byte {
	return appendID([]byte(prefixOwned), id)
}
func ownedKey(id AccountID, upgrade string) []byte { return append(ownedPrefix(id), upgrade...) }
func loginKey(login string) []byte                 { return append([]byte(prefixLogin), login...) }
func subKey(super, id AccountID) []byte {
	return appendID(appendID([]byte(prefixSub), super), id)
}
func subPrefix(super AccountID) []byte { return appendID([]byte(prefixSub), super) }
func sessionKey(hash [32]byte) []byte  { return append([]byte(prefixSession), hash[:]...) }
func metaKey(name string) []byte       { return append([]byte(prefixMeta), name...) }

func appendID(b []byte, id AccountID) []byte { return binary.BigEndian.AppendUint32(b, uint32(id)) }

func decodeID(b []byte) (AccountID, error) {
	if len(b) != 4 {
		return 0, fmt.Errorf("%w: account id of %d bytes", ErrCorrupt, len(b))
	}
	return AccountID(binary.BigEndian.Uint32(b)), nil
}

// prefixEnd returns the smallest key greater than every key with prefix p.
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		end[i]++
		if end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil // prefix of all 0xff: no upper bound
}
