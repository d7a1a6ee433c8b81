package storage

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/honmaster/masterserver/storage/internal/pb"
)

var marshal = proto.MarshalOptions{Deterministic: true}

// marshalSized marshals a message whose sizes marshal.Size just cached.
var marshalSized = proto.MarshalOptions{Deterministic: true, UseCachedSize: true}

// encodePB writes the format byte and m.
func encodePB(m proto.Message) ([]byte, error) {
	b := make([]byte, 1, 1+marshal.Size(m))
	b[0] = formatV2
	return marshal.MarshalAppend(b, m)
}

// decodePB reads a value written by encodePB into m.
func decodePB(b []byte, m proto.Message) error {
	if len(b) == 0 || b[0] != formatV2 {
		return fmt.Errorf("%w: unknown value format", ErrCorrupt)
	}
	if err := proto.Unmarshal(b[1:], m); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return nil
}

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// profileScratch is the message pair a profile record is encoded from,
// reused (profileScratches): the profile is encoded on every drop.
type profileScratch struct {
	p pb.Profile
	s pb.Stats
}

var profileScratches = sync.Pool{New: func() any { return new(profileScratch) }}

// release clears sc (it refers to an account's strings) and
// returns it to the pool.
func (sc *profileScratch) release() {
	sc.p, sc.s = pb.Profile{}, pb.Stats{}
	profileScratches.Put(sc)
}

// profileOf fills a scratch with a's profile record; the caller releases it
// once encoded.
func profileOf(a *Account) *profileScratch {
	sc := profileScratches.Get().(*profileScratch)
	s := &a.Stats
	sc.s = pb.Stats{
		Level: int64(s.Level), LevelExp: int64(s.LevelExp), Discos: int64(s.Discos), PossibleDiscos: int64(s.PossibleDiscos),
		GamesPlayed: int64(s.GamesPlayed), AccPubSkill: s.AccPubSkill, AccWins: int64(s.AccWins), AccLosses: int64(s.AccLosses),
		AccGames: int64(s.AccGames), AccDiscos: int64(s.AccDiscos), RnkRating: s.RnkRating, RnkWins: int64(s.RnkWins),
		RnkLosses: int64(s.RnkLosses), RnkGames: int64(s.RnkGames), RnkDiscos: int64(s.RnkDiscos), CsRating: s.CSRating,
		CsWins: int64(s.CSWins), CsLosses: int64(s.CSLosses), CsGames: int64(s.CSGames), CsDiscos: int64(s.CSDiscos),
		MidGames: int64(s.MidGames), MidDiscos: int64(s.MidDiscos), RiftGames: int64(s.RiftGames), RiftDiscos: int64(s.RiftDiscos),
		CamGames: int64(s.CamGames), CamDiscos: int64(s.CamDiscos), CamCsGames: int64(s.CamCSGames), CamCsDiscos: int64(s.CamCSDiscos),
		BotGamesWon: int64(s.BotGamesWon), BotGamesValid: s.BotGamesValid,
	}
	sc.p = pb.Profile{
		Id: uint32(a.ID), SuperId: uint32(a.SuperID), Login: a.Login, Nickname: a.Nickname, Email: a.Email,
		AccountType: int64(a.AccountType), Trial: int64(a.Trial), SuspId: int64(a.SuspID), Standing: int64(a.Standing),
		IsNew: a.IsNew, CreatedUnixNano: nanos(a.Created),
		Stats:      &sc.s, // the SRP credentials are a record of their own (credentials.go)
		FreeHeroes: a.FreeHeroes, Gold: a.Gold, Silver: a.Silver, Tickets: a.Tickets, GameTokens: a.GameTokens,
		Points: a.Points, MmPoints: a.MMPoints, DiceTokens: a.DiceTokens, SeasonLevel: int64(a.SeasonLevel),
		CreepLevel: int64(a.CreepLevel), MuteExpiration: a.MuteExpiration, UseCloud: a.Cloud.UseCloud, AutoUpload: a.Cloud.AutoUpload,
	}
	return sc
}

