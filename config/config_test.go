package config

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
)

// wantDefaults spells out the defaults independently of defaults.toml, so a
// slip in the file shows up here. Every area config knows (pluginAreas, the
// areas registered with plugins/sdk) gets [plugin_defaults]: the list is not
// repeated here, so adding an area needs no edit of these tests.
func wantDefaults() *Config {
	plugin := Plugin{Path: "", Args: []string{}, Env: []string{},
		StartTimeout: Duration{10 * time.Second}, CallTimeout: Duration{5 * time.Second},
		PingInterval: Duration{5 * time.Second}, PingTimeout: Duration{2 * time.Second}, BatchesInFlight: 2}
	patch := func(os string) Patch {
		return Patch{OS: os, Arch: "x86_64", Version: "4.10.1", LatestVersion: "4.10.1",
			URL: "", URL2: "", // derived from server.public_url
			ManifestChecksum: "3f786850e387550fdab836ed7e6dc881de23001b", ManifestSize: "12345"}
	}
	return &Config{
		Server: Server{
			Listen: ":8080", BodyLimit: MiB, LargeBodyLimit: 32 * MiB, LargeBodyBudget: 128 * MiB,
			ReadTimeout: Duration{30 * time.Second}, WriteTimeout: Duration{30 * time.Second},
			IdleTimeout: Duration{2 * time.Minute}, ShutdownTimeout: Duration{10 * time.Second},
			LogLevel: LogInfo, LogFormat: LogText, AccessLog: AccessLog{Rate: 1}, LogValueLimit: 64, LogRepeatLimit: 5, LogRepeatWindow: Duration{10 * time.Second},
			TrustForwardedFor: false, TrustedProxies: []Prefix{}, MemoryLimit: MemoryLimit{Auto: true},
			GCHeapFloor: 64 * MiB, GCPercent: 50,
		},
		Storage: Storage{DataDir: "./data", CacheSize: 64 * MiB, MemTableSize: 2 * MiB, BloomBitsPerKey: 10, WALMinSyncInterval: Duration{time.Millisecond},
			Backend: BackendPebble, Postgres: StoragePostgres{MaxConns: 16, StatementTimeout: Duration{10 * time.Second}}},
		Actors: Actors{IdleTimeout: Duration{5 * time.Minute}, AskTimeout: Duration{5 * time.Second},
			SessionCacheSize: 100000, VerifierCacheSize: 20000, ReleaseMemoryAfter: 5000},
		Operator: Operator{Enabled: true, Listen: "127.0.0.1:8081",
			TokenFailures: Rate{Burst: 10, Every: Duration{time.Minute}}, AllowedHosts: []string{}},
		Console:    Console{SecureCookie: SecureCookieAuto},
		Chat:       Endpoint{Host: "127.0.0.1", Port: 11031},
		Commenting: Endpoint{Host: "127.0.0.1", Port: 11040},
		Client: Client{
			ICBURL: "", MinRankedLevel: 5, LeaverThreshold: "0.05",
			CampaignCurrentSeason: 12,
			MMRRank:               "1250,1275,1300,1350,1400,1450,1500,1550,1600,1650,1700,1750,1800,1850,1900,1950,2000,2050,2100,2150,2200",
			Chatrooms:             []string{},
			FreeHeroes:            "Hero_Pyromancer,Hero_Devourer,Hero_Hammerstorm",
			KeyVersion:            "0001",
		},
		Site: Site{URL: ""},
		Login: Login{
			CookieLifetime: Duration{24 * time.Hour}, PreAuthLifetime: Duration{60 * time.Second},
			PreAuthMaxPending: 100000, PasswordHash: PasswordHashMD5First, AuthHashSecret: "",
		},
		SRP: SRP{
			N: "DA950C6C97918CAE89E4F5ECB32461032A217D740064BC12FC0723CD204BD02A7AE29B53F3310C13BA998B7910F8B6A14112CBC67BDD2427" +
				"EDF494CB8BCA68510C0AAEE5346BD320845981546873069B337C073B9A9369D500873D647D261CCED571826E54C6089E7D5085DC2AF01FD861" +
				"AE44C8E64BCA3EA4DCE942C5F5B89E5496C2741A9E7E9F509C261D104D11DD4494577038B33016E28D118AE4FD2E85D9C3557A2346FAECED3" +
				"EDBE0F4D694411686BA6E65FEE43A772DC84D394ADAE5A14AF33817351D29DE074740AA263187AB18E3A25665EACAA8267C16CDE064B1D5AF" +
				"0588893C89C1556D6AEF644A3BA6BA3F7DEC2F3D6FDC30AE43FBD6D144BB",
			G:      2,
			Magic1: "[!~esTo0}",
			Magic2: "taquzaph_?98phab&junaj=z=kuChusu",
		},
		Portal:  Portal{RegisterEnabled: true},
		Patches: []Patch{patch("wac"), patch("mac"), patch("lac")},
		Cloud: Cloud{
			MaxUpload: 512 * KiB, MaxUncompressed: 4 * MiB,
			BucketPattern: `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`, CfgStrictness: CfgLenient,
		},
		Plugins:        pluginsOf(plugin),
		PluginDefaults: plugin,
		Limits:         wantLimits(),
		Cluster: Cluster{Name: "honmaster", Listen: "127.0.0.1:7400", Provider: "static", Peers: []string{}, EtcdEndpoints: []string{},
			ProbeInterval: Duration{500 * time.Millisecond}, ProbeTimeout: Duration{500 * time.Millisecond}, ProbeFailures: 3,
			SyncInterval: Duration{time.Second}, EtcdDialTimeout: Duration{5 * time.Second}},
		Areas: map[string]any{testSectionName: &testSection{Reward: 5, Label: "daily", Every: Duration{24 * time.Hour}},
			testTableName: &testTable{Cost: 66, Slots: []int{3, 1, 2}}},
	}
}

