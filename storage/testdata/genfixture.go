//go:build ignore

// genfixture writes storage/testdata/v1 with the storage code of schema
// version 1 (JSON records, raw session cookies, before the per-concern
// records). It was run once at commit "storage: v1 fixture data directory"
// and its output committed; the migration test opens a copy of it. It no
// longer builds against the current package (that is the point): check out
// that commit to run it again.
//
//	go run storage/testdata/genfixture.go storage/testdata/v1
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/honmaster/masterserver/storage"
)

func main() {
	out := os.Args[1]
	tmp, err := os.MkdirTemp("", "fixture")
	must(err)
	defer os.RemoveAll(tmp)
	db, err := storage.Open(tmp+"/db", nil)
	must(err)
	t0 := time.Unix(1700000000, 0).UTC()
	b := db.NewBatch()
	// Account 1 main with upgrades, lists, balances; 2 its sub-account;
	// 3 a second main account owning 600 upgrades (a big record).
	a1 := &storage.Account{ID: 1, SuperID: 1, Login: "SouL", Nickname: "TheSoul", Email: "soul@example.invalid",
		AccountType: 1, Standing: 3, IsNew: true, Created: t0,
		SRP:   storage.SRPVerifier{Salt: []byte{7, 1, 2, 3}, Salt2: "abcdefghijklmnopqrstuv", Verifier: []byte{9, 8, 7, 6}},
		Stats: storage.Stats{Level: 12, LevelExp: 4200, GamesPlayed: 57, AccPubSkill: 1612.5, AccWins: 31, RnkRating: 1500, BotGamesValid: true, BotGamesWon: 4},
		Upgrades: []storage.Upgrade{{ID: "aa.Hero_Pyromancer.Alt2"}, {ID: "av.Flamboyant", Data: "x", Used: 2, Score: "9"},
			{ID: "m.DemoMode", StartTime: 1700000000, EndTime: 1702592000}},
		SelectedUpgrades: []string{"av.Flamboyant"},
		Buddies:          []storage.Buddy{{ID: 3, Nickname: "Friend", Group: "g", ClanTag: "CT", Status: 2, Standing: 3, New: true}},
		Ignored:          []storage.Ignored{{ID: 9, Nickname: "Troll"}},
		Banned:           []storage.Banned{{ID: 10, Nickname: "Cheat", Reason: "hacks"}},
		Notifications:    []storage.Notification{{ID: 1, Sender: "Friend", Code: 2, Type: "notify_buddy_added", Template: "t", Date: t0}},
		Chatrooms:        []string{"HoN"}, FreeHeroes: "Hero_A,Hero_B",
		Gold: 500, Silver: 40, Tickets: 1234, GameTokens: 3, Points: 4, MMPoints: 5, DiceTokens: 6,
		SeasonLevel: 7, CreepLevel: 8, MuteExpiration: 1700001000, Cloud: storage.CloudFlags{UseCloud: true, AutoUpload: true},
	}
	a2 := &storage.Account{ID: 2, SuperID: 1, Login: "soul2", Nickname: "soul2", Email: "s2@example.invalid",
		Created: t0.Add(time.Minute), SRP: storage.SRPVerifier{Salt: []byte{1}, Salt2: "bbbbbbbbbbbbbbbbbbbbbb", Verifier: []byte{2}},
		Tickets: 10}
	a3 := &storage.Account{ID: 3, SuperID: 3, Login: "Friend", Nickname: "Friend", Email: "f@example.invalid",
		Created: t0.Add(2 * time.Minute), SRP: storage.SRPVerifier{Salt: []byte{3}, Salt2: "cccccccccccccccccccccc", Verifier: []byte{4}},
		Gold: 1}
	for i := 0; i < 600; i++ {
		a3.Upgrades = append(a3.Upgrades, storage.Upgrade{ID: fmt.Sprintf("ai.Icon_%04d", i)})
	}
	for _, a := range []*storage.Account{a1, a2, a3} {
		b.PutAccount(a)
		b.PutLogin(a.Login, a.ID)
	}
	b.PutSubAccount(1, 2)
	b.SetNextAccountID(4)
	b.PutSession(&storage.Session{Cookie: "0123456789abcdef0123456789abcdef", AccountID: 1, SuperID: 1, IP: "10.0.0.1",
		Created: t0, Expires: t0.Add(100 * 365 * 24 * time.Hour)})
	b.PutSession(&storage.Session{Cookie: "fedcba9876543210fedcba9876543210", AccountID: 2, SuperID: 1, IP: "10.0.0.2",
		Created: t0, Expires: t0.Add(time.Hour)}) // expired long ago
	b.PutCloud(&storage.CloudObject{AccountID: 1, Bucket: "hon-game-configs", ModifyTime: "2024-01-02 03:04:05",
		Stored: time.Unix(1700000001, 5).UTC(), Data: []byte("PK\x03\x04 zip bytes \x00\xff")})
	b.PutMeta("auth_hash_secret", []byte("0123456789abcdef0123456789abcdef"))
	b.PutCatalog(&storage.Catalog{
		Chests: [4][]storage.Product{{{ID: 1, Name: "Hero_Pyromancer.Alt2", Type: "Alt Avatar", ShortType: "aa", LocalPath: "/p.tga", Upgrade: "aa.Hero_Pyromancer.Alt2"}},
			{{ID: 2, Name: "Icon", Type: "Account Icon", ShortType: "ai", Upgrade: "ai.Icon_0001"}}},
		Exchange:   []storage.ExchangeItem{{Product: storage.Product{ID: 3, Name: "Bag", Upgrade: "cc.Bag"}, Cost: 50, GrabBag: &storage.GrabBag{Theme: "default", Products: []storage.Product{{ID: 4, Upgrade: "cc.Blue"}}}}},
		LastUpdate: [6]int64{1, 2, 3, 4, 5, 6},
	})
	must(db.Commit(b))
	must(os.RemoveAll(out))
	must(db.Checkpoint(out))
	must(db.Close())
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}
