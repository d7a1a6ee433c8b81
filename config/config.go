package config

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/honmaster/masterserver/plugins/sdk"
)

//go:embed defaults.toml
var defaultsTOML string

// DefaultTOML returns the embedded reference configuration: every key with
// its default value and a comment. Default decodes exactly this text.
func DefaultTOML() []byte { return []byte(defaultsTOML + tableDocs()) }

// Config is the whole configuration of the master server. Each field is one
// TOML table; the TOML key of every field is in its tag.
type Config struct {
	Server     Server            `toml:"server"`
	Storage    Storage           `toml:"storage"`
	Actors     Actors            `toml:"actors"`
	Operator   Operator          `toml:"operator"`
	Console    Console           `toml:"console"`
	Chat       Endpoint          `toml:"chat"`
	Commenting Endpoint          `toml:"commenting"`
	Client     Client            `toml:"client"`
	Site       Site              `toml:"site"`
	Login      Login             `toml:"login"`
	SRP        SRP               `toml:"srp"`
	Portal     Portal            `toml:"portal"`
	Patches    []Patch           `toml:"patch"`
	Cloud      Cloud             `toml:"cloud"`
	Plugins    map[string]Plugin `toml:"plugins"` // keyed by area name, see pluginAreas
	// PluginDefaults is what every area's plugin starts with; Plugins holds
	// one entry per registered area after Default and Load.
	PluginDefaults Plugin  `toml:"plugin_defaults"`
	Limits         Limits  `toml:"limits"`  // limits.go
	Cluster        Cluster `toml:"cluster"` // cluster.go
	// Areas holds the [areas.<name>] tables of the areas that registered
	// one (RegisterSection, sections.go) and the top-level tables of the
	// built-in areas (RegisterTable: [plinko] ...), each a pointer to the
	// area's own type; read one with Section.
	Areas map[string]any `toml:"areas"`
}

// Server is the [server] table: the HTTP listener and logging.
type Server struct {
	Listen    string   `toml:"listen"`
	BodyLimit ByteSize `toml:"body_limit"`
	// LargeBodyLimit is the most a route may raise its own body limit to
	// (server.Route.Limits: the statistics of a long match); LargeBodyBudget
	// the bytes of such larger bodies being read at once, server-wide.
	LargeBodyLimit  ByteSize  `toml:"large_body_limit"`
	LargeBodyBudget ByteSize  `toml:"large_body_budget"`
	ReadTimeout     Duration  `toml:"read_timeout"`
	WriteTimeout    Duration  `toml:"write_timeout"`
	IdleTimeout     Duration  `toml:"idle_timeout"`
	ShutdownTimeout Duration  `toml:"shutdown_timeout"`
	LogLevel        LogLevel  `toml:"log_level"`
	LogFormat       LogFormat `toml:"log_format"`
	// AccessLog logs one line per request at info level: every request,
	// failures only, or failures and a share of the rest (AccessLog).
	AccessLog AccessLog `toml:"access_log"`
	// LogValueLimit is the most bytes a value a client supplied keeps of
	// itself in a log line (logflood.Clip).
	LogValueLimit int `toml:"log_value_limit"`
	// LogRepeatLimit lines of one kind at warning level and above pass per
	// LogRepeatWindow; the rest are counted in one summary line (0: off).
	LogRepeatLimit    int      `toml:"log_repeat_limit"`
	LogRepeatWindow   Duration `toml:"log_repeat_window"`
	TrustForwardedFor bool     `toml:"trust_forwarded_for"`
	// TrustedProxies are the reverse proxies whose X-Forwarded-For entries
	// are passed over (with TrustForwardedFor): the client is the
	// right-most address that is not one of them. Empty: the connection's
	// peer is the one proxy.
	TrustedProxies []Prefix `toml:"trusted_proxies"`
	// PublicURL is the base URL clients reach the server at; "" derives it
	// from Listen (see Config.PublicURL).
	PublicURL string `toml:"public_url"`
	// MemoryLimit is the Go runtime's soft memory limit (GOMEMLIMIT, when
	// set, wins).
	MemoryLimit MemoryLimit `toml:"memory_limit"`
	// GCHeapFloor is the heap size below which the garbage collector does
	// not run just because the heap doubled (0: Go's default).
	GCHeapFloor ByteSize `toml:"gc_heap_floor"`
	// GCPercent is the GOGC the server runs with (GOGC, when set, wins).
	GCPercent int `toml:"gc_percent"`
}

