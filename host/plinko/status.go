package plinko

import (
	"errors"
	"strconv"

	"github.com/honmaster/masterserver/host/area"
)

// Status is the status_code of a Plinko or exchange reply. The casino calls
// succeed with StatusOK (1), the exchange calls with StatusExchangeOK (51);
// any other value makes the client show an error dialog (spec, Errors 3).
// Every endpoint uses the same error codes.
type Status int

// Statuses. The numbers are this server's choice (the original's error
// values were never recorded); they are listed with their causes in
// statusTable.
const (
	StatusOK                 Status = 1  // casino call succeeded
	StatusBadCookie          Status = 2  // cookie missing, unknown or expired
	StatusInsufficientFunds  Status = 3  // balance below the drop or item cost, or too full for the drop's payout
	StatusBadCurrency        Status = 4  // drop currency not "tickets" or "gold"
	StatusDeciderUnavailable Status = 5  // the plinko plugin failed or is down
	StatusBadRequest         Status = 6  // malformed form, tier_id, target_index or id
	_                        Status = 7  // unused: no catalog is served as an empty one
	StatusInternal           Status = 8  // storage or actor failure
	StatusUnknownItem        Status = 9  // purchase id not in the exchange
	StatusAlreadyOwned       Status = 10 // purchase of an item the account owns
	StatusOutcomeUnknown     Status = 11 // the commit outlasted the reply: it may have happened; check the balance
	StatusStorageFull        Status = 12 // storage refuses writes (disk below its margin): nothing happened
	StatusTooManyRequests    Status = 13 // drop or purchase past the account's or the address's rate (write_burst): nothing happened, try again
	StatusExchangeOK         Status = 51 // exchange call succeeded
)

// String is the status as the purchase reply sends it ("51").
func (s Status) String() string { return strconv.Itoa(int(s)) }

// Errors of the area. Each maps to one status in statusTable.
var (
	ErrBadCurrency       = errors.New("plinko: unknown currency")
	ErrInsufficientFunds = errors.New("plinko: insufficient funds")
	ErrBadRequest        = errors.New("plinko: bad request")
	ErrUnknownItem       = errors.New("plinko: unknown exchange item")
	ErrAlreadyOwned      = errors.New("plinko: item already owned")
	// ErrBalanceFull refuses a drop whose ticket payout would take the
	// balance past math.MaxInt64; nothing is charged or granted.
	ErrBalanceFull = errors.New("plinko: the tickets balance is at its largest")
	// ErrTooManyRequests refuses a drop or a purchase past the account's
	// or its address's rate (write_burst, write_every), before the plugin
	// is called or anything is charged.
	ErrTooManyRequests = errors.New("plinko: too many drops and purchases")
)

// replies answers the area's failures from its one table of causes
// (host/area): the area's own errors, then the causes every area shares
// (area.CauseOf). A cause missing here is StatusInternal (the client has
// no "try again" code: a retry after a conflict is an internal error to
// it). A drop or purchase whose commit outlasted the wait may still land:
// it is StatusOutcomeUnknown whatever else the error says (issue 9,
// honest replies). A reply's metric outcome is read from its status_code.
var replies = area.NewReplies(areaName, nil, area.CauseTable{
	Key:            "status_code",
	OutcomeUnknown: answer(StatusOutcomeUnknown),
	Internal:       answer(StatusInternal),
	Rows: []area.Row{
		{Err: ErrInsufficientFunds, Answer: answer(StatusInsufficientFunds)},
		// A full balance has no code of its own: the client knows only
		// success or not (any other code is the same error dialog: spec,
		// Errors 3). StatusInsufficientFunds is the balance's refusal the
		// drop already answers, with the balances unchanged: nothing
		// happened. It counts as the player's refusal, as it is; a
		// server-side code (8, 12) would count it as a server failure and
		// send an operator to the disk.
		{Err: ErrBalanceFull, Answer: answer(StatusInsufficientFunds)},
		// A rate refusal has a code of its own: none of the player's
		// refusals above means "try again", and the codes that say
		// "nothing happened" (5, 12) count as the server's failures. The
		// client shows the same dialog for it; the load test's and the
		// access log's reader tell it from a poor balance (3). It counts
		// as the player's refusal.
		{Err: ErrTooManyRequests, Answer: answer(StatusTooManyRequests)},
		{Err: ErrBadCurrency, Answer: answer(StatusBadCurrency)},
		{Err: ErrBadRequest, Answer: answer(StatusBadRequest)},
		{Err: ErrUnknownItem, Answer: answer(StatusUnknownItem)},
		{Err: ErrAlreadyOwned, Answer: answer(StatusAlreadyOwned)},
		{Cause: area.CauseBadCookie, Answer: answer(StatusBadCookie)},
		{Cause: area.CauseBadRequest, Answer: answer(StatusBadRequest)},
		{Cause: area.CausePluginDown, Answer: answer(StatusDeciderUnavailable)},
		{Cause: area.CauseStorageFull, Answer: answer(StatusStorageFull)},
	},
})

func answer(s Status) area.Answer { return area.Answer{Status: int(s)} }

// statusOf maps an error to its status; nil is not an error here.
func statusOf(err error) Status { return Status(replies.Answer(err).Status) }
