package wire_test

import (
	"errors"
	"fmt"
	"net"

	"github.com/honmaster/masterserver/wire"
	"github.com/valyala/fasthttp"
)

func ExampleMarshal() {
	type preAuthReply struct {
		Salt  string `php:"salt"`
		Salt2 string `php:"salt2"`
		B     string `php:"B"`
		wire.Extras
	}
	out, err := wire.Marshal(preAuthReply{Salt: "5a17", Salt2: "205cd38bd6", B: "0f61"})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))
	// Output:
	// a:5:{s:4:"salt";s:4:"5a17";s:5:"salt2";s:10:"205cd38bd6";s:1:"B";s:4:"0f61";s:16:"vested_threshold";i:5;i:0;b:1;}
}

func ExampleMarshal_omitempty() {
	type info struct {
		AccountID      string  `php:"account_id"`
		FileModifyTime *string `php:"file_modify_time"`
		Note           string  `php:"note,omitempty"`
	}
	out, _ := wire.Marshal(info{AccountID: "1000"})
	fmt.Println(string(out))
	// Output:
	// a:2:{s:10:"account_id";s:4:"1000";s:16:"file_modify_time";N;}
}

func ExampleArray() {
	// Keys known only at run time, in the order given. "1001" is a
	// canonical integer, so PHP (and wire) store it as the integer 1001.
	buddies := wire.NewArray().
		Set("1001", wire.NewArray().Set("nickname", "Friend")).
		Set("1000", wire.NewArray())
	list := wire.NewArray().Append("first").Append("second")
	out, _ := wire.Marshal(wire.NewArray().Set("buddy_list", buddies).Set("chatrooms", list))
	fmt.Println(string(out))
	// Output:
	// a:2:{s:10:"buddy_list";a:2:{i:1001;a:1:{s:8:"nickname";s:6:"Friend";}i:1000;a:0:{}}s:9:"chatrooms";a:2:{i:0;s:5:"first";i:1;s:6:"second";}}
}

func ExampleUnmarshal() {
	v, err := wire.Unmarshal([]byte(`a:2:{s:4:"auth";s:16:"Invalid cookie.1";i:0;b:0;}`))
	if err != nil {
		panic(err)
	}
	reply := v.(*wire.Array)
	auth, _ := reply.String("auth")
	ok, _ := reply.Bool(0)
	fmt.Println(reply.Keys(), auth, ok)
	// Output:
	// [auth 0] Invalid cookie.1 false
}

func ExampleReadRequest() {
	// A handler would receive ctx from fasthttp; here it is built in place.
	var req fasthttp.Request
	req.Header.SetMethod("POST")
	req.SetRequestURI("/client_requester.php?f=pre_auth")
	req.Header.SetContentType("application/x-www-form-urlencoded")
	req.SetBodyString("login=SouL&A=2cf2668b&SysInfo=a|b|c")
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(192, 0, 2, 7)}, nil)

	r, err := wire.ReadRequest(&ctx, wire.DefaultLimits)
	if err != nil {
		panic(err)
	}
	var in struct {
		F     string `form:"f,required"`
		Login string `form:"login,required,nonempty"`
		A     string `form:"A,required,nonempty"`
	}
	if err := r.Decode(&in); err != nil {
		panic(err)
	}
	fmt.Println(r.Path, r.RemoteIP, in.F, in.Login, in.A)
	// Output:
	// /client_requester.php 192.0.2.7 pre_auth SouL 2cf2668b
}

func ExampleParseStatsForm() {
	body := []byte("f=submit_stats&session=0123abcd&match_stats[match_id]=4021&team_stats[1][score]=12" +
		"&player_stats[0][Hero_Pyromancer][herokills]=7&player_stats[0][Hero_Pyromancer][nickname]=%5BTAG%5DSouL" +
		"&inventory[0][0]=Item_Steamboots&frags[0][killer_id]=0")
	f, err := wire.ParseStatsForm(body, wire.DefaultStatsFormLimits)
	if err != nil {
		panic(err)
	}
	id, _ := f.MatchID()
	p := f.Players[0]
	kills, _ := p.Int("herokills")
	fmt.Println(f.Function, id, f.Teams["1"]["score"], len(f.Players), p.Key, p.Hero, p.Fields["nickname"], kills,
		f.Inventory["0"]["0"], f.Frags[0].Path, f.Values)

	_, err = wire.ParseStatsForm([]byte("a[b][c][d][e]=1"), wire.DefaultStatsFormLimits)
	var refused *wire.FormLimitError
	if errors.As(err, &refused) {
		fmt.Println(refused.Reason, "-", err)
	}
	// Output:
	// submit_stats 4021 12 1 0 Hero_Pyromancer [TAG]SouL 7 Item_Steamboots [0 killer_id] 8
	// too_deep - statistics form refused: field "a[b][c][d][e]": more than 3 levels of brackets
}
