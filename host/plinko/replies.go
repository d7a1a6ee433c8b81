package plinko

// Reply shapes, in the order the specification lists their entries. None
// carries the two trailing extras: the spec counts the entries of the
// casino replies (9, 10, 8) without them, and the recorded exchange replies
// have none either.

// boardReply answers /master/casino/ (9 entries).
type boardReply struct {
	StatusCode       int      `php:"status_code"`
	Tiers            []string `php:"tiers"`
	TicketCost       string   `php:"ticket_cost"`
	GoldCost         string   `php:"gold_cost"`
	UserGold         string   `php:"user_gold"`
	Silver           string   `php:"silver"`
	UserTickets      string   `php:"user_tickets"`
	AmountOfProducts string   `php:"amount_of_products"`
	LastUpdateTime   string   `php:"last_update_time"`
}

// boardError answers a failed board call. The client only looks at
// status_code before showing its dialog.
type boardError struct {
	StatusCode int `php:"status_code"`
}

// dropReply answers /master/casino/drop/ (10 entries), success or failure.
// Types follow the recorded replies where the spec is silent: status_code,
// random_tier and product_id are strings, ticket_amount an int. On a
// failure the balances are the account's unchanged ones (0 when unknown),
// random_tier "0" and product_id "-1".
type dropReply struct {
	UserTickets       string `php:"user_tickets"`
	UserGold          string `php:"user_gold"`
	StatusCode        string `php:"status_code"`
	RandomTier        string `php:"random_tier"`
	ProductID         string `php:"product_id"`
	ProductName       string `php:"product_name"`
	ProductType       string `php:"product_type"`
	ProductPath       string `php:"product_path"`
	ProductsExhausted bool   `php:"products_exhausted"`
	TicketAmount      int64  `php:"ticket_amount"`
}

// ticketProduct is what product_name, product_type and product_path say
// when a drop pays tickets.
const ticketProduct = "Ticket"

// viewChestReply answers /master/casino/viewchest/ (8 entries).
type viewChestReply struct {
	TierID         int    `php:"tier_id"`
	ItemsAmount    int    `php:"items_amount"`
	FirstItemIndex int    `php:"first_item_index"`
	TargetIndex    int    `php:"target_index"`
	ProductNames   string `php:"product_names"`
	ProductTypes   string `php:"product_types"`
	ProductPaths   string `php:"product_paths"`
	ProductIDs     string `php:"product_ids"`
}

// viewChestError answers a failed viewchest call: the spec's reply has no
// status_code, so a failure puts one in front of an empty page (9 entries).
type viewChestError struct {
	StatusCode int `php:"status_code"`
	viewChestReply
}

// exchangeReply answers /master/ticketexchange.
type exchangeReply struct {
	StatusCode  int            `php:"status_code"`
	Items       []exchangeItem `php:"items"`
	UserTickets string         `php:"user_tickets"`
}

// exchangeListReply is exchangeReply as a list is sent: its items encoded
// once per catalog version (catalogView.exchangeItems). exchangeReply stays
// the documented shape (and the failures' reply).
type exchangeListReply struct {
	StatusCode  int        `php:"status_code"`
	Items       encodedPHP `php:"items"`
	UserTickets string     `php:"user_tickets"`
}

// exchangeItem is one entry of items; every value is a string.
type exchangeItem struct {
	ID        string `php:"id"` // 1-based position in the exchange
	Cost      string `php:"cost"`
	ProductID string `php:"product_id"`
	Name      string `php:"name"`
	Type      string `php:"type"`
	LocalPath string `php:"local_path"`
}

// purchaseReply answers /master/ticketexchange/purchase/ for an item that is
// not a grab bag, and every failure.
type purchaseReply struct {
	StatusCode       string `php:"status_code"`
	TicketsRemaining int64  `php:"tickets_remaining"`
	GrabBag          bool   `php:"grabBag"`
}

// grabBagReply answers the purchase of a grab bag: the three entries, then
// the bag's contents under the names the client's grabbag.lua reads.
type grabBagReply struct {
	purchaseReply
	Theme string `php:"grabBagTheme"`
	IDs   string `php:"grabBagIDs"`   // pipe-delimited
	Names string `php:"grabBagNames"` // pipe-delimited
	Paths string `php:"grabBagPaths"` // pipe-delimited
	Types string `php:"grabBagTypes"` // pipe-delimited, full types ("Alt Avatar")
}
