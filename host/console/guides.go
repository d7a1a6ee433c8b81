package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/honmaster/masterserver/host/guides"
)

// Guides: import, list and moderate hero guides with the functions of the
// "honmaster guides" commands (guides.Import, guides.LoadGuides with
// guides.LoadTally, guides.Moderate).

type heroRow struct {
	Hero          string
	Guides        int
	Hidden, Prime int
}

type guideRow struct {
	Gid                  guides.GuideID
	Name, Author         string
	Premium, Hidden      bool
	Up, Down             uint32
	ImpUp, ImpDown       uint32
	Rating, Edited, Hero string
}

type guidesData struct {
	Hero   string
	Heroes []heroRow
	Rows   []guideRow
}

func (c *Console) guidesPage(w http.ResponseWriter, r *http.Request) {
	hero := r.URL.Query().Get("hero")
	db := c.d.Sys.DB()
	d := guidesData{Hero: hero}
	all, err := guides.LoadGuides(db, "")
	if err != nil {
		r.URL.RawQuery += "&error=" + urlQuery(operatorError(err))
	}
	by := map[string]*heroRow{}
	for i := range all {
		g := &all[i]
		h := by[g.Hero]
		if h == nil {
			h = &heroRow{Hero: g.Hero}
			by[g.Hero] = h
		}
		h.Guides++
		if g.Hidden {
			h.Hidden++
		}
		if g.Premium {
			h.Prime++
		}
	}
	for _, h := range by {
		d.Heroes = append(d.Heroes, *h)
	}
	slices.SortFunc(d.Heroes, func(a, b heroRow) int { return strings.Compare(a.Hero, b.Hero) })
	if hero != "" {
		t, err := c.tally()
		if err != nil {
			r.URL.RawQuery += "&error=" + urlQuery(operatorError(err))
		} else {
			for i := range all {
				g := &all[i]
				if g.Hero != hero {
					continue
				}
				n := t.Counts(g)
				d.Rows = append(d.Rows, guideRow{Gid: g.Gid, Hero: g.Hero, Name: g.Name, Author: g.AuthorName, Premium: g.Premium,
					Hidden: g.Hidden, Up: n.Up, Down: n.Down, ImpUp: g.Up, ImpDown: g.Down, Rating: guides.FormatRating(n),
					Edited: guides.FormatDate(g.Edited)})
			}
		}
	}
	title := "Guides"
	if hero != "" {
		title = "Guides of " + hero
	}
	c.render(w, r, "guides", title, d, "")
}

// maxGuidesFile bounds an uploaded guides file (the POST body limit).
const maxGuidesFile = maxUpload

func (c *Console) guidesImport(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), pageTimeout)
	defer cancel()
	f, hdr, err := r.FormFile("guides")
	if err != nil {
		back(w, r, "/console/guides", "", errors.New("choose a guides file (JSON) to import"))
		return
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxGuidesFile))
	if err != nil {
		back(w, r, "/console/guides", "", err)
		return
	}
	res, err := guides.Import(ctx, c.d.Sys, data, guides.ImportOptions{})
	if err != nil {
		back(w, r, "/console/guides", "", fmt.Errorf("%s was not imported: %w", hdr.Filename, err))
		return
	}
	c.d.Log.Info("console guides import", "operator", Operator(r), "file", hdr.Filename, "added", res.Added, "updated", res.Updated, "refused", len(res.Refused))
	to := "/console/guides"
	if len(res.Gids) > 0 {
		if g, err := guides.LoadGuide(c.d.Sys.DB(), res.Gids[0]); err == nil {
			to += "?hero=" + urlQuery(g.Hero)
		}
	}
	notice := fmt.Sprintf("imported %d guides: %d added, %d updated", res.Added+res.Updated, res.Added, res.Updated)
	if len(res.Refused) > 0 {
		// The valid guides are stored; the refused ones are named, as
		// "guides import" lists them. The notice travels in the redirect's
		// URL, so it names a few; the command lists them all.
		names := make([]string, 0, min(len(res.Refused), maxRefusedNamed)+1)
		for _, r := range res.Refused[:min(len(res.Refused), maxRefusedNamed)] {
			names = append(names, r.Error())
		}
		if n := len(res.Refused) - maxRefusedNamed; n > 0 {
			names = append(names, fmt.Sprintf("and %d more (honmaster guides import lists them all)", n))
		}
		notice += fmt.Sprintf("; refused %d: %s", len(res.Refused), strings.Join(names, "; "))
	}
	back(w, r, to, notice, nil)
}

// maxRefusedNamed is how many refused guides an import's notice names.
const maxRefusedNamed = 5

// guidesModerate hides, unhides or marks one guide premium: form fields
// gid, and "hidden" or "premium" set to 1 or 0.
func (c *Console) guidesModerate(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), pageTimeout)
	defer cancel()
	to := "/console/guides?hero=" + urlQuery(r.PostFormValue("hero"))
	n, err := strconv.ParseUint(r.PostFormValue("gid"), 10, 32)
	if err != nil || n == 0 {
		back(w, r, to, "", errors.New("no guide chosen"))
		return
	}
	gid := guides.GuideID(n)
	flag := func(name string) *bool {
		v := r.PostFormValue(name)
		if v == "" {
			return nil
		}
		b := v == "1"
		return &b
	}
	hidden, premium := flag("hidden"), flag("premium")
	if hidden == nil && premium == nil {
		back(w, r, to, "", errors.New("nothing to change"))
		return
	}
	g, err := guides.Moderate(ctx, c.d.Sys, gid, hidden, premium)
	if err != nil {
		if guides.ReasonOf(err) == guides.ReasonNotFound {
			err = fmt.Errorf("no guide with gid %d", gid)
		}
		back(w, r, to, "", err)
		return
	}
	c.d.Log.Info("console guide changed", "operator", Operator(r), "gid", g.Gid, "hidden", g.Hidden, "premium", g.Premium)
	back(w, r, to, fmt.Sprintf("guide %d (%q): hidden %t, premium %t", g.Gid, g.Name, g.Hidden, g.Premium), nil)
}

// tally is the players' vote counts, from Deps.GuideTally.
func (c *Console) tally() (*guides.Tally, error) {
	if c.d.GuideTally != nil {
		return c.d.GuideTally()
	}
	return guides.LoadTally(c.d.Sys.DB())
}