// The bounds of server.gc_percent.
const (
	MinGCPercent = 10
	MaxGCPercent = 1000
)

// Storage is the [storage] table.
type Storage struct {
	DataDir         string   `toml:"data_dir"`
	CacheSize       ByteSize `toml:"cache_size"`         // Pebble block cache
	MemTableSize    ByteSize `toml:"memtable_size"`      // one Pebble memtable
	BloomBitsPerKey int      `toml:"bloom_bits_per_key"` // 0: no bloom filters
	// WALMinSyncInterval is the least time between two syncs of Pebble's
	// write-ahead log: commits that arrive meanwhile share the next sync.
	WALMinSyncInterval Duration `toml:"wal_min_sync_interval"`
	// Backend is where the database lives: "pebble" (in DataDir/db) or
	// "postgres" (Postgres.URL).
	Backend  string          `toml:"backend"`
	Postgres StoragePostgres `toml:"postgres"`
}

// MaxWALMinSyncInterval bounds storage.wal_min_sync_interval: every commit
// waits up to that long for its sync, and so does its reply.
const MaxWALMinSyncInterval = 10 * time.Millisecond

// Storage backends.
const (
	BackendPebble   = "pebble"
	BackendPostgres = "postgres"
)

// StoragePostgres is the [storage.postgres] table: the PostgreSQL database
// of storage.backend = "postgres".
type StoragePostgres struct {
	URL              string   `toml:"url"`               // postgres://user@host:port/db?sslmode=...
	PasswordFile     string   `toml:"password_file"`     // a file holding the password (else the URL's or PGPASSWORD)
	MaxConns         int      `toml:"max_conns"`         // connection pool size
	StatementTimeout Duration `toml:"statement_timeout"` // per statement, on the server; 0: none
}

// Actors is the [actors] table: per-account actor lifetimes.
type Actors struct {
	IdleTimeout       Duration `toml:"idle_timeout"`        // an idle account actor is passivated after this
	SessionCacheSize  int      `toml:"session_cache_size"`  // sessions kept in memory
	VerifierCacheSize int      `toml:"verifier_cache_size"` // SRP verifiers kept in memory
	AskTimeout        Duration `toml:"ask_timeout"`         // longest wait for an actor's answer
	// ReleaseMemoryAfter is how many passivations make a wave whose memory
	// is given back to the operating system (0: never).
	ReleaseMemoryAfter int `toml:"release_memory_after"`
}

// Operator is the [operator] table: the operator listener (metrics,
// profiles, the operator API), separate from the game port.
type Operator struct {
	Enabled bool   `toml:"enabled"`
	Listen  string `toml:"listen"`
	// Token authorizes the operator API (grants, test-account clean-up).
	// Empty: generated on first start and kept in DATA/operator.token.
	Token string `toml:"token"`
	// AllowRemote permits a Listen address other than loopback; the Go
	// profiles then need the token too (Validate refuses a remote address
	// without it).
	AllowRemote bool `toml:"allow_remote"`
	// TokenFailures throttles requests with a missing or wrong token, per
	// client address (IPv6 per /64).
	TokenFailures Rate `toml:"token_failures_per_address"`
	// AllowedHosts are the host names, besides IP addresses and
	// "localhost", that the listener answers to: a request whose Host
	// header names anything else is refused (421), and so is a request
	// that changes something (POST ...) sent from another site's page,
	// one whose Origin is neither the request's own host, loopback, nor
	// one of these (403; host/operator/hosts.go).
	// Without it, a web page the operator visits could point its own name
	// at 127.0.0.1 (DNS rebinding) and read the profiles and metrics or
	// try console passwords. A reverse proxy's public name goes here.
	// Bare names only, as Validate checks (no scheme, port or wildcard);
	// compared without regard to case or a final dot.
	AllowedHosts []string `toml:"allowed_hosts"`
}

