package guides

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/honmaster/masterserver/storage"
	"github.com/honmaster/masterserver/wire"
)

// Func is a guide function's wire name (the form field f). Funcs is the one
// table of them.
type Func string

// The guide functions of POST /client_requester.php.
const (
	FuncList           Func = "get_guide_list_filtered"
	FuncGuide          Func = "get_guide"
	FuncDefaultSet     Func = "guide_default_set"
	FuncDefaultRemove  Func = "guide_default_remove"
	FuncFavoriteSet    Func = "guide_favorite_set"
	FuncFavoriteRemove Func = "guide_favorite_remove"
	FuncVote           Func = "guide_vote"
)

// flagFuncs says what each set/remove function does.
var flagFuncs = map[Func]struct {
	flag Flag
	on   bool
}{
	FuncDefaultSet:     {FlagDefault, true},
	FuncDefaultRemove:  {FlagDefault, false},
	FuncFavoriteSet:    {FlagFavorite, true},
	FuncFavoriteRemove: {FlagFavorite, false},
}

// MaxHeroLen bounds the hero field.
const MaxHeroLen = 64

// Caller is what every guide request carries.
type Caller struct {
	Account  storage.AccountID // the form's account; must be the cookie's
	Cookie   string
	HostTime string // echoed byte for byte
}

// ListRequest is a parsed get_guide_list_filtered.
type ListRequest struct {
	Caller
	Hero string
}

// GuideRequest is a parsed get_guide. Hero is what the client sent; the gid
// alone selects the guide.
type GuideRequest struct {
	Caller
	Hero string
	Gid  GuideID
}

// FlagRequest is a parsed default/favorite set or remove.
type FlagRequest struct {
	Caller
	Gid  GuideID
	Flag Flag
	On   bool // set (true) or remove (false)
}

// VoteRequest is a parsed guide_vote.
type VoteRequest struct {
	Caller
	Gid  GuideID
	Vote Vote // VoteUp or VoteDown
}

// form is the union of the fields the guide functions read; every field is
// a string so that a bad value gets this area's error, not a decode one.
type form struct {
	Account  string `form:"account"`
	Cookie   string `form:"cookie"`
	HostTime string `form:"hosttime"`
	Hero     string `form:"hero"`
	Gid      string `form:"gid"`
	V        string `form:"v"`
	Comp     string `form:"compendium_guide"`
}

func badField(name, problem string) error {
	return Fail(ReasonBadRequest, fmt.Errorf("field %s: %s", name, problem))
}

// parseCaller decodes r's common fields. The returned Caller carries the
// hosttime even on error, so a failure reply still echoes it.
func parseCaller(r *wire.Request) (form, Caller, error) {
	var f form
	if err := r.Decode(&f); err != nil {
		return f, Caller{}, Fail(ReasonBadRequest, err)
	}
	c := Caller{Cookie: f.Cookie, HostTime: f.HostTime}
	if f.Account == "" {
		return f, c, badField("account", "missing")
	}
	id, err := strconv.ParseUint(f.Account, 10, 32)
	if err != nil || id == 0 {
		return f, c, badField("account", "not an account id")
	}
	c.Account = storage.AccountID(id)
	return f, c, nil
}

func parseGid(name, s string) (GuideID, error) {
	if s == "" {
		return 0, badField(name, "missing")
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n == 0 {
		return 0, badField(name, "not a guide id")
	}
	return GuideID(n), nil
}

// validHero reports whether s is a hero CLI name: "Hero_" and letters,
// digits or underscores.
func validHero(s string) bool {
	const prefix = "Hero_"
	if len(s) <= len(prefix) || len(s) > MaxHeroLen || s[:len(prefix)] != prefix {
		return false
	}
	for i := len(prefix); i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func parseHero(s string) (string, error) {
	if !validHero(s) {
		return "", badField("hero", "not a hero identifier")
	}
	return s, nil
}

// ParseList parses a get_guide_list_filtered request.
func ParseList(r *wire.Request) (ListRequest, error) {
	f, c, err := parseCaller(r)
	if err != nil {
		return ListRequest{Caller: c}, err
	}
	hero, err := parseHero(f.Hero)
	return ListRequest{Caller: c, Hero: hero}, err
}

// ParseGuide parses a get_guide request. hero is not checked: the gid alone
// names a guide, and the first request of a session (gid 99999) must get
// no_guides_found whatever it carries.
func ParseGuide(r *wire.Request) (GuideRequest, error) {
	f, c, err := parseCaller(r)
	if err != nil {
		return GuideRequest{Caller: c}, err
	}
	gid, err := parseGid("gid", f.Gid)
	return GuideRequest{Caller: c, Hero: f.Hero, Gid: gid}, err
}

// ParseFlag parses a default or favorite set/remove request for fn.
func ParseFlag(fn Func, r *wire.Request) (FlagRequest, error) {
	f, c, err := parseCaller(r)
	if err != nil {
		return FlagRequest{Caller: c}, err
	}
	what, known := flagFuncs[fn]
	if !known {
		return FlagRequest{Caller: c}, Fail(ReasonBadRequest, fmt.Errorf("%q is not a flag function", fn))
	}
	gid, err := parseGid("gid", f.Gid)
	return FlagRequest{Caller: c, Gid: gid, Flag: what.flag, On: what.on}, err
}

// ParseVote parses a guide_vote request: v is 1 (up) or 0 (down). The guide
// is gid; compendium_guide, which the client sends with the same id, is
// used when gid is absent, and must agree when both are sent.
func ParseVote(r *wire.Request) (VoteRequest, error) {
	f, c, err := parseCaller(r)
	if err != nil {
		return VoteRequest{Caller: c}, err
	}
	req := VoteRequest{Caller: c}
	switch f.V {
	case "1":
		req.Vote = VoteUp
	case "0":
		req.Vote = VoteDown
	case "":
		return req, badField("v", "missing")
	default:
		return req, badField("v", "want 1 or 0")
	}
	switch {
	case f.Gid != "":
		if req.Gid, err = parseGid("gid", f.Gid); err != nil {
			return req, err
		}
		if f.Comp != "" && f.Comp != f.Gid {
			comp, err := parseGid("compendium_guide", f.Comp)
			if err != nil {
				return req, err
			}
			if comp != req.Gid {
				return req, badField("compendium_guide", "names another guide than gid")
			}
		}
	default:
		req.Gid, err = parseGid("compendium_guide", f.Comp)
		if err != nil && errors.Is(err, ErrBadRequest) && f.Comp == "" {
			return req, badField("gid", "missing")
		}
	}
	return req, err
}
