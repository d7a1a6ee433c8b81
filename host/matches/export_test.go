package matches

import (
	"html/template"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/honmaster/masterserver/host/console/consolepage"
)

// fakeConsole renders a page's body alone.
type fakeConsole struct{}

func (fakeConsole) Render(w http.ResponseWriter, _ *http.Request, title string, body template.HTML) {
	w.Write([]byte("<title>" + title + "</title>" + string(body)))
}
func (fakeConsole) CSRF() string     { return "csrf" }
func (fakeConsole) Operator() string { return "op" }

// ConsolePages renders the serving area's console pages, by path.
func ConsolePages() map[string]string {
	out := map[string]string{}
	a := current.Load()
	if a == nil {
		return out
	}
	for _, p := range a.pages() {
		rec := httptest.NewRecorder()
		r := consolepage.WithRenderer(httptest.NewRequest("GET", p.Path, nil), fakeConsole{})
		p.Handler.ServeHTTP(rec, r)
		out[p.Path] = rec.Body.String()
	}
	return out
}

// AccountPanel renders the serving area's section of the console's account
// page for the account of login.
func AccountPanel(login string) (string, error) {
	a := current.Load()
	if a == nil {
		return "", nil
	}
	id, err := a.sys.DB().LoginID(login)
	if err != nil {
		return "", err
	}
	acct, err := a.sys.DB().Account(id)
	if err != nil {
		return "", err
	}
	p := a.accountPanel()
	data, err := p.Data(httptest.NewRequest("GET", "/console/account", nil), acct)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	err = p.Template.Execute(&b, consolepage.AccountView{CSRF: "csrf", Login: login, Data: data})
	return b.String(), err
}