// Console is the [console] table: the web console on the operator
// listener.
type Console struct {
	SecureCookie SecureCookie `toml:"secure_cookie"`
}

// SecureCookie is console.secure_cookie: when the console's cookies carry
// the Secure flag (see Config.ConsoleSecureCookies).
type SecureCookie string

// Secure cookie settings.
const (
	SecureCookieAuto SecureCookie = "auto" // when server.public_url is https
	SecureCookieOn   SecureCookie = "on"
	SecureCookieOff  SecureCookie = "off"
)

// Endpoint is a host and TCP port handed to the client ([chat],
// [commenting]).
type Endpoint struct {
	Host string `toml:"host"`
	Port int    `toml:"port"`
}

// Client is the [client] table: values the login record carries verbatim.
type Client struct {
	ICBURL                string   `toml:"icb_url"`
	MinRankedLevel        int      `toml:"min_ranked_level"`
	LeaverThreshold       string   `toml:"leaver_threshold"` // decimal text, sent as written
	CampaignCurrentSeason int      `toml:"campaign_current_season"`
	MMRRank               string   `toml:"mmr_rank"` // comma-separated ascending numbers
	Chatrooms             []string `toml:"chatrooms"`
	FreeHeroes            string   `toml:"free_heroes"` // comma-separated hero identifiers
	KeyVersion            string   `toml:"key_version"` // 4 hex characters
}

// Site is the [site] table.
type Site struct {
	URL string `toml:"url"` // {site_url}, base of /rap/report2.php; "" = server.public_url
}

// Login is the [login] table.
type Login struct {
	CookieLifetime    Duration     `toml:"cookie_lifetime"`
	PreAuthLifetime   Duration     `toml:"pre_auth_lifetime"`
	PreAuthMaxPending int          `toml:"pre_auth_max_pending"`
	PasswordHash      PasswordHash `toml:"password_hash"`
	// AuthHashSecret is the auth_hash secret. Empty means the server generates
	// one on first start and keeps it in its database.
	AuthHashSecret string `toml:"auth_hash_secret"`
}

// SRP is the [srp] table: the SRP-6a group and password-hash constants.
type SRP struct {
	N      string `toml:"n"` // 512 hex characters
	G      int    `toml:"g"`
	Magic1 string `toml:"magic1"`
	Magic2 string `toml:"magic2"`
}

// Portal is the [portal] table.
type Portal struct {
	RegisterEnabled bool `toml:"register_enabled"`
}

// Patch is one [[patch]] table: what the patcher answers for one os/arch.
type Patch struct {
	OS               string `toml:"os"` // "wac", "mac" or "lac"
	Arch             string `toml:"arch"`
	Version          string `toml:"version"`
	LatestVersion    string `toml:"latest_version"`
	URL              string `toml:"url"`
	URL2             string `toml:"url2"`
	ManifestChecksum string `toml:"manifest_checksum"` // 40 hex characters
	ManifestSize     string `toml:"manifest_size"`     // decimal text
}

// Cloud is the [cloud] table: cloud storage of client settings.
type Cloud struct {
	MaxUpload       ByteSize      `toml:"max_upload"`
	MaxUncompressed ByteSize      `toml:"max_uncompressed"`
	BucketPattern   string        `toml:"bucket_pattern"`
	CfgStrictness   CfgStrictness `toml:"cfg_strictness"`
}

// BucketRegexp compiles BucketPattern. It cannot fail on a validated Config.
func (c Cloud) BucketRegexp() (*regexp.Regexp, error) {
	return regexp.Compile(c.BucketPattern)
}