func fromProfile(p *pb.Profile, a *Account) {
	s := p.GetStats()
	*a = Account{
		ID: AccountID(p.Id), SuperID: AccountID(p.SuperId), Login: p.Login, Nickname: p.Nickname, Email: p.Email,
		AccountType: int32(p.AccountType), Trial: int32(p.Trial), SuspID: int(p.SuspId), Standing: int(p.Standing),
		IsNew: p.IsNew, Created: unixNano(p.CreatedUnixNano),
		Stats: Stats{
			Level: int32(s.GetLevel()), LevelExp: int32(s.GetLevelExp()), Discos: int32(s.GetDiscos()), PossibleDiscos: int32(s.GetPossibleDiscos()),
			GamesPlayed: int32(s.GetGamesPlayed()), AccPubSkill: s.GetAccPubSkill(), AccWins: int32(s.GetAccWins()), AccLosses: int32(s.GetAccLosses()),
			AccGames: int32(s.GetAccGames()), AccDiscos: int32(s.GetAccDiscos()), RnkRating: s.GetRnkRating(), RnkWins: int32(s.GetRnkWins()),
			RnkLosses: int32(s.GetRnkLosses()), RnkGames: int32(s.GetRnkGames()), RnkDiscos: int32(s.GetRnkDiscos()), CSRating: s.GetCsRating(),
			CSWins: int32(s.GetCsWins()), CSLosses: int32(s.GetCsLosses()), CSGames: int32(s.GetCsGames()), CSDiscos: int32(s.GetCsDiscos()),
			MidGames: int32(s.GetMidGames()), MidDiscos: int32(s.GetMidDiscos()), RiftGames: int32(s.GetRiftGames()), RiftDiscos: int32(s.GetRiftDiscos()),
			CamGames: int32(s.GetCamGames()), CamDiscos: int32(s.GetCamDiscos()), CamCSGames: int32(s.GetCamCsGames()), CamCSDiscos: int32(s.GetCamCsDiscos()),
			BotGamesWon: int32(s.GetBotGamesWon()), BotGamesValid: s.GetBotGamesValid(),
		},
		FreeHeroes: p.FreeHeroes, Gold: p.Gold, Silver: p.Silver, Tickets: p.Tickets, GameTokens: p.GameTokens,
		Points: p.Points, MMPoints: p.MmPoints, DiceTokens: p.DiceTokens, SeasonLevel: int32(p.SeasonLevel),
		CreepLevel: int32(p.CreepLevel), MuteExpiration: p.MuteExpiration, Cloud: CloudFlags{UseCloud: p.UseCloud, AutoUpload: p.AutoUpload},
	}
}

// sameProfile reports whether a and b encode to the same profile record
// (profileOf), without encoding either: every field profileOf writes is
// compared here (TestSameRecordsCoverEveryField keeps the two in step).
// The SRP credentials are not: they are a record of their own.
func sameProfile(a, b *Account) bool {
	return a.ID == b.ID && a.SuperID == b.SuperID && a.Login == b.Login && a.Nickname == b.Nickname &&
		a.Email == b.Email && a.AccountType == b.AccountType && a.Trial == b.Trial && a.SuspID == b.SuspID &&
		a.Standing == b.Standing && a.IsNew == b.IsNew && nanos(a.Created) == nanos(b.Created) &&
		a.Stats == b.Stats && a.FreeHeroes == b.FreeHeroes && a.Gold == b.Gold && a.Silver == b.Silver &&
		a.Tickets == b.Tickets && a.GameTokens == b.GameTokens && a.Points == b.Points && a.MMPoints == b.MMPoints &&
		a.DiceTokens == b.DiceTokens && a.SeasonLevel == b.SeasonLevel && a.CreepLevel == b.CreepLevel &&
		a.MuteExpiration == b.MuteExpiration && a.Cloud == b.Cloud
}

