package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/honmaster/masterserver/host/client"
	"github.com/honmaster/masterserver/host/reports"
	"github.com/honmaster/masterserver/plugins/reports/reportsapi"
)

// "player login" and "player report": a game client's calls from the
// command line, to try a server (or follow docs/walkthrough.md)
// without the game. They talk HTTP to the game listener like the client:
// SRP login (pre_auth, srpAuth) and /master/report/report.

const playerUsage = `usage: %[1]s player login  [--server URL] --login L --password P
       %[1]s player report [--server URL] --login L --password P --reportee NICKNAME [--reason R] [--text T]

Plays the game client's part against a running server (default http://127.0.0.1:8080):
login prints what the session record says (account, nickname, susp_id, standing);
report logs in and files a report, as the in-game report dialog does: --reportee is
the reported player's nickname (as the game shows it), not their login.
Reasons: %[2]s.
`

func reasonNames() string {
	var names []string
	for _, r := range reportsapi.Reasons() {
		names = append(names, r.String())
	}
	return strings.Join(names, ", ")
}

// runPlayer runs "player login|report".
func runPlayer(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 || wantsHelp(args) {
		fmt.Fprintf(stdout, playerUsage, Name, reasonNames())
		if len(args) == 0 {
			return usageError("player login|report")
		}
		return flag.ErrHelp
	}
	verb := args[0]
	if verb != "login" && verb != "report" {
		return usageError("player %s: want login or report", verb)
	}
	fs := newFlags("player "+verb, stdout)
	server := fs.String("server", "http://127.0.0.1:8080", "the game listener's URL")
	loginName := fs.String("login", "", "login")
	password := fs.String("password", "", "password")
	var reportee, reason, text *string
	if verb == "report" {
		reportee = fs.String("reportee", "", "nickname of the reported player (as the game shows it, not the login)")
		reason = fs.String("reason", "chat_abuse", "reason: "+reasonNames())
		text = fs.String("text", "", "description")
	}
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if *loginName == "" || *password == "" {
		return usageError("--login and --password are required")
	}
	u, err := url.Parse(*server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageError("--server %q: want http://HOST:PORT", *server)
	}
	var why reportsapi.Reason
	if verb == "report" {
		if *reportee == "" {
			return usageError("--reportee is required")
		}
		var ok bool
		if why, ok = reportsapi.ParseReason(*reason); !ok {
			return usageError("--reason %q is not one of %s", *reason, reasonNames())
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	c := client.New(strings.TrimSuffix(*server, "/"))
	s, err := c.Login(ctx, *loginName, *password)
	switch {
	case errors.Is(err, client.ErrLogin):
		return &opError{cause: err, msg: "login refused: " + specifics(err, client.ErrLogin)}
	case errors.Is(err, client.ErrServerProof):
		return &opError{cause: err, msg: fmt.Sprintf("%s accepted the login but its proof is wrong: it is not the server holding this account", *server)}
	case err != nil:
		return &opError{cause: err, msg: fmt.Sprintf("no answer from %s: %s", *server, stripInternal(err.Error()))}
	}
	if verb == "login" {
		field := func(k string) string { v, _ := s.Record.String(k); return v }
		fmt.Fprintf(stdout, "logged in as %s (account %s, nickname %q); susp_id %s, standing %s\n",
			s.Login, s.AccountID, field("nickname"), field("susp_id"), field("standing"))
		return nil
	}
	r, err := c.PostForm(ctx, reports.PathReport, reports.MasterReportForm(s.AccountID, s.Cookie, *reportee, why, *text))
	if err != nil {
		return &opError{cause: err, msg: fmt.Sprintf("no answer from %s", *server)}
	}
	a, err := r.PHP()
	if err != nil {
		return &opError{cause: err, msg: "the server's reply could not be read"}
	}
	if n, _ := a.Int("report_success"); n != 1 {
		msg, _ := a.String("message")
		return &opError{cause: errors.New("report refused"), msg: fmt.Sprintf("report refused (report_success %d): %s", n, msg)}
	}
	fmt.Fprintf(stdout, "report filed against %s\n", *reportee)
	return nil
}
