package cli

import (
	"context"
	"net/http"

	hostarea "github.com/honmaster/masterserver/host/area"
	"github.com/honmaster/masterserver/host/operator"
)

// apiMounter is where the API's routes go (operator.Server).
type apiMounter interface {
	HandleAPI(string, http.Handler)
	// ClientAddr is the address of the client a request came from, for
	// the audit trail (operator.Server.ClientAddr).
	ClientAddr(*http.Request) string
}

// mountAccountAPI mounts the operator API's account routes and every
// served area's (hostarea.Live.API).
func mountAccountAPI(op apiMounter, app *App) {
	op.HandleAPI("DELETE "+operator.PathAccount, apiHandler(op, app.Log, apiLogin, func(ctx context.Context, r *http.Request) (any, error) {
		out, err := deleteAccount(ctx, app, r.FormValue("login"))
		if err != nil {
			return nil, err
		}
		return out, nil
	}))
	for _, m := range hostarea.Modules() {
		live := app.lives[m.Area]
		if live == nil {
			continue
		}
		for pattern, h := range live.API {
			op.HandleAPI(pattern, apiHandler(op, app.Log, live.APIFields[pattern], h))
		}
	}
}
