package matches

import (
	"html/template"
	"net/http"
	"strconv"
	"time"

	"github.com/honmaster/masterserver/host/console/consolepage"
	"github.com/honmaster/masterserver/storage"
)

var serversPage = template.Must(template.New("servers").Parse(`<h2>Game servers online</h2>
{{if .}}<table><tr><th>ID</th><th>Host</th><th>Instance</th><th>Address</th><th>State</th><th>Last heartbeat (UTC)</th><th>Match</th></tr>
{{range .}}<tr><td>{{.ID}}</td><td>{{.Host}}</td><td>{{.Instance}}</td><td>{{.Address}}</td><td>{{.State}}</td><td>{{.Heard}}</td><td>{{.Match}}</td></tr>
{{end}}</table>{{else}}<p>No game server is online.</p>{{end}}`))

var matchesPage = template.Must(template.New("matches").Parse(`<h2>Recent matches</h2>
{{if .}}<table><tr><th>Match</th><th>Server</th><th>Started (UTC)</th><th>Map</th><th>Players</th><th>Recorded (UTC)</th><th>Winner</th></tr>
{{range .}}<tr><td>{{.ID}}</td><td>{{.Server}}</td><td>{{.Started}}</td><td>{{.Map}}</td><td>{{.Players}}</td><td>{{.Recorded}}</td><td>{{.Winner}}</td></tr>
{{end}}</table>{{else}}<p>No match was started.</p>{{end}}`))

type serverRow struct{ ID, Host, Instance, Address, State, Heard, Match string }

type matchRow struct{ ID, Server, Started, Map, Players, Recorded, Winner string }

// pages are the area's console pages: the servers online and the 100
// most recent matches.
func (a *Area) pages() []consolepage.Page {
	return []consolepage.Page{
		{Path: "/console/matches/servers", Title: "Game servers", Handler: http.HandlerFunc(a.serversPage)},
		{Path: "/console/matches", Title: "Matches", Handler: http.HandlerFunc(a.matchesPage)},
	}
}

func (a *Area) serversPage(w http.ResponseWriter, r *http.Request) {
	vs, err := Servers(a.sys.DB(), a, time.Now(), a.set.HeartbeatTimeout.Duration)
	if err != nil {
		a.log.Error("console: reading the servers", "err", err)
	}
	var rows []serverRow
	for _, v := range vs {
		if !v.Online || v.Rec.Manager {
			continue
		}
		m := "-"
		if v.Rec.CurrentMatch != 0 {
			m = strconv.FormatUint(uint64(v.Rec.CurrentMatch), 10)
		}
		rows = append(rows, serverRow{ID: strconv.FormatUint(uint64(v.Rec.Id), 10), Host: v.Host, Instance: v.Rec.Instance,
			Address: v.Rec.Address + ":" + strconv.Itoa(int(v.Rec.Port)), State: stateName(v.Rec, true),
			Heard: v.LastHeard.UTC().Format("2006-01-02 15:04:05"), Match: m})
	}
	if err := consolepage.RenderTemplate(w, r, "Game servers", serversPage, rows); err != nil {
		a.log.Error("console: servers page", "err", err)
	}
}

func (a *Area) matchesPage(w http.ResponseWriter, r *http.Request) {
	ms, err := Matches(a.sys.DB(), 100)
	if err != nil {
		a.log.Error("console: reading the matches", "err", err)
	}
	var rows []matchRow
	for _, v := range ms {
		m := v.Match
		rec, win := "no", "-"
		if m.Recorded {
			rec, win = unixText(m.Submitted), "team "+strconv.Itoa(int(m.Winner))
		}
		rows = append(rows, matchRow{ID: strconv.FormatUint(uint64(m.Id), 10), Server: strconv.FormatUint(uint64(m.ServerId), 10),
			Started: unixText(m.Started), Map: m.Map, Players: strconv.Itoa(len(m.Participants)), Recorded: rec, Winner: win})
	}
	if err := consolepage.RenderTemplate(w, r, "Matches", matchesPage, rows); err != nil {
		a.log.Error("console: matches page", "err", err)
	}
}

// recentPanel is the console account page's section of the player's
// recent matches (its history, newest first) and match totals.
var recentPanel = template.Must(template.New("recent").Parse(`{{with .Data}}<fieldset><legend>Recent matches</legend>
<p>Matches <span id="match-count">{{.Matches}}</span>, wins {{.Wins}}, losses {{.Losses}}, disconnects {{.Discos}}; K/D/A {{.Kills}}/{{.Deaths}}/{{.Assists}}.</p>
{{if .Rows}}<table id="recent-matches"><tr><th>Match</th><th>Recorded (UTC)</th><th>Map</th><th>Hero</th><th>Team</th><th>Result</th><th>K/D/A</th><th>Time</th></tr>
{{range .Rows}}<tr><td>{{.Match}}</td><td>{{.Recorded}}</td><td>{{.Map}}</td><td>{{.Hero}}</td><td>{{.Team}}</td><td>{{.Result}}</td><td>{{.KDA}}</td><td>{{.Time}}</td></tr>
{{end}}</table>{{else}}<p>No recorded match.</p>{{end}}
<p>The last {{.Kept}} matches are kept (<code>[matches] history_length</code>).</p></fieldset>{{end}}`))

type recentRow struct{ Match, Recorded, Map, Hero, Team, Result, KDA, Time string }

type recentData struct {
	Matches, Wins, Losses, Discos, Kills, Deaths, Assists int64
	Rows                                                  []recentRow
	Kept                                                  int
}

func (a *Area) accountPanel() consolepage.AccountPanel {
	return consolepage.AccountPanel{Template: recentPanel, Data: a.recentData}
}

func (a *Area) recentData(_ *http.Request, acct *storage.Account) (any, error) {
	t, err := TotalsOf(a.sys.DB(), acct.ID)
	if err != nil {
		return nil, err
	}
	recent, err := HistoryOf(a.sys.DB(), acct.ID)
	if err != nil {
		return nil, err
	}
	d := recentData{Matches: t.Matches, Wins: t.Wins, Losses: t.Losses, Discos: t.Discos, Kills: t.Kills, Deaths: t.Deaths,
		Assists: t.Assists, Kept: a.set.HistoryLength}
	for _, m := range recent {
		res := "loss"
		if m.Win {
			res = "win"
		}
		if m.Disco {
			res += ", disconnected"
		}
		d.Rows = append(d.Rows, recentRow{Match: strconv.FormatUint(uint64(m.MatchId), 10), Recorded: unixText(m.Recorded), Map: m.Map,
			Hero: m.Hero, Team: strconv.Itoa(int(m.Team)), Result: res,
			KDA:  strconv.Itoa(int(m.Kills)) + "/" + strconv.Itoa(int(m.Deaths)) + "/" + strconv.Itoa(int(m.Assists)),
			Time: (time.Duration(m.Secs) * time.Second).String()})
	}
	return d, nil
}
