package plinko

import (
	"fmt"
	"strings"
	"time"
)

// demoHeroes are invented hero names for the synthetic demo catalog.
var demoHeroes = []string{
	"Pyromancer", "Emberwitch", "Stormherald", "Tidecaller", "Ironbark",
	"Duskblade", "Sandstrider", "Frostwarden", "Sparkwright", "Gloomfang",
}

// demoAlt is an alternate avatar of a demo hero.
func demoAlt(id int64, hero string, alt int) productFile {
	return productFile{
		ID: id, Name: fmt.Sprintf("Hero_%s.Alt%d", hero, alt), Type: "Alt Avatar", ShortType: "aa",
		LocalPath: fmt.Sprintf("/heroes/%s/alt%d/icon.tga", strings.ToLower(hero), alt),
	}
}

// DemoCatalog is the synthetic catalog seeded by serve --demo: a few
// avatars per chest (the Diamond chest adds an announcer), and an exchange
// with plain items and two grab bags. Names, ids and paths are invented.
func DemoCatalog() *Catalog {
	var f catalogFile
	f.Format = catalogFormat
	f.LastUpdate = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	sizes := [4]int{3, 4, 6, 8} // diamond, gold, silver, bronze
	for t, n := range sizes {
		ch := chestFile{Tier: t + 1, LastUpdate: f.LastUpdate + int64(t+1)*86400}
		for i := range n {
			hero := demoHeroes[(t*3+i)%len(demoHeroes)]
			ch.Products = append(ch.Products, demoAlt(int64((t+1)*1000+i+1), hero, 10-t*2+i/len(demoHeroes)))
		}
		f.Chests = append(f.Chests, ch)
	}
	f.Chests[0].Products = append(f.Chests[0].Products, productFile{
		ID: 1900, Name: "Demo Thunder Announcer", Type: "Alt Announcement", ShortType: "av",
		LocalPath: "/ui/fe2/store/icons/announcer_demo_thunder.tga", Upgrade: "av.DemoThunder",
	})
	f.Exchange = []exchangeEntry{
		{productFile: productFile{ID: 5001, Name: "Super-Taunt", Type: "Misc", ShortType: "t",
			LocalPath: "/ui/fe2/store/icons/taunt_super.tga", Upgrade: "t.Super"}, Cost: 1300},
		{productFile: demoAlt(5002, "Gloomfang", 1), Cost: 700},
		{productFile: demoAlt(5003, "Sparkwright", 1), Cost: 700},
		{productFile: productFile{ID: 5004, Name: "Golden Courier", Type: "Couriers", ShortType: "c",
			LocalPath: "/ui/fe2/store/icons/courier_golden.tga", Upgrade: "c.Golden"}, Cost: 900},
		{productFile: productFile{ID: 5101, Name: "Winter Grab Bag", Type: "Misc", ShortType: "gb",
			LocalPath: "/ui/fe2/store/icons/grabbag_winter.tga"}, Cost: 1500,
			GrabBag: &grabBagFile{Theme: "christmas", Products: []productFile{
				demoAlt(6001, "Frostwarden", 2), demoAlt(6002, "Tidecaller", 2),
				{ID: 6003, Name: "Snowfall Ward", Type: "Misc", ShortType: "w", LocalPath: "/ui/fe2/store/icons/ward_snow.tga", Upgrade: "w.SnowfallWard"},
			}}},
		{productFile: productFile{ID: 5102, Name: "Haunted Grab Bag", Type: "Misc", ShortType: "gb",
			LocalPath: "/ui/fe2/store/icons/grabbag_haunted.tga"}, Cost: 1200,
			GrabBag: &grabBagFile{Theme: "halloween", Products: []productFile{
				demoAlt(6101, "Duskblade", 2), demoAlt(6102, "Gloomfang", 2),
			}}},
	}
	c, err := f.catalog(time.Unix(f.LastUpdate, 0))
	if err != nil {
		panic(fmt.Sprintf("plinko: demo catalog: %v", err)) // a bug here; TestDemoCatalog catches it
	}
	return c
}