// Plugin is one [plugins.<area>] table.
type Plugin struct {
	Path         string   `toml:"path"` // "" runs the bundled plugin
	Args         []string `toml:"args"`
	Env          []string `toml:"env"` // "KEY=VALUE" each
	StartTimeout Duration `toml:"start_timeout"`
	CallTimeout  Duration `toml:"call_timeout"`
	PingInterval Duration `toml:"ping_interval"`
	PingTimeout  Duration `toml:"ping_timeout"`
	// BatchesInFlight is how many batched decision calls may be in flight
	// to the plugin at once (0: the SDK's default).
	BatchesInFlight int `toml:"batches_in_flight"`
	// Config is the [plugins.<area>.config] table, handed as is to the
	// plugin's Configure; the plugin validates it.
	Config map[string]any `toml:"config"`
}

// pluginAreas are the names [plugins.<area>] accepts: the areas registered
// with the plugin contract (plugins/sdk), the one registry of area names.
func pluginAreas() []string {
	areas := sdk.Areas()
	out := make([]string, len(areas))
	for i, a := range areas {
		out[i] = string(a)
	}
	return out
}

// clone returns a copy of p that shares no slice or map with it.
func (p Plugin) clone() Plugin {
	p.Args = slices.Clone(p.Args)
	p.Env = slices.Clone(p.Env)
	p.Config = maps.Clone(p.Config)
	return p
}

// LogLevel is server.log_level.
type LogLevel string

// Log levels.
const (
	LogDebug LogLevel = "debug"
	LogInfo  LogLevel = "info"
	LogWarn  LogLevel = "warn"
	LogError LogLevel = "error"
)

// Slog returns the slog level; an unknown level reads as info.
func (l LogLevel) Slog() slog.Level {
	switch l {
	case LogDebug:
		return slog.LevelDebug
	case LogWarn:
		return slog.LevelWarn
	case LogError:
		return slog.LevelError
	}
	return slog.LevelInfo
}

// LogFormat is server.log_format.
type LogFormat string

// Log formats.
const (
	LogText LogFormat = "text"
	LogJSON LogFormat = "json"
)

// PasswordHash names how the client derives the SRP password value p
// (protocol-notes §1). The formulas are in defaults.toml at
// login.password_hash.
type PasswordHash string

// Password hash forms.
const (
	// PasswordHashMD5First: sha256hex(md5hex(md5hex(password) + salt2 + MAGIC1) + MAGIC2),
	// what real clients compute.
	PasswordHashMD5First PasswordHash = "md5-first"
	// PasswordHashSpecLiteral: sha256hex(md5hex(md5hex(password + salt2 + MAGIC1) + MAGIC2)),
	// the specification's literal formula.
	PasswordHashSpecLiteral PasswordHash = "spec-literal"
)

// CfgStrictness is cloud.cfg_strictness: how strictly an uploaded cloud.cfg
// is checked.
type CfgStrictness string

// Strictness levels.
const (
	CfgOff     CfgStrictness = "off"
	CfgLenient CfgStrictness = "lenient"
	CfgStrict  CfgStrictness = "strict"
)

// Default returns the built-in configuration, decoded from the embedded
// defaults.toml. Every call returns a new Config that shares nothing with
// other calls.
func Default() *Config {
	c := new(Config)
	md, err := toml.Decode(defaultsTOML, c)
	if err == nil {
		err = keyErrors(md)
	}
	if err != nil {
		// The embedded file is part of the source; tests keep it decodable.
		panic("config: embedded defaults.toml: " + err.Error())
	}
	c.Plugins = make(map[string]Plugin)
	for _, area := range pluginAreas() {
		c.Plugins[area] = c.PluginDefaults.clone()
	}
	c.Areas = defaultSections()
	return c
}

