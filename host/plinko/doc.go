// Package plinko provides the Plinko prize game and the ticket exchange:
// the board, drops, chest listings, the exchange list and purchases.
//
// # Endpoints
//
// All take the form field cookie and answer HTTP 200 with a PHP-serialized
// array (the shapes are in replies.go, entries in the specification's order):
//
//	POST /master/casino/                 board, 9 entries
//	POST /master/casino/drop/            currency=tickets|gold, 10 entries
//	POST /master/casino/viewchest/       tier_id=1..4, target_index=1.., 8 entries
//	POST /master/ticketexchange          status_code 51, items, user_tickets
//	POST /master/ticketexchange/purchase/ id=<product id>, status_code "51", tickets_remaining, grabBag
//
// # Status codes
//
// Casino calls succeed with 1, exchange calls with 51 (an int in the list,
// the string "51" in the purchase reply). Failures use one set of codes on
// every endpoint (statusTable in status.go):
//
//	2  bad cookie (missing, unknown, expired)
//	3  insufficient tickets or gold, or tickets too full for the drop's payout
//	4  unknown drop currency
//	5  plinko plugin unavailable or failed (nothing charged)
//	6  bad request (malformed form, tier_id, target_index or id)
//	7  (unused; without a catalog every chest is empty and the exchange lists nothing)
//	8  internal error (storage, actor timeout)
//	9  purchase id not in the exchange
//	10 purchase of an item already owned
//	11 outcome unknown (the commit outlasted the reply: check the balance)
//	12 storage full (storage refuses writes: nothing happened)
//	13 too many drops and purchases (write_burst, write_every): nothing happened, try again
//
// Failure replies keep the endpoint's shape: a drop failure has all 10
// entries with the account's real balances whenever the cookie is valid; a purchase failure has its 3 entries
// with the current tickets; an exchange failure has no items; a viewchest
// failure puts status_code in front of an empty page; a board failure is
// status_code alone.
//
// # Drops
//
// A drop (and a purchase) first spends a token of its client address's
// budget and then of its account's ([plinko] write_burst, write_every; the
// address ten times the account's), before the plugin is asked or the
// account's actor does anything: past either it is refused with status 13
// and the balances as they are. The read-only calls (board, viewchest,
// exchange list) are not limited: they cost what a refusal would.
//
// A drop authenticates, checks the currency, and runs one change in the
// account's actor (dropChange): check the balance, count the unowned prizes
// per chest (the plugin receives only these counts, never the catalog), ask
// the plugin with its stored state, bounded by the request's deadline,
// check the decision (plinkoapi.Drop's check), then debit, grant and store
// the plugin's new state in one synced commit. A decision that fails its
// check refuses the drop (status 5); it is never re-mapped. An exhausted
// chest answers ticket_amount 0 (its payout is in user_tickets).
//
// # Catalog
//
// The prize catalog is imported by operators (ImportCatalog, format in
// catalog.md) or seeded by serve --demo (DemoCatalog). Handlers re-read its
// stored bytes on each request and decode it only when it changed.
//
// # Pages of viewchest
//
// A page starts 28 items before target_index (never before item 1) and runs
// for up to 56 items, as the recorded replies do; first_item_index is the
// 1-based index of its first item in the chest.
package plinko
