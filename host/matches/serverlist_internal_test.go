package matches

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/honmaster/masterserver/config"
)

// TestClientSettings: the server list's and chat servers' settings are
// valid by default and each bad value is named by its key.
func TestClientSettings(t *testing.T) {
	def := SettingsOf(config.Default())
	if err := def.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if len(def.ChatServers) != 2 || def.ServerListMax != 500 || def.ChatSalt != "" {
		t.Fatalf("defaults %+v", def)
	}
	for key, mutate := range map[string]func(*Settings){
		"server_list_max":   func(s *Settings) { s.ServerListMax = 0 },
		"server_list_burst": func(s *Settings) { s.ServerListBurst = 0 },
		"server_list_every": func(s *Settings) { s.ServerListEvery.Duration = 0 },
		"chat_salt":         func(s *Settings) { s.ChatSalt = strings.Repeat("s", 300) },
		"chat_servers":      func(s *Settings) { s.ChatServers = []string{"127.0.0.1", "chat.example.org"} },
	} {
		s := def
		s.ChatServers = append([]string(nil), def.ChatServers...)
		mutate(&s)
		if err := s.Validate(); err == nil || !strings.Contains(err.Error(), key) {
			t.Errorf("%s: %v", key, err)
		}
	}
}

// TestChatCaller: only callers in chat_servers (addresses or networks,
// IPv4-mapped addresses as IPv4) are chat servers.
func TestChatCaller(t *testing.T) {
	for _, c := range []struct {
		list []string
		ip   string
		want bool
	}{
		{nil, "127.0.0.1", false},
		{[]string{"127.0.0.0/8", "::1"}, "127.0.0.1", true},
		{[]string{"127.0.0.0/8", "::1"}, "127.9.9.9", true},
		{[]string{"127.0.0.0/8", "::1"}, "::1", true},
		{[]string{"127.0.0.0/8", "::1"}, "::ffff:127.0.0.1", true},
		{[]string{"127.0.0.0/8", "::1"}, "10.0.0.1", false},
		{[]string{"127.0.0.0/8", "::1"}, "::2", false},
		{[]string{"127.0.0.0/8", "::1"}, "not an address", false},
		{[]string{"127.0.0.0/8", "::1"}, "", false},
		{[]string{"10.0.0.0/8", "192.0.2.7"}, "10.200.1.2", true},
		{[]string{"10.0.0.0/8", "192.0.2.7"}, "192.0.2.7", true},
		{[]string{"10.0.0.0/8", "192.0.2.7"}, "192.0.2.8", false},
		{[]string{"2001:db8::/32"}, "2001:db8::5", true},
		{[]string{"2001:db8::/32"}, "2001:db9::5", false},
	} {
		a := &Area{set: Settings{ChatServers: c.list, ServerListBurst: 1, ServerListEvery: config.Duration{Duration: 1}}, now: clockNow}
		if got := a.chatCaller(c.ip); got != c.want {
			t.Errorf("chat_servers %v, caller %q: %v, want %v", c.list, c.ip, got, c.want)
		}
	}
}

// TestChatServersMappedNetwork: an IPv4-mapped network in chat_servers
// holds the IPv4 callers it stands for (their addresses are unmapped
// before the check); before, it was accepted and matched no one.
func TestChatServersMappedNetwork(t *testing.T) {
	ps, err := parseNetworks([]string{"::ffff:192.0.2.0/120"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 1 || !ps[0].Contains(netip.MustParseAddr("192.0.2.10")) {
		t.Fatalf("chat_servers ::ffff:192.0.2.0/120 read as %v: 192.0.2.10 is not in it", ps)
	}
	if _, err := parseNetworks([]string{"::ffff:0:0/80"}); err == nil {
		t.Error("a mapped network shorter than /96 accepted")
	}
}