// Load reads the TOML file at path over the defaults and returns the result.
// Keys the file leaves out keep their defaults, with two rules for
// collections: a file with any [[patch]] table replaces the whole patch list,
// and a [plugins.<area>] table overrides only the keys it sets. Unknown keys
// are errors, every one of them reported (a *FileError holding Problems).
// Load does not call Validate.
func Load(path string) (*Config, error) {
	c, err := loadFile(path)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// loadFile is Load, but it also returns the configuration when the only
// errors are unknown keys, so that FromArgs can validate the rest and report
// everything at once.
func loadFile(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &FileError{Path: path, Err: err}
	}
	c := Default()
	if err := c.overlay(string(data)); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &FileError{Path: path, Err: parseProblem(pe)}
		}
		if len(Problems(err)) > 0 {
			return c, &FileError{Path: path, Err: err}
		}
		return nil, &FileError{Path: path, Err: err}
	}
	return c, nil
}

// FileError is a configuration file that could not be read or holds
// problems (see Problems). Path names the file.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string { return "configuration file " + e.Path + ": " + e.Err.Error() }
func (e *FileError) Unwrap() error { return e.Err }

// parseProblem turns the TOML decoder's error (a syntax error, or a value
// of the wrong type) into a Problem naming the key and line.
func parseProblem(pe toml.ParseError) *Problem {
	if pe.LastKey == "" {
		return &Problem{Key: "line " + strconv.Itoa(pe.Position.Line), Msg: pe.Message, Kind: ErrInvalid}
	}
	return &Problem{Key: pe.LastKey, Msg: fmt.Sprintf("%s (line %d)", pe.Message, pe.Position.Line), Kind: ErrInvalid}
}

// overlay decodes a TOML document over c.
func (c *Config) overlay(doc string) error {
	// Values of the wrong type first: all of them are reported, and the
	// document without them is decoded.
	var raw map[string]any
	if _, err := toml.Decode(doc, &raw); err != nil {
		return err
	}
	// The registered top-level tables ([plinko] ...) are the areas' own:
	// taken out here and decoded into the areas' types below.
	tops := map[string]any{}
	for _, n := range topTables() {
		if v, ok := raw[n]; ok {
			tops[n] = v
			delete(raw, n)
		}
	}
	typeErrs := typeProblems(raw, reflect.TypeFor[Config](), "")
	if len(typeErrs) > 0 || len(tops) > 0 {
		var buf bytes.Buffer
		if err := toml.NewEncoder(&buf).Encode(raw); err != nil {
			return err
		}
		doc = buf.String()
	}
	base := *c
	// The decoder reuses slice elements in place and builds map values from
	// zero, so clear both and merge by hand below.
	c.Patches, c.Plugins, c.Areas = nil, nil, nil
	md, err := toml.Decode(doc, c)
	if err != nil {
		return err
	}
	// Unknown keys are reported, but the rest is still merged so that
	// Validate can report its own problems in the same run.
	keyErr := keyErrors(md)
	if !md.IsDefined("patch") {
		c.Patches = base.Patches
	}
	plugins := make(map[string]Plugin, len(base.Plugins)+len(c.Plugins))
	for area, p := range base.Plugins {
		// Keys the file sets in [plugin_defaults] apply to every area...
		plugins[area] = mergePlugin(p, c.PluginDefaults, func(key string) bool { return md.IsDefined("plugin_defaults", key) })
	}
	if !md.IsDefined("plugin_defaults") {
		c.PluginDefaults = base.PluginDefaults
	}
	for area, p := range c.Plugins {
		// ...and those of [plugins.<area>] to that area. An unknown area
		// starts from zero; Validate reports it.
		plugins[area] = mergePlugin(plugins[area], p, func(key string) bool { return md.IsDefined("plugins", area, key) })
	}
	c.Plugins = plugins
	rawAreas := make(map[string]any, len(c.Areas)+len(tops))
	for n, v := range c.Areas {
		if d, ok := sectionDefOf(n); ok && d.top {
			// [areas.plinko] for [plinko]: not where the table lives.
			typeErrs = append(typeErrs, &Problem{Key: "areas." + n, Kind: ErrUnknownKey, Msg: fmt.Sprintf("the table is [%s]", n)})
			continue
		}
		rawAreas[n] = v
	}
	maps.Copy(rawAreas, tops)
	areas, areaErrs := overlaySections(base.Areas, rawAreas)
	c.Areas = areas
	return errors.Join(append(append(typeErrs, areaErrs...), keyErr)...)
}