// pluginsOf is the [plugins] section with p for every known area.
func pluginsOf(p Plugin) map[string]Plugin {
	plugins := map[string]Plugin{}
	for _, area := range pluginAreas() {
		plugins[area] = p
	}
	return plugins
}

func TestDefaults(t *testing.T) {
	if len(pluginAreas()) == 0 {
		t.Fatal("config knows no plugin area: the tests below would check an empty [plugins]")
	}
	// The embedded file decodes with every key used.
	var fromFile Config
	md, err := toml.Decode(defaultsTOML, &fromFile)
	if err != nil {
		t.Fatal(err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		t.Errorf("defaults.toml has undecoded keys: %v", u)
	}
	want := wantDefaults()
	// The file holds [plugin_defaults]; Default gives every registered area
	// a copy of it. Registered [areas.*] sections hold their defaults in
	// their own package.
	fileWant := *want
	fileWant.Plugins, fileWant.Areas = nil, nil
	if diff := cmp.Diff(&fileWant, &fromFile); diff != "" {
		t.Errorf("defaults.toml decodes differently (-want +got):\n%s", diff)
	}
	got := Default()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Default() differs (-want +got):\n%s", diff)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("Default().Validate() = %v", err)
	}
	if len(got.SRP.N) != 512 {
		t.Errorf("srp.n has %d characters", len(got.SRP.N))
	}
}

func TestDefaultSharesNothing(t *testing.T) {
	a, b := Default(), Default()
	a.Areas[testTableName].(*testTable).Slots[0] = 99
	a.Patches[0].OS = "changed"
	a.Plugins["guides"] = Plugin{Path: "/x"}
	if diff := cmp.Diff(wantDefaults(), b); diff != "" {
		t.Errorf("changing one Default() changed another (-want +got):\n%s", diff)
	}
}

