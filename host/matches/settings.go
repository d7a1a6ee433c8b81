package matches

import (
	_ "embed"
	"errors"
	"time"

	"github.com/honmaster/masterserver/config"
	"github.com/honmaster/masterserver/plugins/matches/matchesapi"
)

// Settings are the [matches] table; settings.toml holds their defaults and
// documents every key.
type Settings struct {
	HeartbeatTimeout config.Duration `toml:"heartbeat_timeout"`
	MaxStatsValues   int             `toml:"max_stats_values"`
	MaxStatsBody     config.ByteSize `toml:"max_stats_body"`
	MaxBracketDepth  int             `toml:"max_bracket_depth"`
	MaxKeyLength     int             `toml:"max_key_length"`
	KeyLifetime      config.Duration `toml:"key_lifetime"`
	MaxParticipants  int             `toml:"max_participants"`
	MaxServers       int             `toml:"max_servers_per_host"`
	StartBurst       int             `toml:"start_game_burst"`
	StartEvery       config.Duration `toml:"start_game_every"`
	HeartbeatBurst   int             `toml:"heartbeat_write_burst"`
	HeartbeatEvery   config.Duration `toml:"heartbeat_write_every"`
	SubmitBurst      int             `toml:"stats_submit_burst"`
	SubmitEvery      config.Duration `toml:"stats_submit_every"`
	ChatAddress      string          `toml:"chat_address"`
	ChatManagerPort  int             `toml:"chat_manager_port"`
	ChatServerPort   int             `toml:"chat_server_port"`
	LeaverThreshold  float64         `toml:"leaver_threshold"`
	// The client's server list and the chat servers' session check
	// (serverlist.go, chatconnect.go).
	ServerListMax   int             `toml:"server_list_max"`
	ServerListBurst int             `toml:"server_list_burst"`
	ServerListEvery config.Duration `toml:"server_list_every"`
	ChatSalt        string          `toml:"chat_salt"`
	ChatServers     []string        `toml:"chat_servers"`
	HistoryLength   int             `toml:"history_length"`
}

//go:embed settings.toml
var settingsTOML string

// SettingsOf is the [matches] table of a configuration (its defaults when
// the file sets none).
var SettingsOf = config.RegisterTable[Settings](areaName, settingsTOML)

// ValidateIn is run by config.Config.Validate: max_stats_body must fit
// server.large_body_limit, past which the server does not take a body at
// all (checked here, it was found only once the server had opened its
// database and started its plugins, naming neither key).
func (s *Settings) ValidateIn(c *config.Config) error {
	if lim := c.Server.LargeBodyLimit; s.MaxStatsBody > lim {
		return config.KeyProblem("max_stats_body", "must not exceed server.large_body_limit (%s), got %s: raise server.large_body_limit too", lim, s.MaxStatsBody)
	}
	return nil
}

// Validate is run by config.Config.Validate: every limit within a range
// that keeps the server safe and a long match acceptable.
func (s *Settings) Validate() error {
	var errs []error
	p := func(key, format string, args ...any) { errs = append(errs, config.KeyProblem(key, format, args...)) }
	if d := s.HeartbeatTimeout.Duration; d < 10*time.Second || d > time.Hour {
		p("heartbeat_timeout", "must be 10s..1h, got %s", s.HeartbeatTimeout)
	}
	if s.MaxStatsValues < 1024 || s.MaxStatsValues > 1_000_000 {
		p("max_stats_values", "must be 1024..1000000, got %d", s.MaxStatsValues)
	}
	if s.MaxStatsBody < config.MiB || s.MaxStatsBody > 1024*config.MiB {
		p("max_stats_body", "must be 1MiB..1GiB, got %s", s.MaxStatsBody)
	}
	if s.MaxBracketDepth < 3 || s.MaxBracketDepth > 16 {
		p("max_bracket_depth", "must be 3..16 (player_stats[key][hero][field] needs 3), got %d", s.MaxBracketDepth)
	}
	if s.MaxKeyLength < 64 || s.MaxKeyLength > 4096 {
		p("max_key_length", "must be 64..4096 bytes, got %d", s.MaxKeyLength)
	}
	if d := s.KeyLifetime.Duration; d < 10*time.Second || d > 24*time.Hour {
		p("key_lifetime", "must be 10s..24h, got %s", s.KeyLifetime)
	}
	if s.MaxParticipants < 1 || s.MaxParticipants > matchesapi.MaxPlayers {
		p("max_participants", "must be 1..%d, got %d", matchesapi.MaxPlayers, s.MaxParticipants)
	}
	if s.MaxServers < 1 || s.MaxServers > 100_000 {
		p("max_servers_per_host", "must be 1..100000, got %d", s.MaxServers)
	}
	if s.StartBurst < 1 || s.StartBurst > 1_000_000 {
		p("start_game_burst", "must be 1..1000000, got %d", s.StartBurst)
	}
	if d := s.StartEvery.Duration; d < time.Millisecond || d > time.Hour {
		p("start_game_every", "must be 1ms..1h, got %s", s.StartEvery)
	}
	if s.HeartbeatBurst < 1 || s.HeartbeatBurst > 1_000_000 {
		p("heartbeat_write_burst", "must be 1..1000000, got %d", s.HeartbeatBurst)
	}
	if d := s.HeartbeatEvery.Duration; d < time.Millisecond || d > time.Hour {
		p("heartbeat_write_every", "must be 1ms..1h, got %s", s.HeartbeatEvery)
	}
	if s.SubmitBurst < 1 || s.SubmitBurst > 1_000_000 {
		p("stats_submit_burst", "must be 1..1000000, got %d", s.SubmitBurst)
	}
	if d := s.SubmitEvery.Duration; d < time.Millisecond || d > time.Hour {
		p("stats_submit_every", "must be 1ms..1h, got %s", s.SubmitEvery)
	}
	if s.ChatManagerPort < 0 || s.ChatManagerPort > 65535 {
		p("chat_manager_port", "must be 0..65535, got %d", s.ChatManagerPort)
	}
	if s.ChatServerPort < 0 || s.ChatServerPort > 65535 {
		p("chat_server_port", "must be 0..65535, got %d", s.ChatServerPort)
	}
	if !(s.LeaverThreshold >= 0 && s.LeaverThreshold <= 1) { // NaN too
		p("leaver_threshold", "must be 0..1, got %v", s.LeaverThreshold)
	}
	s.validateClient(p)
	if s.HistoryLength < 1 || s.HistoryLength > 1000 {
		p("history_length", "must be 1..1000, got %d", s.HistoryLength)
	}
	return errors.Join(errs...)
}
