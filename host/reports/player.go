package reports

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
)

// playerReport is "honmaster player report": the in-game report dialog
// from the command line (area.PlayerCommand), to try a server or follow
// docs/walkthrough.md without the game.
var playerReport = area.PlayerCommand{Verb: "report", Usage: "--reportee NICKNAME [--reason R] [--text T]",
	Help: `report logs in and files a report, as the in-game report dialog does: --reportee is
the reported player's nickname (as the game shows it), not their login.
Reasons: ` + reasonNames() + ".\n",
	Flags: func(fs *flag.FlagSet) area.PlayerRequest {
		r := &playerReportRequest{}
		fs.StringVar(&r.Reportee, "reportee", "", "nickname of the reported player (as the game shows it, not the login)")
		fs.StringVar(&r.Reason, "reason", "chat_abuse", "reason: "+reasonNames())
		fs.StringVar(&r.Text, "text", "", "description")
		return r
	}}

// reasonNames lists the reasons' short names, for the help text.
func reasonNames() string {
	var names []string
	for _, r := range reportsapi.Reasons() {
		names = append(names, r.String())
	}
	return strings.Join(names, ", ")
}

type playerReportRequest struct {
	Reportee, Reason, Text string
	why                    reportsapi.Reason
}

func (r *playerReportRequest) Validate() error {
	if r.Reportee == "" {
		return errors.New("--reportee is required")
	}
	var ok bool
	if r.why, ok = reportsapi.ParseReason(r.Reason); !ok {
		return fmt.Errorf("--reason %q is not one of %s", r.Reason, reasonNames())
	}
	return nil
}

// Run files the report on /master/report/report as the signed-in player.
func (r *playerReportRequest) Run(ctx context.Context, c *client.Client, s *client.Session, out io.Writer) error {
	rep, err := c.PostForm(ctx, PathReport, MasterReportForm(s.AccountID, s.Cookie, r.Reportee, r.why, r.Text))
	if err != nil {
		return &area.OperatorError{Cause: err, Msg: fmt.Sprintf("no answer from %s", c.Base)}
	}
	a, err := rep.PHP()
	if err != nil {
		return &area.OperatorError{Cause: err, Msg: "the server's reply could not be read"}
	}
	if n, _ := a.Int("report_success"); n != 1 {
		msg, _ := a.String("message")
		return &area.OperatorError{Cause: errors.New("report refused"), Msg: fmt.Sprintf("report refused (report_success %d): %s", n, msg)}
	}
	fmt.Fprintf(out, "report filed against %s\n", r.Reportee)
	return nil
}
