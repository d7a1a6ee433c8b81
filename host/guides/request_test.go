package guides

import (
	"errors"
	"testing"

	"github.com/honmaster/masterserver/wire"
)

func formRequest(kv ...string) *wire.Request {
	r := &wire.Request{Form: wire.Values{}, Query: wire.Values{}, Files: map[string]wire.File{}}
	for i := 0; i+1 < len(kv); i += 2 {
		r.Form[kv[i]] = append(r.Form[kv[i]], kv[i+1])
	}
	return r
}

func common(kv ...string) []string {
	return append([]string{"account", "7", "cookie", "c", "hosttime", "123"}, kv...)
}

func TestParseCaller(t *testing.T) {
	for _, tt := range []struct {
		name string
		kv   []string
		ok   bool
	}{
		{"ok", common("hero", "Hero_Pyromancer"), true},
		{"no account", []string{"cookie", "c", "hosttime", "1", "hero", "Hero_A"}, false},
		{"account not a number", []string{"account", "x", "hosttime", "1", "hero", "Hero_A"}, false},
		{"account zero", []string{"account", "0", "hosttime", "1", "hero", "Hero_A"}, false},
		{"account too big", []string{"account", "4294967296", "hosttime", "1", "hero", "Hero_A"}, false},
		{"bad hero", common("hero", "Pyromancer"), false},
		{"hero with a pipe", common("hero", "Hero_A|B"), false},
		{"no hero", common(), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req, err := ParseList(formRequest(tt.kv...))
			if (err == nil) != tt.ok {
				t.Fatalf("ParseList = %+v, %v; want ok=%v", req, err, tt.ok)
			}
			if err != nil && !errors.Is(err, ErrBadRequest) {
				t.Fatalf("error %v is not a bad request", err)
			}
			if req.HostTime != formRequest(tt.kv...).Form.Get("hosttime") {
				t.Fatalf("hosttime %q lost", req.HostTime)
			}
		})
	}
	req, err := ParseList(formRequest(common("hero", "Hero_Pyromancer")...))
	if err != nil || req.Account != 7 || req.Cookie != "c" || req.HostTime != "123" || req.Hero != "Hero_Pyromancer" {
		t.Fatalf("ParseList = %+v, %v", req, err)
	}
}

func TestParseGuideAndFlag(t *testing.T) {
	g, err := ParseGuide(formRequest(common("hero", "anything", "gid", "99999")...))
	if err != nil || g.Gid != ProbeGid {
		t.Fatalf("ParseGuide = %+v, %v", g, err)
	}
	for _, gid := range []string{"", "0", "-1", "1.5", "4294967296", "12a"} {
		if _, err := ParseGuide(formRequest(common("gid", gid)...)); !errors.Is(err, ErrBadRequest) {
			t.Errorf("gid %q: err = %v, want bad request", gid, err)
		}
	}
	for fn, want := range map[Func]FlagRequest{
		FuncDefaultSet:     {Gid: 5, Flag: FlagDefault, On: true},
		FuncDefaultRemove:  {Gid: 5, Flag: FlagDefault, On: false},
		FuncFavoriteSet:    {Gid: 5, Flag: FlagFavorite, On: true},
		FuncFavoriteRemove: {Gid: 5, Flag: FlagFavorite, On: false},
	} {
		got, err := ParseFlag(fn, formRequest(common("gid", "5")...))
		if err != nil || got.Gid != want.Gid || got.Flag != want.Flag || got.On != want.On {
			t.Errorf("ParseFlag(%s) = %+v, %v", fn, got, err)
		}
	}
	if _, err := ParseFlag(FuncVote, formRequest(common("gid", "5")...)); !errors.Is(err, ErrBadRequest) {
		t.Errorf("ParseFlag(guide_vote) = %v", err)
	}
}

func TestParseVote(t *testing.T) {
	for _, tt := range []struct {
		name string
		kv   []string
		gid  GuideID
		vote Vote
	}{
		{"up", common("v", "1", "gid", "5", "compendium_guide", "5"), 5, VoteUp},
		{"down", common("v", "0", "gid", "5"), 5, VoteDown},
		{"compendium only", common("v", "1", "compendium_guide", "6"), 6, VoteUp},
		{"bad v", common("v", "2", "gid", "5"), 0, 0},
		{"no v", common("gid", "5"), 0, 0},
		{"no guide", common("v", "1"), 0, 0},
		{"disagreeing ids", common("v", "1", "gid", "5", "compendium_guide", "6"), 0, 0},
		{"bad compendium", common("v", "1", "gid", "5", "compendium_guide", "x"), 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseVote(formRequest(tt.kv...))
			if tt.gid == 0 {
				if !errors.Is(err, ErrBadRequest) {
					t.Fatalf("ParseVote = %+v, %v; want a bad request", got, err)
				}
				return
			}
			if err != nil || got.Gid != tt.gid || got.Vote != tt.vote {
				t.Fatalf("ParseVote = %+v, %v; want gid %d vote %v", got, err, tt.gid, tt.vote)
			}
		})
	}
}