// mergePlugin returns base with the keys set (as told by set) taken from p:
// every field of Plugin, by its TOML key, so a new key needs no line here.
func mergePlugin(base, p Plugin, set func(key string) bool) Plugin {
	bv, pv := reflect.ValueOf(&base).Elem(), reflect.ValueOf(p)
	for i := range bv.NumField() {
		if key := tomlName(bv.Type().Field(i)); key != "" && set(key) {
			bv.Field(i).Set(pv.Field(i))
		}
	}
	return base
}

// Patch returns the [[patch]] entry for os and arch. The os "linux" is an
// alias of "lac". An empty url is derived: PublicURL() + "/patches/".
func (c *Config) Patch(os, arch string) (Patch, bool) {
	if os == "linux" {
		os = "lac"
	}
	for _, p := range c.Patches {
		if p.OS == os && p.Arch == arch {
			if p.URL == "" {
				p.URL = c.PublicURL() + "/patches/"
			}
			return p, true
		}
	}
	return Patch{}, false
}

// PublicURL is the base URL (no trailing slash) at which game clients reach
// this server: server.public_url, or when empty one derived from
// server.listen — "http://HOST:PORT", with 127.0.0.1 for a listen address
// without a host or with an unspecified one (":8080", "0.0.0.0:8080"),
// which suits a local test only.
func (c *Config) PublicURL() string {
	if c.Server.PublicURL != "" {
		return strings.TrimRight(c.Server.PublicURL, "/")
	}
	host, port, err := net.SplitHostPort(c.Server.Listen)
	if err != nil {
		return "http://127.0.0.1"
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}

// SiteURL is {site_url}, the website host the client posts player reports
// to: site.url, or PublicURL() when empty.
func (c *Config) SiteURL() string {
	if c.Site.URL != "" {
		return strings.TrimRight(c.Site.URL, "/")
	}
	return c.PublicURL()
}

// ConsoleSecureCookies reports whether the web console's cookies are sent
// with the Secure flag whatever the request came over: console.secure_cookie
// "on", or "auto" with an https server.public_url (the site is served over
// TLS, so the console is reached through a TLS proxy too). A request that
// came over TLS gets the flag anyway.
func (c *Config) ConsoleSecureCookies() bool {
	switch c.Console.SecureCookie {
	case SecureCookieOn:
		return true
	case SecureCookieAuto:
		return strings.HasPrefix(strings.ToLower(c.Server.PublicURL), "https://")
	}
	return false
}

// ICBURL is the login record's icb_url: client.icb_url, or PublicURL() + "/"
// (the server's front page) when empty.
func (c *Config) ICBURL() string {
	if c.Client.ICBURL != "" {
		return c.Client.ICBURL
	}
	return c.PublicURL() + "/"
}

// WriteTOML writes c as TOML (without comments). Loading the output gives a
// Config equal to c.
func (c *Config) WriteTOML(w io.Writer) error {
	// The registered top-level tables are written as such ([plinko]), the
	// other sections under [areas].
	host := *c
	host.Areas = map[string]any{}
	tops := map[string]any{}
	for n, v := range c.Areas {
		if d, ok := sectionDefOf(n); ok && d.top {
			tops[n] = v
		} else {
			host.Areas[n] = v
		}
	}
	enc := toml.NewEncoder(w)
	if err := enc.Encode(&host); err != nil {
		return err
	}
	if len(tops) == 0 {
		return nil
	}
	return enc.Encode(tops)
}
