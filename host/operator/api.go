package operator

// The operator API's paths and the answers its clients decode: the
// server's handlers (host/cli) and the load tester (host/loadtest) share
// them. The API goes through the same services as the operator commands,
// and so through the accounts' actors.
const (
	// PathAccount: GET ?login=L, the account (Account);
	// POST login, password [, parent], create one; DELETE ?login=L, delete
	// the account and its sub-accounts (answers Deleted).
	PathAccount = "/operator/v1/account"
	// PathGrant: POST login [, gold, silver, tickets, upgrade...].
	PathGrant = "/operator/v1/grant"
	// PathGuides: GET [?hero=H], every stored guide (hidden ones included)
	// with its full counts, []GuideCounts in gid order.
	PathGuides = "/operator/v1/guides"
)

// Account is an account as the API shows it (the answer to the account
// and grant requests).
type Account struct {
	ID       uint32   `json:"id"`
	Login    string   `json:"login"`
	SuperID  uint32   `json:"super_id"`
	Gold     int64    `json:"gold"`
	Silver   int64    `json:"silver"`
	Tickets  int64    `json:"tickets"`
	Upgrades []string `json:"upgrades"`
}

// Deleted is the answer to a deletion.
type Deleted struct {
	Accounts []DeletedAccount `json:"accounts"` // sub-accounts first
	Records  int              `json:"records"`
}

// DeletedAccount is one deleted account.
type DeletedAccount struct {
	ID      uint32         `json:"id"`
	Login   string         `json:"login"`
	Records int            `json:"records"`
	Counts  map[string]int `json:"counts"` // records by key family or keyspace
}

// GuideCounts is one guide with its counts: imported plus players'.
type GuideCounts struct {
	Gid         uint32 `json:"gid"`
	Hero        string `json:"hero"`
	Name        string `json:"name"`
	Hidden      bool   `json:"hidden"`
	Up          uint32 `json:"up"`
	Down        uint32 `json:"down"`
	PlayersUp   uint32 `json:"players_up"`
	PlayersDown uint32 `json:"players_down"`
}
