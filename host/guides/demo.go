package guides

import (
	"fmt"
	"time"
)

// DemoAuthor is the author of one demo guide per hero: the demo account's
// login, so that serve --demo shows is_yours for it.
const DemoAuthor = "demo"

// demoHero is a hero of the demo rotation (client.free_heroes' default)
// with its abilities.
type demoHero struct {
	cli, name string
}

var demoHeroes = []demoHero{
	{"Hero_Pyromancer", "Pyromancer"},
	{"Hero_Devourer", "Devourer"},
	{"Hero_Hammerstorm", "Hammerstorm"},
}

// abilOrder is a 25-level skill order: ability numbers, 0 for the attribute
// boost.
var abilOrder = [25]int{1, 2, 1, 3, 1, 4, 1, 2, 2, 2, 4, 3, 3, 3, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0}

func demoAbilities(hero string) []string {
	out := make([]string, len(abilOrder))
	for i, n := range abilOrder {
		if n == 0 {
			out[i] = "Ability_AttributeBoost"
		} else {
			out[i] = fmt.Sprintf("Ability_%s%d", hero, n)
		}
	}
	return out
}

// DemoGuides are the guides serve --demo seeds: for each demo hero a
// premium guide, a guide by the demo account and a community guide with
// votes, so that ordering, premium and is_yours all show. Gids are 1001,
// 1002, ... (re-seeding updates them).
func DemoGuides() []Guide {
	base := time.Date(2024, 3, 1, 14, 30, 0, 0, time.UTC)
	start := []string{"Item_RunesOfTheBlight", "Item_HealthPotion", "Item_MinorTotem", "Item_MinorTotem", "", ""}
	var out []Guide
	for i, h := range demoHeroes {
		abil := demoAbilities(h.name)
		gid := GuideID(1001 + 3*i)
		out = append(out,
			Guide{
				Gid: gid, Hero: h.cli, HeroName: h.name, Name: h.name + " Masterclass",
				AuthorName: "HoNGuides", Edited: base.Add(time.Duration(i) * 24 * time.Hour), Premium: true,
				Start: start, Laning: []string{"Item_Marchers", "Item_ManaBattery", "Item_Bottle"},
				Core:   []string{"Item_Steamboots", "Item_PortalKey", "Item_Intelligence7"},
				Luxury: []string{"Item_Morph", "Item_Lightning2", "Item_Immunity"},
				Abil:   abil, Intro: fmt.Sprintf("The featured %s guide: a safe start, an early Portal Key and when to fight.", h.name),
				Up: 40, Down: 2,
			},
			Guide{
				Gid: gid + 1, Hero: h.cli, HeroName: h.name, Name: fmt.Sprintf("Demo's %s: fast farm", h.name),
				AuthorName: DemoAuthor, Edited: base.Add(time.Duration(i)*24*time.Hour + 3*time.Hour),
				Start: start, Laning: []string{"Item_Marchers", "Item_Bottle"},
				Core:   []string{"Item_Steamboots", "Item_Strength5"},
				Luxury: []string{"Item_Evasion", "Item_Damage9"},
				Abil:   abil, Intro: "The demo account's own guide: set it as default, favorite it, vote on others.",
				Up: 3, Down: 1,
			},
			Guide{
				Gid: gid + 2, Hero: h.cli, HeroName: h.name, Name: h.name + " support build for ranked games",
				AuthorName: "FriendlyFoe", Edited: base.Add(time.Duration(i)*24*time.Hour - 26*time.Hour),
				Start: start, Laning: []string{"Item_Marchers", "Item_ManaRegen3"},
				Core:   []string{"Item_Astrolabe", "Item_PortalKey"},
				Luxury: []string{"Item_Intelligence7", "Item_BarrierIdol"},
				Abil:   abil, Intro: "Wards, rotations and saving your carry.",
				Up: 17, Down: 5,
			},
		)
	}
	return out
}