func writeFile(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "master.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name string
		file string
		want func(c *Config) // edits wantDefaults() into the expected result
	}{
		{"empty file is the defaults", "", func(*Config) {}},
		{
			name: "some keys",
			file: `
[server]
listen = "127.0.0.1:9000"
body_limit = 2097152
read_timeout = "1m30s"
[login]
cookie_lifetime = "1h"
password_hash = "spec-literal"
[client]
chatrooms = ["HoN", "Help"]
[testtable]
slots = [1, 2, 3]
[cloud]
max_upload = "1 MiB"
`,
			want: func(c *Config) {
				c.Server.Listen = "127.0.0.1:9000"
				c.Server.BodyLimit = 2 * MiB
				c.Server.ReadTimeout = Duration{90 * time.Second}
				c.Login.CookieLifetime = Duration{time.Hour}
				c.Login.PasswordHash = PasswordHashSpecLiteral
				c.Client.Chatrooms = []string{"HoN", "Help"}
				c.Areas[testTableName] = &testTable{Cost: 66, Slots: []int{1, 2, 3}}
				c.Cloud.MaxUpload = MiB
			},
		},
		{
			name: "patch list is replaced, not merged by index",
			file: `
[[patch]]
os = "wac"
arch = "i686"
version = "4.9.5"
latest_version = "4.10.1"
url = "https://patch.example/"
manifest_checksum = "0123456789abcdef0123456789abcdef01234567"
manifest_size = "99"
`,
			want: func(c *Config) {
				c.Patches = []Patch{{OS: "wac", Arch: "i686", Version: "4.9.5", LatestVersion: "4.10.1",
					URL: "https://patch.example/", ManifestChecksum: "0123456789abcdef0123456789abcdef01234567",
					ManifestSize: "99"}}
			},
		},
		{
			name: "plugin table overrides only the keys it sets",
			file: `
[plugins.guides]
path = "/opt/guides"
env = ["GUIDES_DB=/var/guides"]
`,
			want: func(c *Config) {
				p := c.Plugins["guides"]
				p.Path = "/opt/guides"
				p.Env = []string{"GUIDES_DB=/var/guides"}
				c.Plugins["guides"] = p
			},
		},
		{
			name: "plugin_defaults apply to every area, an area's own table wins",
			file: `
[plugin_defaults]
call_timeout = "2s"
ping_timeout = "9s"

[plugins.reports]
call_timeout = "4s"
`,
			want: func(c *Config) {
				c.PluginDefaults.CallTimeout = Duration{2 * time.Second}
				c.PluginDefaults.PingTimeout = Duration{9 * time.Second}
				for area, p := range c.Plugins {
					p.CallTimeout, p.PingTimeout = Duration{2 * time.Second}, Duration{9 * time.Second}
					if area == "reports" {
						p.CallTimeout = Duration{4 * time.Second}
					}
					c.Plugins[area] = p
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Load(writeFile(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			want := wantDefaults()
			tt.want(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Load differs (-want +got):\n%s", diff)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		wantKind error    // nil: not a Problem
		wantN    int      // number of Problems
		wantText []string // each must appear in the error text
	}{
		{"unknown key", "[server]\nlisten = \":1\"\nlistne = \":2\"\n", ErrUnknownKey, 1, []string{"server.listne: unknown key"}},
		{"unknown table", "[sever]\nlisten = \":1\"\n", ErrUnknownKey, 2, []string{"sever: unknown key", "sever.listen: unknown key"}},
		{"retired key", "[limits]\npre_auth_per_login = 8\n", ErrUnknownKey, 1, []string{"limits.pre_auth_per_login: this setting was removed", "pre_auth_per_address"}},
		{"unknown plugin key", "[plugins.guides]\npaht = \"x\"\n", ErrUnknownKey, 1, []string{"plugins.guides.paht: unknown key"}},
		{"unknown patch key", "[[patch]]\nos = \"wac\"\nchecksum = \"x\"\n", ErrUnknownKey, 1, []string{"patch.checksum: unknown key"}},
		{"several unknown keys", "a = 1\n[login]\nb = 2\n", ErrUnknownKey, 2, []string{"a: unknown key", "login.b: unknown key"}},
		{"upper-case key", "[server]\nListen = \":1\"\n", ErrUnknownKey, 1, []string{"server.Listen: unknown key", "server.listen"}},
		{"bad duration", "[login]\ncookie_lifetime = \"24\"\n", ErrInvalid, 1, []string{"login.cookie_lifetime", "invalid duration"}},
		{"bad size", "[cloud]\nmax_upload = \"lots\"\n", ErrInvalid, 1, []string{"cloud.max_upload", "invalid size"}},
		{"wrong type", "[chat]\nport = \"11031\"\n", ErrInvalid, 1, []string{"chat.port", "must be a whole number"}},
		{"syntax", "[server\n", ErrInvalid, 1, []string{"line 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.file)
			_, err := Load(path)
			if err == nil {
				t.Fatal("Load succeeded")
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			for _, k := range tt.wantText {
				if !strings.Contains(err.Error(), k) {
					t.Errorf("error %q does not mention %q", err, k)
				}
			}
			if tt.wantKind != nil {
				if !errors.Is(err, tt.wantKind) {
					t.Errorf("errors.Is(%v, %v) = false", err, tt.wantKind)
				}
			}
			if ps := Problems(err); len(ps) != tt.wantN {
				t.Errorf("Problems = %v, want %d", ps, tt.wantN)
			}
		})
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.toml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want os.ErrNotExist", err)
	}
}

// TestFromArgsReportsEverything: one run reports every unknown key, every
// value of the wrong type and every invalid value of a file.
func TestFromArgsReportsEverything(t *testing.T) {
	path := writeFile(t, `[server]
lisen = ":1"
trust_forwarded_for = "yes"
read_timeout = "soon"
[chat]
port = "11031"
[client]
chatrooms = [1, 2]
[[patch]]
os = "wac"
arch = 64
[plugins.plinko]
args = "x"
[login]
cookie_lifetime = "0s"
`)
	_, err := FromArgs(flag.NewFlagSet("t", flag.ContinueOnError), []string{"--config", path})
	var keys []string
	for _, p := range Problems(err) {
		keys = append(keys, p.Key)
	}
	slices.Sort(keys)
	want := []string{"chat.port", "client.chatrooms", "login.cookie_lifetime", "patch[0].arch", "patch[0].latest_version",
		"patch[0].manifest_checksum", "patch[0].manifest_size", "patch[0].version", "plugins.plinko.args",
		"server.lisen", "server.read_timeout", "server.trust_forwarded_for"}
	if !slices.Equal(keys, want) {
		t.Errorf("problems %q\nwant %q\n%v", keys, want, err)
	}
	var fe *FileError
	if !errors.As(err, &fe) || fe.Path != path {
		t.Errorf("not a FileError naming the file: %v", err)
	}
}

func TestValidateReportsEverything(t *testing.T) {
	c := Default()
	c.Server.Listen = "8080"
	c.Server.LogLevel = "verbose"
	c.Server.LogFormat = "xml"
	c.Storage.DataDir = ""
	c.Actors.AskTimeout = Duration{}
	c.Chat.Port = 0
	c.Commenting.Host = ""
	c.Client.ICBURL = "/icb"
	c.Client.LeaverThreshold = "1.5"
	c.Client.MMRRank = "1250,1200"
	c.Client.Chatrooms = []string{"ok", ""}
	c.Client.FreeHeroes = "Hero_A, Hero_B"
	c.Client.KeyVersion = "01"
	c.Site.URL = "localhost"
	c.Login.CookieLifetime = Duration{-time.Hour}
	c.Login.PreAuthMaxPending = 0
	c.Login.PasswordHash = "sha1"
	c.Login.AuthHashSecret = "short"
	c.SRP.N = "DA95"
	c.SRP.G = 1
	c.Patches = append(c.Patches, Patch{OS: "linux", Arch: "x86_64", Version: "1", LatestVersion: "1",
		URL: "http://x/", ManifestChecksum: "xyz", ManifestSize: "12k"})
	c.Patches[1].OS = "wac" // now duplicates patch[0]
	c.Cloud.MaxUpload = 2 * MiB
	c.Cloud.BucketPattern = "(["
	c.Cloud.CfgStrictness = "paranoid"
	SetSection(c, testTableName, testTable{Cost: 0, Slots: []int{1, 1}})
	c.Plugins["guides"] = Plugin{Env: []string{"NOEQUALS"}, StartTimeout: Duration{time.Second}, BatchesInFlight: -1}
	c.Plugins["chess"] = Plugin{}

	wantKeys := []string{
		"server.listen", "server.log_level", "server.log_format", "storage.data_dir",
		"actors.ask_timeout", "chat.port", "commenting.host", "client.icb_url",
		"client.leaver_threshold", "client.mmr_rank", "client.chatrooms[1]", "client.free_heroes",
		"client.key_version", "site.url", "login.cookie_lifetime", "login.pre_auth_max_pending",
		"login.password_hash", "login.auth_hash_secret", "srp.n", "srp.g",
		"patch[1].os", "patch[3].os", "patch[3].manifest_checksum", "patch[3].manifest_size",
		"cloud.max_upload", "cloud.bucket_pattern", "cloud.cfg_strictness",
		"testtable.cost", "testtable.slots",
		"plugins.guides.env[0]", "plugins.guides.call_timeout", "plugins.guides.batches_in_flight", "plugins.chess",
	}
	err := c.Validate()
	if err == nil {
		t.Fatal("Validate() = nil")
	}
	if !errors.Is(err, ErrInvalid) {
		t.Error("errors.Is(err, ErrInvalid) = false")
	}
	got := make(map[string]bool)
	for _, p := range Problems(err) {
		got[p.Key] = true
	}
	for _, k := range wantKeys {
		if !got[k] {
			t.Errorf("no problem reported for %s", k)
		}
		if !strings.Contains(err.Error(), k+": ") {
			t.Errorf("error text does not name %s", k)
		}
	}
	if len(got) != len(wantKeys) {
		t.Errorf("problems for %d keys, want %d:\n%v", len(got), len(wantKeys), err)
	}
}

func TestValidateSingle(t *testing.T) {
	tests := []struct {
		name    string
		edit    func(c *Config)
		wantKey string // "" = valid
	}{
		{"listen any port", func(c *Config) { c.Server.Listen = ":0" }, ""},
		{"listen bad port", func(c *Config) { c.Server.Listen = ":http" }, "server.listen"},
		{"listen port range", func(c *Config) { c.Server.Listen = ":70000" }, "server.listen"},
		{"upload equals body limit", func(c *Config) { c.Cloud.MaxUpload = c.Server.BodyLimit }, ""},
		{"no free heroes", func(c *Config) { c.Client.FreeHeroes = "" }, ""},
		{"lower-case N", func(c *Config) { c.SRP.N = strings.ToLower(c.SRP.N) }, ""},
		{"N not hex", func(c *Config) { c.SRP.N = "Z" + c.SRP.N[1:] }, "srp.n"},
		{"no url2", func(c *Config) { c.Patches[0].URL2 = "" }, ""},
		{"no patches", func(c *Config) { c.Patches = nil }, ""},
		{"empty env value", func(c *Config) { c.Plugins["plinko"] = withEnv(c.Plugins["plinko"], "K=") }, ""},
		{"call as long as the ask", func(c *Config) {
			c.Plugins["plinko"] = withCallTimeout(c.Plugins["plinko"], c.Actors.AskTimeout.Duration)
		}, ""},
		{"call longer than the ask (held to it at start)", func(c *Config) {
			c.Plugins["plinko"] = withCallTimeout(c.Plugins["plinko"], c.Actors.AskTimeout.Duration+time.Millisecond)
		}, ""},
		{"env without key", func(c *Config) { c.Plugins["plinko"] = withEnv(c.Plugins["plinko"], "=v") }, "plugins.plinko.env[0]"},
		{"long secret", func(c *Config) { c.Login.AuthHashSecret = "0123456789abcdef" }, ""},
		{"wal sync at once", func(c *Config) { c.Storage.WALMinSyncInterval = Duration{} }, ""},
		{"wal sync interval negative", func(c *Config) { c.Storage.WALMinSyncInterval = Duration{-time.Millisecond} }, "storage.wal_min_sync_interval"},
		{"wal sync interval too long", func(c *Config) { c.Storage.WALMinSyncInterval = Duration{20 * time.Millisecond} }, "storage.wal_min_sync_interval"},
		{"gc percent low", func(c *Config) { c.Server.GCPercent = 5 }, "server.gc_percent"},
		{"gc percent high", func(c *Config) { c.Server.GCPercent = 5000 }, "server.gc_percent"},
		{"gc percent go default", func(c *Config) { c.Server.GCPercent = 100 }, ""},
		{"never release memory", func(c *Config) { c.Actors.ReleaseMemoryAfter = 0 }, ""},
		{"release memory negative", func(c *Config) { c.Actors.ReleaseMemoryAfter = -1 }, "actors.release_memory_after"},
		{"unknown backend", func(c *Config) { c.Storage.Backend = "mysql" }, "storage.backend"},
		{"postgres without url", func(c *Config) { c.Storage.Backend = BackendPostgres }, "storage.postgres.url"},
		{"postgres url", func(c *Config) {
			c.Storage.Backend, c.Storage.Postgres.URL = BackendPostgres, "postgres://hon@db:5432/hon"
		}, ""},
		{"postgres not a url", func(c *Config) { c.Storage.Backend, c.Storage.Postgres.URL = BackendPostgres, "host=db user=hon" }, "storage.postgres.url"},
		{"postgres url unused by pebble", func(c *Config) { c.Storage.Postgres.URL = "nonsense" }, ""},
		{"postgres no conns", func(c *Config) { c.Storage.Postgres.MaxConns = 0 }, "storage.postgres.max_conns"},
		{"postgres no statement timeout", func(c *Config) { c.Storage.Postgres.StatementTimeout = Duration{} }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Default()
			tt.edit(c)
			err := c.Validate()
			if tt.wantKey == "" {
				if err != nil {
					t.Fatalf("Validate() = %v", err)
				}
				return
			}
			ps := Problems(err)
			if len(ps) != 1 || ps[0].Key != tt.wantKey {
				t.Fatalf("Validate() = %v, want one problem for %s", err, tt.wantKey)
			}
		})
	}
}

func withEnv(p Plugin, env ...string) Plugin {
	p.Env = env
	return p
}

func withCallTimeout(p Plugin, d time.Duration) Plugin {
	p.CallTimeout = Duration{d}
	return p
}

func TestPatchLookup(t *testing.T) {
	c := Default()
	c.Patches = append(c.Patches, Patch{OS: "wac", Arch: "i686", Version: "4.10.0"})
	tests := []struct {
		os, arch string
		wantOK   bool
		wantOS   string
		wantVer  string
	}{
		{"wac", "x86_64", true, "wac", "4.10.1"},
		{"wac", "i686", true, "wac", "4.10.0"},
		{"mac", "x86_64", true, "mac", "4.10.1"},
		{"lac", "x86_64", true, "lac", "4.10.1"},
		{"linux", "x86_64", true, "lac", "4.10.1"},
		{"linux", "i686", false, "", ""},
		{"win", "x86_64", false, "", ""},
		{"WAC", "x86_64", false, "", ""},
		{"", "", false, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.os+"/"+tt.arch, func(t *testing.T) {
			p, ok := c.Patch(tt.os, tt.arch)
			if ok != tt.wantOK || p.OS != tt.wantOS || p.Version != tt.wantVer {
				t.Errorf("Patch(%q, %q) = %+v, %v", tt.os, tt.arch, p, ok)
			}
		})
	}
}

// TestDerivedURLs: the URLs handed to the client default to ones derived
// from the public address, never to paths of a hard-coded address.
func TestDerivedURLs(t *testing.T) {
	for _, tt := range []struct {
		listen, public, icb, site, patch string
		wantPublic, wantICB, wantSite    string
		wantPatch                        string
	}{
		{":8080", "", "", "", "", "http://127.0.0.1:8080", "http://127.0.0.1:8080/", "http://127.0.0.1:8080", "http://127.0.0.1:8080/patches/"},
		{"0.0.0.0:9000", "", "", "", "", "http://127.0.0.1:9000", "http://127.0.0.1:9000/", "http://127.0.0.1:9000", "http://127.0.0.1:9000/patches/"},
		{"[::]:9000", "", "", "", "", "http://127.0.0.1:9000", "http://127.0.0.1:9000/", "http://127.0.0.1:9000", "http://127.0.0.1:9000/patches/"},
		{"10.1.2.3:80", "", "", "", "", "http://10.1.2.3:80", "http://10.1.2.3:80/", "http://10.1.2.3:80", "http://10.1.2.3:80/patches/"},
		{":8080", "https://hon.example.org/", "", "", "", "https://hon.example.org", "https://hon.example.org/", "https://hon.example.org", "https://hon.example.org/patches/"},
		{":8080", "https://hon.example.org", "https://icb.example.org/x", "https://www.example.org", "https://cdn.example.org/p/",
			"https://hon.example.org", "https://icb.example.org/x", "https://www.example.org", "https://cdn.example.org/p/"},
	} {
		c := Default()
		c.Server.Listen, c.Server.PublicURL, c.Client.ICBURL, c.Site.URL = tt.listen, tt.public, tt.icb, tt.site
		for i := range c.Patches {
			c.Patches[i].URL = tt.patch
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("%+v: %v", tt, err)
		}
		p, _ := c.Patch("wac", "x86_64")
		if c.PublicURL() != tt.wantPublic || c.ICBURL() != tt.wantICB || c.SiteURL() != tt.wantSite || p.URL != tt.wantPatch {
			t.Errorf("%+v: public %q icb %q site %q patch %q", tt, c.PublicURL(), c.ICBURL(), c.SiteURL(), p.URL)
		}
	}
	c := Default()
	c.Server.PublicURL = "hon.example.org"
	if ps := Problems(c.Validate()); len(ps) != 1 || ps[0].Key != "server.public_url" {
		t.Errorf("public_url without scheme: %v", ps)
	}
}

func TestWriteTOMLRoundTrip(t *testing.T) {
	c := Default()
	c.Server.ReadTimeout = Duration{90 * time.Second}
	c.Cloud.MaxUpload = 1000
	c.Client.Chatrooms = []string{"a b", `q"uote`}
	c.Plugins["reports"] = Plugin{Path: "/r", Args: []string{"-v"}, Env: []string{"A=1"},
		StartTimeout: Duration{time.Second}, CallTimeout: Duration{time.Millisecond}}
	var buf bytes.Buffer
	if err := c.WriteTOML(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Load(writeFile(t, buf.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if diff := cmp.Diff(c, got); diff != "" {
		t.Errorf("round trip changed the config (-written +read):\n%s\nfrom:\n%s", diff, buf.String())
	}
	// Stable: writing the result again gives the same text.
	var again bytes.Buffer
	if err := got.WriteTOML(&again); err != nil {
		t.Fatal(err)
	}
	if again.String() != buf.String() {
		t.Error("WriteTOML output is not stable")
	}
}

// TestLeaverThresholdIsDecimalText: client.leaver_threshold is sent to
// clients as written, so only plain decimal text between 0 and 1 passes;
// "NaN" passed every range check (NaN compares false) and reached every
// client's login record.
func TestLeaverThresholdIsDecimalText(t *testing.T) {
	for _, v := range []string{"NaN", "1e-1", "0x1p-1", "-0", "1.5", ""} {
		c := Default()
		c.Client.LeaverThreshold = v
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "client.leaver_threshold") {
			t.Errorf("leaver_threshold %q: %v", v, err)
		}
	}
	for _, v := range []string{"0", "0.3", "1", "1.0"} {
		c := Default()
		c.Client.LeaverThreshold = v
		if err := c.Validate(); err != nil {
			t.Errorf("leaver_threshold %q: %v", v, err)
		}
	}
}
