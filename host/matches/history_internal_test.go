package matches

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/honmaster/masterserver/actors"
	pb "github.com/honmaster/masterserver/host/matches/internal/matchesrecpb"
	"github.com/honmaster/masterserver/plugins/matches/matchesapi"
	"github.com/honmaster/masterserver/wire"
)

// TestKeptFieldsBounded: what a match keeps of a submission is bounded in
// count and bytes, whatever a server sends.
func TestKeptFieldsBounded(t *testing.T) {
	in := map[string]string{}
	for i := range 1000 {
		in["field"+strconv.Itoa(i)] = string(make([]byte, 200))
	}
	in["x"+string(make([]byte, 100))] = "long name"
	in["small"] = "1"
	got := keptFields(in)
	size := 0
	for k, v := range got {
		size += len(k) + len(v)
		if len(k) > maxKeptNameLen || len(v) > maxKeptValueLen {
			t.Errorf("kept %q (%d bytes)", k[:10], len(v))
		}
	}
	if len(got) > maxKeptFields || size > maxKeptBytes || got["small"] != "1" {
		t.Errorf("kept %d fields, %d bytes, small %q", len(got), size, got["small"])
	}
	if inv := keptInventory(map[string]string{"1": "Item_A", "6": "Item_F", "7": "Item_X"}); len(inv) != 6 || inv[0] != "Item_A" || inv[5] != "Item_F" {
		t.Errorf("inventory %q", inv)
	}
}

// TestTheLargestMatchFitsItsEffect: a recorded match travels to its
// participants' actors as one effect, whose payload actors bounds. The
// largest the area accepts (matchesapi.MaxPlayers players, each keeping
// every field keptFields allows, in as many fields as it allows, so that
// the encoding's overhead is the most, and the longest hero and item
// names) must fit: a match past the bound could never be recorded, on
// any retry.
func TestTheLargestMatchFitsItsEffect(t *testing.T) {
	most := func(prefix string) map[string]string {
		// maxKeptFields fields whose names and values fill maxKeptBytes.
		in := map[string]string{}
		each := maxKeptBytes / maxKeptFields
		for i := range maxKeptFields {
			name := fmt.Sprintf("%s%04d", prefix, i)
			in[name] = strings.Repeat("9", each-len(name))
		}
		return in
	}
	long := strings.Repeat("h", wire.DefaultStatsFormLimits.MaxKeyLen)
	item := strings.Repeat("i", maxKeptNameLen)
	inv := map[string]string{}
	for i := range inventorySlots {
		inv[strconv.Itoa(i+1)] = item
	}
	p := &pb.Payload{Host: math.MaxUint32, MatchId: math.MaxUint32, ServerId: math.MaxUint32, Submitted: math.MaxInt64,
		TimePlayed: math.MaxInt32, StatsBytes: math.MaxInt64, Map: long, Summary: keptFields(most("match")), HistoryLength: math.MaxInt32}
	for i := range matchesapi.MaxPlayers {
		fields := keptFields(most("field"))
		if len(fields) != maxKeptFields {
			t.Fatalf("kept %d fields, want the most, %d", len(fields), maxKeptFields)
		}
		p.Results = append(p.Results, &pb.PlayerResult{AccountId: math.MaxUint32 - uint32(i), Team: math.MaxInt32, Win: true, Loss: true,
			Concede: true, Disco: true, Kills: math.MaxInt32, Deaths: math.MaxInt32, Assists: math.MaxInt32, Hero: long,
			Nickname: strings.Repeat("n", 64), HeroId: math.MaxInt32, Secs: math.MaxInt32, Fields: fields, Inventory: keptInventory(inv)})
		p.Deltas = append(p.Deltas, &pb.Delta{AccountId: math.MaxUint32 - uint32(i), Matches: math.MaxInt32, Wins: math.MaxInt32,
			Losses: math.MaxInt32, Concedes: math.MaxInt32, Discos: math.MaxInt32, Kills: math.MaxInt32, Deaths: math.MaxInt32,
			Assists: math.MaxInt32, Hero: long, Bucket: math.MaxInt32, PubSkill: -500, TeamRating: -500})
	}
	if n := proto.Size(p); n > actors.MaxEffectPayload {
		t.Fatalf("the largest match's effect payload is %d bytes, past actors.MaxEffectPayload (%d)", n, actors.MaxEffectPayload)
	} else {
		t.Logf("the largest match's effect payload: %d bytes of %d", n, actors.MaxEffectPayload)
	}
}

// TestAHeroNameCannotBreakTheUsageList: get_hero_usage_list joins a
// hero's figures with "|" and the heroes with "`"; a hero name is what a
// game server submitted, and the statistics form allows both characters
// in it. Before, such a name split the client's reading of the list.
func TestAHeroNameCannotBreakTheUsageList(t *testing.T) {
	a, id := benchPlayer(t, 0)
	for i, hero := range []string{"Hero_Pyromancer", "Hero_Bad|99.0|0`Hero_Fake"} {
		d := &pb.Delta{AccountId: uint32(id), Matches: 1, Wins: 1, Hero: hero}
		res := &pb.PlayerResult{AccountId: uint32(id), Team: 1, Hero: hero}
		p := &pb.Payload{MatchId: uint32(i + 1), Map: "caldavar", HistoryLength: 10}
		if _, err := actors.Apply(t.Context(), a.sys, id, func(tx *actors.Tx) (struct{}, error) {
			return struct{}{}, addDelta(tx, d, res, p)
		}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := a.heroUsageFor(id, "use")
	if err != nil {
		t.Fatal(err)
	}
	v, _ := r.Get("hero_usage")
	entries := strings.Split(fmt.Sprint(v), "`")
	if len(entries) != 2 {
		t.Fatalf("two heroes read as %d entries: %q", len(entries), v)
	}
	for _, e := range entries {
		if f := strings.Split(e, "|"); len(f) != 7 {
			t.Errorf("an entry of %d fields, want 7: %q", len(f), e)
		}
	}
}
