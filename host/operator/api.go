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
)

// The areas add their own routes under /operator/v1/ (area.Live.API),
// with their paths and answers in their packages.

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
