package area_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/server"
	"github.com/honmaster/masterserver/wire"
)

// A wager area's route: its form, its reply, its own refusal, and its
// logic; the host writes everything else.
type flipRequest struct {
	Cookie string `form:"cookie" doc:"session cookie"`
	Stake  int64  `form:"stake" doc:"tickets wagered"`
}

type flipReply struct {
	Success bool  `php:"success"`
	Won     bool  `php:"won"`
	Tickets int64 `php:"user_tickets"`
}

var errNoTickets = errors.New("wager: not enough tickets")

// The table: the area's own refusal first, then the causes every area
// shares (a bad cookie, the plugin down, a full disk ...) in their
// standard sentences.
var replies = area.NewReplies("wager", nil, area.StandardCauses(
	area.Row{Err: errNoTickets, Answer: area.Answer{Error: "you have not enough tickets"}}))

func flip(_ context.Context, req flipRequest) (flipReply, error) {
	if req.Stake > 10 { // the area's logic: here, an account with 10 tickets
		return flipReply{}, fmt.Errorf("%w: stake %d", errNoTickets, req.Stake)
	}
	return flipReply{Success: true, Won: true, Tickets: 10 + req.Stake}, nil
}

func ExampleNewRoute() {
	route := area.NewRoute(replies, area.Route[flipRequest, flipReply]{
		Path:  "/master/wager/flip",
		Doc:   server.Doc{Summary: "Flips a coin."}, // its form and reply: the types' tags
		Serve: flip,
	})

	for _, stake := range []string{"5", "50", "five"} {
		r := &wire.Request{Method: "POST", Path: route.Path, Form: wire.Values{"cookie": {"c"}, "stake": {stake}}}
		body := route.Handler(context.Background(), r).Body
		fmt.Printf("%s %q\n", body, route.Outcome(body))
	}
	// Output:
	// a:3:{s:7:"success";b:1;s:3:"won";b:1;s:12:"user_tickets";i:15;} ""
	// a:2:{s:7:"success";b:0;s:5:"error";s:27:"you have not enough tickets";} "refused"
	// a:2:{s:7:"success";b:0;s:5:"error";s:29:"the request could not be read";} "refused"
}

// A reply whose failure keeps fields of the success shape: the logic
// returns them with its error, and the route's Fail says which stay.
func ExampleRoute_fail() {
	type dropReply struct {
		Status  string `php:"status_code"`
		Tickets string `php:"user_tickets"`
		Prize   string `php:"prize"`
	}
	errBroke := errors.New("casino: insufficient funds")
	replies := area.NewReplies("casino", nil, area.CauseTable{
		Key:            "status_code",
		OutcomeUnknown: area.Answer{Status: 11},
		Internal:       area.Answer{Status: 8},
		Rows: []area.Row{
			{Err: errBroke, Answer: area.Answer{Status: 3}},
			{Cause: area.CauseBadCookie, Answer: area.Answer{Status: 2}},
		},
	})
	route := area.NewRoute(replies, area.Route[flipRequest, dropReply]{Path: "/master/casino/drop/",
		Serve: func(context.Context, flipRequest) (dropReply, error) {
			return dropReply{Tickets: "4"}, errBroke // the balance the refusal shows
		},
		Fail: func(f area.Failure[flipRequest, dropReply]) any {
			return dropReply{Status: f.StatusText(), Tickets: f.Rep.Tickets}
		},
	})
	r := &wire.Request{Method: "POST", Path: route.Path, Form: wire.Values{"cookie": {"c"}}}
	body := route.Handler(context.Background(), r).Body
	fmt.Printf("%s %q\n", body, route.Outcome(body))
	// Output:
	// a:3:{s:11:"status_code";s:1:"3";s:12:"user_tickets";s:1:"4";s:5:"prize";s:0:"";} "refused"
}