// sameLists reports whether a and b encode to the same lists record
// (toLists), without encoding either.
func sameLists(a, b *Account) bool {
	return slices.Equal(a.SelectedUpgrades, b.SelectedUpgrades) && slices.Equal(a.Chatrooms, b.Chatrooms) &&
		slices.Equal(a.Buddies, b.Buddies) && slices.Equal(a.Ignored, b.Ignored) && slices.Equal(a.Banned, b.Banned) &&
		slices.EqualFunc(a.Notifications, b.Notifications, func(x, y Notification) bool {
			return x.ID == y.ID && x.Sender == y.Sender && x.Code == y.Code && x.Type == y.Type &&
				x.Template == y.Template && nanos(x.Date) == nanos(y.Date)
		})
}

func toLists(a *Account) *pb.Lists {
	l := &pb.Lists{SelectedUpgrades: a.SelectedUpgrades, Chatrooms: a.Chatrooms}
	for _, b := range a.Buddies {
		l.Buddies = append(l.Buddies, &pb.Buddy{Id: uint32(b.ID), Nickname: b.Nickname, Group: b.Group, ClanTag: b.ClanTag,
			Status: int64(b.Status), Standing: int64(b.Standing), Inactive: b.Inactive, New: b.New})
	}
	for _, i := range a.Ignored {
		l.Ignored = append(l.Ignored, &pb.Ignored{Id: uint32(i.ID), Nickname: i.Nickname})
	}
	for _, b := range a.Banned {
		l.Banned = append(l.Banned, &pb.Banned{Id: uint32(b.ID), Nickname: b.Nickname, Reason: b.Reason})
	}
	for _, n := range a.Notifications {
		l.Notifications = append(l.Notifications, &pb.Notification{Id: n.ID, Sender: n.Sender, Code: int64(n.Code),
			Type: n.Type, Template: n.Template, DateUnixNano: nanos(n.Date)})
	}
	return l
}

func fromLists(l *pb.Lists, a *Account) {
	a.SelectedUpgrades, a.Chatrooms = l.SelectedUpgrades, l.Chatrooms
	a.Buddies, a.Ignored, a.Banned, a.Notifications = nil, nil, nil, nil
	for _, b := range l.Buddies {
		a.Buddies = append(a.Buddies, Buddy{ID: AccountID(b.Id), Nickname: b.Nickname, Group: b.Group, ClanTag: b.ClanTag,
			Status: int(b.Status), Standing: int(b.Standing), Inactive: b.Inactive, New: b.New})
	}
	for _, i := range l.Ignored {
		a.Ignored = append(a.Ignored, Ignored{ID: AccountID(i.Id), Nickname: i.Nickname})
	}
	for _, b := range l.Banned {
		a.Banned = append(a.Banned, Banned{ID: AccountID(b.Id), Nickname: b.Nickname, Reason: b.Reason})
	}
	for _, n := range l.Notifications {
		a.Notifications = append(a.Notifications, Notification{ID: n.Id, Sender: n.Sender, Code: int(n.Code),
			Type: n.Type, Template: n.Template, Date: unixNano(n.DateUnixNano)})
	}
}

func toUpgrade(seq int, u *Upgrade) *pb.Upgrade {
	return &pb.Upgrade{Seq: uint64(seq), Data: u.Data, StartTime: u.StartTime, EndTime: u.EndTime, Used: int64(u.Used), Score: u.Score}
}

func toSession(s *Session) *pb.Session {
	return &pb.Session{AccountId: uint32(s.AccountID), SuperId: uint32(s.SuperID), Ip: s.IP,
		CreatedUnixNano: nanos(s.Created), ExpiresUnixNano: nanos(s.Expires),
		ProofAccount: uint32(s.ProofAccount), ProofSalt: s.ProofSalt}
}

func fromSession(p *pb.Session, hash [32]byte) *Session {
	return &Session{Hash: hash, AccountID: AccountID(p.AccountId), SuperID: AccountID(p.SuperId), IP: p.Ip,
		Created: unixNano(p.CreatedUnixNano), Expires: unixNano(p.ExpiresUnixNano),
		ProofAccount: AccountID(p.ProofAccount), ProofSalt: p.ProofSalt}
}
