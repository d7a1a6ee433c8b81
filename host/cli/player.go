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

	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/client"
)

// "player login" and the areas' verbs (hostarea.PlayerCommand): a game
// client's calls from the command line, to try a server (or follow
// docs/walkthrough.md) without the game. They talk HTTP to the game
// listener like the client: SRP login (pre_auth, srpAuth), then the
// area's request.

// playerVerbs are the areas' verbs of "player", in the areas' order.
func playerVerbs() []hostarea.PlayerCommand {
	var out []hostarea.PlayerCommand
	for _, m := range hostarea.Modules() {
		out = append(out, m.PlayerCommands...)
	}
	return out
}

// playerWords is "login|report ...": the verbs for the usage lines.
func playerWords() string {
	words := []string{"login"}
	for _, v := range playerVerbs() {
		words = append(words, v.Verb)
	}
	return strings.Join(words, "|")
}

// playerUsage writes "player --help": a usage line per verb, the login's
// paragraph and each area verb's.
func playerUsage(w io.Writer) {
	verbs := playerVerbs()
	width := len("login")
	for _, v := range verbs {
		width = max(width, len(v.Verb))
	}
	const common = "[--server URL] --login L --password P"
	fmt.Fprintf(w, "usage: %s player %-*s %s\n", Name, width, "login", common)
	for _, v := range verbs {
		fmt.Fprintf(w, "       %s player %-*s %s %s\n", Name, width, v.Verb, common, v.Usage)
	}
	fmt.Fprintln(w, "\nPlays the game client's part against a running server (default http://127.0.0.1:8080):")
	fmt.Fprint(w, "login prints what the session record says (account, nickname, susp_id, standing)")
	if len(verbs) == 0 {
		fmt.Fprintln(w, ".")
		return
	}
	fmt.Fprintln(w, ";")
	for _, v := range verbs {
		fmt.Fprint(w, v.Help)
	}
}

// runPlayer runs "player login" or an area's verb.
func runPlayer(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) == 0 || wantsHelp(args) {
		playerUsage(stdout)
		if len(args) == 0 {
			return usageError("player %s", playerWords())
		}
		return flag.ErrHelp
	}
	verb := args[0]
	var area *hostarea.PlayerCommand
	verbs := playerVerbs()
	for i := range verbs {
		if verbs[i].Verb == verb {
			area = &verbs[i]
		}
	}
	if verb != "login" && area == nil {
		names := []string{"login"}
		for _, v := range verbs {
			names = append(names, v.Verb)
		}
		want := names[0]
		if n := len(names); n > 1 {
			want = strings.Join(names[:n-1], ", ") + " or " + names[n-1]
		}
		return usageError("player %s: want %s", verb, want)
	}
	fs := newFlags("player "+verb, stdout)
	server := fs.String("server", "http://127.0.0.1:8080", "the game listener's URL")
	loginName := fs.String("login", "", "login")
	password := fs.String("password", "", "password")
	var req hostarea.PlayerRequest
	if area != nil {
		req = area.Flags(fs)
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
	if req != nil {
		if err := req.Validate(); err != nil {
			return usageError("%w", err) // the area words its mistakes for the operator
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
		if msg, ok := netFailure(err, "the server", "--server"); ok {
			return &opError{cause: err, msg: msg}
		}
		// An answer that is not a login's: another program, or another
		// listener of the server.
		return &opError{cause: err, msg: fmt.Sprintf("%s answered, but not as a game listener does (is --server the server's game listener?): %s",
			*server, stripInternal(err.Error()))}
	}
	if req == nil {
		field := func(k string) string { v, _ := s.Record.String(k); return v }
		fmt.Fprintf(stdout, "logged in as %s (account %s, nickname %q); susp_id %s, standing %s\n",
			s.Login, s.AccountID, field("nickname"), field("susp_id"), field("standing"))
		return nil
	}
	return req.Run(ctx, c, s, stdout)
}
