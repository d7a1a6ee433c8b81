package config

import (
	"fmt"
	"maps"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Validate checks the whole configuration and reports every problem at once:
// the result joins one *Problem per problem with errors.Join (see Problems),
// each naming its dotted TOML key, e.g. "login.cookie_lifetime: must be > 0".
// It returns nil when the configuration is usable.
func (c *Config) Validate() error {
	var ps problems
	c.validateServer(&ps)
	if c.Storage.DataDir == "" {
		ps.add("storage.data_dir", "must not be empty")
	}
	if c.Storage.CacheSize < 1<<20 {
		ps.add("storage.cache_size", "must be at least 1MiB")
	}
	if c.Storage.MemTableSize < 1<<20 || c.Storage.MemTableSize > 1<<30 {
		ps.add("storage.memtable_size", "must be between 1MiB and 1GiB")
	}
	if c.Storage.BloomBitsPerKey < 0 || c.Storage.BloomBitsPerKey > 32 {
		ps.add("storage.bloom_bits_per_key", "must be 0..32")
	}
	if d := c.Storage.WALMinSyncInterval.Duration; d < 0 || d > MaxWALMinSyncInterval {
		ps.add("storage.wal_min_sync_interval", "must be 0s..10ms")
	}
	c.validateStorageBackend(&ps)
	if c.Actors.SessionCacheSize < 0 {
		ps.add("actors.session_cache_size", "must be >= 0")
	}
	if c.Actors.VerifierCacheSize < 0 {
		ps.add("actors.verifier_cache_size", "must be >= 0")
	}
	if c.Actors.ReleaseMemoryAfter < 0 {
		ps.add("actors.release_memory_after", "must be >= 0 (0: never), got %d", c.Actors.ReleaseMemoryAfter)
	}
	positive(&ps, "actors.idle_timeout", c.Actors.IdleTimeout)
	positive(&ps, "actors.ask_timeout", c.Actors.AskTimeout)
	c.validateOperator(&ps)
	validateEndpoint(&ps, "chat", c.Chat)
	validateEndpoint(&ps, "commenting", c.Commenting)
	c.validateClient(&ps)
	optionalURL(&ps, "site.url", c.Site.URL)
	c.validateLogin(&ps)
	c.validateSRP(&ps)
	c.validatePatches(&ps)
	c.validateCloud(&ps)
	c.validatePlugins(&ps)
	c.validateLimits(&ps)
	c.validateCluster(&ps)
	c.validateSections(&ps)
	return ps.err()
}

func (c *Config) validateServer(ps *problems) {
	s := c.Server
	if _, port, err := net.SplitHostPort(s.Listen); err != nil {
		ps.add("server.listen", "must be host:port or :port, got %q", s.Listen)
	} else if n, err := strconv.ParseUint(port, 10, 16); err != nil || (n == 0 && port != "0") {
		ps.add("server.listen", "port must be a number 0..65535, got %q", port)
	}
	if s.BodyLimit <= 0 {
		ps.add("server.body_limit", "must be > 0")
	}
	if s.LargeBodyLimit < s.BodyLimit {
		ps.add("server.large_body_limit", "%s is below server.body_limit (%s)", s.LargeBodyLimit, s.BodyLimit)
	} else if s.LargeBodyLimit > 1<<30 {
		ps.add("server.large_body_limit", "%s is more than 1 GiB", s.LargeBodyLimit)
	}
	if s.LargeBodyBudget < s.LargeBodyLimit {
		ps.add("server.large_body_budget", "%s is below server.large_body_limit (%s): no such body could be read", s.LargeBodyBudget, s.LargeBodyLimit)
	}
	positive(ps, "server.read_timeout", s.ReadTimeout)
	positive(ps, "server.write_timeout", s.WriteTimeout)
	positive(ps, "server.idle_timeout", s.IdleTimeout)
	positive(ps, "server.shutdown_timeout", s.ShutdownTimeout)
	oneOf(ps, "server.log_level", s.LogLevel, LogDebug, LogInfo, LogWarn, LogError)
	oneOf(ps, "server.log_format", s.LogFormat, LogText, LogJSON)
	if s.LogValueLimit < 16 || s.LogValueLimit > 4096 {
		ps.add("server.log_value_limit", "must be 16..4096 (bytes), got %d", s.LogValueLimit)
	}
	if s.LogRepeatLimit < 0 {
		ps.add("server.log_repeat_limit", "must be >= 0 (0 turns the limit off), got %d", s.LogRepeatLimit)
	}
	if s.LogRepeatLimit > 0 {
		positive(ps, "server.log_repeat_window", s.LogRepeatWindow)
	}
	if m := s.MemoryLimit; !m.Auto && m.Bytes != 0 && m.Bytes < MinMemoryLimit {
		ps.add("server.memory_limit", "must be \"auto\", \"off\" or at least %s, got %s", MinMemoryLimit, m.Bytes)
	}
	if s.GCHeapFloor < 0 {
		ps.add("server.gc_heap_floor", "must be 0 (off) or a size such as \"64MiB\", got %s", s.GCHeapFloor)
	}
	if s.GCPercent < MinGCPercent || s.GCPercent > MaxGCPercent {
		ps.add("server.gc_percent", "must be %d..%d, got %d", MinGCPercent, MaxGCPercent, s.GCPercent)
	}
	if s.PublicURL != "" {
		if u, err := url.Parse(s.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			u.RawQuery != "" || u.Fragment != "" {
			ps.add("server.public_url", "must be an absolute http or https URL without query, e.g. \"https://hon.example.org\", got %q", s.PublicURL)
		}
	}
}

// decimalText is plain decimal text ("0.3"): what client.leaver_threshold
// is sent to clients as (ParseFloat also takes "NaN", "1e-1", "0x1p-1").
var decimalText = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

func (c *Config) validateClient(ps *problems) {
	cl := c.Client
	optionalURL(ps, "client.icb_url", cl.ICBURL)
	if cl.MinRankedLevel < 0 {
		ps.add("client.min_ranked_level", "must be >= 0")
	}
	if f, err := strconv.ParseFloat(cl.LeaverThreshold, 64); err != nil || !decimalText.MatchString(cl.LeaverThreshold) || !(f >= 0 && f <= 1) {
		ps.add("client.leaver_threshold", "must be decimal text between 0 and 1, got %q", cl.LeaverThreshold)
	}
	if cl.CampaignCurrentSeason < 0 {
		ps.add("client.campaign_current_season", "must be >= 0")
	}
	prev := int64(-1 << 63)
	for i, f := range strings.Split(cl.MMRRank, ",") {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			ps.add("client.mmr_rank", "item %d: %q is not an integer (want comma-separated numbers, no spaces)", i, f)
			break
		}
		if n <= prev {
			ps.add("client.mmr_rank", "item %d: %d is not greater than the one before (must ascend)", i, n)
			break
		}
		prev = n
	}
	for i, room := range cl.Chatrooms {
		if strings.TrimSpace(room) == "" {
			ps.add(fmt.Sprintf("client.chatrooms[%d]", i), "must not be empty")
		}
	}
	if cl.FreeHeroes != "" {
		for i, h := range strings.Split(cl.FreeHeroes, ",") {
			if h == "" || strings.ContainsAny(h, " \t") {
				ps.add("client.free_heroes", "item %d: %q is not a hero identifier (want comma-separated, no spaces)", i, h)
				break
			}
		}
	}
	if !isHex(cl.KeyVersion, 4) {
		ps.add("client.key_version", "must be 4 hexadecimal characters, got %q", cl.KeyVersion)
	}
}

func (c *Config) validateLogin(ps *problems) {
	l := c.Login
	positive(ps, "login.cookie_lifetime", l.CookieLifetime)
	positive(ps, "login.pre_auth_lifetime", l.PreAuthLifetime)
	if l.PreAuthMaxPending <= 0 {
		ps.add("login.pre_auth_max_pending", "must be > 0")
	}
	oneOf(ps, "login.password_hash", l.PasswordHash, PasswordHashMD5First, PasswordHashSpecLiteral)
	if l.AuthHashSecret != "" && len(l.AuthHashSecret) < 16 {
		ps.add("login.auth_hash_secret", "must be empty (generated) or at least 16 characters")
	}
}

func (c *Config) validateSRP(ps *problems) {
	s := c.SRP
	if !isHex(s.N, 512) {
		ps.add("srp.n", "must be 512 hexadecimal characters (2048 bits), got %d characters", len(s.N))
	}
	if s.G < 2 {
		ps.add("srp.g", "must be >= 2")
	}
	if s.Magic1 == "" {
		ps.add("srp.magic1", "must not be empty")
	}
	if s.Magic2 == "" {
		ps.add("srp.magic2", "must not be empty")
	}
}

func (c *Config) validatePatches(ps *problems) {
	seen := make(map[[2]string]int)
	for i, p := range c.Patches {
		key := func(field string) string { return fmt.Sprintf("patch[%d].%s", i, field) }
		switch p.OS {
		case "wac", "mac", "lac":
		case "linux":
			ps.add(key("os"), `write "lac"; "linux" is accepted from clients as its alias`)
		default:
			ps.add(key("os"), `must be "wac", "mac" or "lac", got %q`, p.OS)
		}
		if p.Arch == "" || strings.ContainsAny(p.Arch, " \t/") {
			ps.add(key("arch"), `must be an architecture name such as "x86_64" or "i686", got %q`, p.Arch)
		}
		if j, dup := seen[[2]string{p.OS, p.Arch}]; dup {
			ps.add(key("os"), "duplicate of patch[%d]: both are %s/%s", j, p.OS, p.Arch)
		} else {
			seen[[2]string{p.OS, p.Arch}] = i
		}
		if p.Version == "" {
			ps.add(key("version"), "must not be empty")
		}
		if p.LatestVersion == "" {
			ps.add(key("latest_version"), "must not be empty")
		}
		optionalURL(ps, key("url"), p.URL)
		if p.URL2 != "" {
			absoluteURL(ps, key("url2"), p.URL2)
		}
		if !isHex(p.ManifestChecksum, 40) {
			ps.add(key("manifest_checksum"), "must be 40 hexadecimal characters, got %q", p.ManifestChecksum)
		}
		if !isDigits(p.ManifestSize) {
			ps.add(key("manifest_size"), "must be a decimal number of bytes, got %q", p.ManifestSize)
		}
	}
}

func (c *Config) validateCloud(ps *problems) {
	cl := c.Cloud
	if cl.MaxUpload <= 0 {
		ps.add("cloud.max_upload", "must be > 0")
	} else if c.Server.BodyLimit > 0 && cl.MaxUpload > c.Server.BodyLimit {
		ps.add("cloud.max_upload", "%s exceeds server.body_limit (%s); such uploads could never arrive", cl.MaxUpload, c.Server.BodyLimit)
	}
	if cl.MaxUncompressed <= 0 {
		ps.add("cloud.max_uncompressed", "must be > 0")
	}
	if cl.BucketPattern == "" {
		ps.add("cloud.bucket_pattern", "must not be empty")
	} else if _, err := regexp.Compile(cl.BucketPattern); err != nil {
		ps.add("cloud.bucket_pattern", "does not compile: %v", err)
	}
	oneOf(ps, "cloud.cfg_strictness", cl.CfgStrictness, CfgOff, CfgLenient, CfgStrict)
}

func (c *Config) validatePlugins(ps *problems) {
	// Sorted so the report is stable.
	for _, area := range slices.Sorted(maps.Keys(c.Plugins)) {
		p := c.Plugins[area]
		key := func(field string) string { return "plugins." + area + "." + field }
		if !slices.Contains(pluginAreas(), area) {
			ps.add("plugins."+area, "unknown plugin area (known: %s)", strings.Join(pluginAreas(), ", "))
			continue
		}
		for i, kv := range p.Env {
			if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
				ps.add(fmt.Sprintf("%s[%d]", key("env"), i), `must be "KEY=VALUE", got %q`, kv)
			}
		}
		positive(ps, key("start_timeout"), p.StartTimeout)
		positive(ps, key("call_timeout"), p.CallTimeout)
		if p.BatchesInFlight < 0 || p.BatchesInFlight > 64 {
			ps.add(key("batches_in_flight"), "must be between 1 and 64 (0: the default), got %d", p.BatchesInFlight)
		}
		// Zero (a table built in code) means the supervisor's default.
		for k, d := range map[string]Duration{"ping_interval": p.PingInterval, "ping_timeout": p.PingTimeout} {
			if d.Duration < 0 {
				ps.add(key(k), "must be > 0 (0 means the default), got %s", d)
			}
		}
	}
}

func positive(ps *problems, key string, d Duration) {
	if d.Duration <= 0 {
		ps.add(key, "must be > 0")
	}
}

func oneOf[T ~string](ps *problems, key string, v T, allowed ...T) {
	if slices.Contains(allowed, v) {
		return
	}
	names := make([]string, len(allowed))
	for i, a := range allowed {
		names[i] = strconv.Quote(string(a))
	}
	ps.add(key, "must be one of %s, got %q", strings.Join(names, ", "), v)
}

func validateEndpoint(ps *problems, table string, e Endpoint) {
	if e.Host == "" {
		ps.add(table+".host", "must not be empty")
	}
	if e.Port < 1 || e.Port > 65535 {
		ps.add(table+".port", "must be 1..65535, got %d", e.Port)
	}
}

// optionalURL checks a URL whose empty value means one derived from
// server.public_url.
func optionalURL(ps *problems, key, raw string) {
	if raw != "" {
		absoluteURL(ps, key, raw)
	}
}

func absoluteURL(ps *problems, key, raw string) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		ps.add(key, "must be an absolute http or https URL, got %q", raw)
	}
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func (c *Config) validateOperator(ps *problems) {
	o := c.Operator
	if !o.Enabled {
		return
	}
	if _, port, err := net.SplitHostPort(o.Listen); err != nil {
		ps.add("operator.listen", "must be host:port, got %q", o.Listen)
	} else if n, err := strconv.ParseUint(port, 10, 16); err != nil || (n == 0 && port != "0") {
		ps.add("operator.listen", "port must be a number 0..65535, got %q", port)
	}
	if o.Token != "" && len(o.Token) < 16 {
		ps.add("operator.token", "must be empty (generated) or at least 16 characters")
	}
	if host, _, err := net.SplitHostPort(o.Listen); err == nil && !o.AllowRemote && !IsLoopback(host) {
		ps.add("operator.listen", "%q is not a loopback address, so the operator API, the web console and the Go profiles would be reachable "+
			"from other machines; listen on 127.0.0.1 or [::1] and reach it through an SSH tunnel, or set operator.allow_remote = true "+
			"(the API and the profiles then need the token; put a TLS proxy in front)", o.Listen)
	}
	rate(ps, "operator.token_failures_per_address", o.TokenFailures)
	validateAllowedHosts(ps, o.AllowedHosts)
	oneOf(ps, "console.secure_cookie", c.Console.SecureCookie, SecureCookieAuto, SecureCookieOn, SecureCookieOff)
}

// IsLoopback reports whether host (of a listen address) names only the
// loopback interface: "localhost" or a loopback IP. An empty host (":8081")
// and 0.0.0.0 or [::] bind every interface; any other name may resolve to
// any of them.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// rate checks a token-bucket rate: burst >= 0 (0: off), every > 0.
func rate(ps *problems, key string, r Rate) {
	if r.Burst < 0 {
		ps.add(key+".burst", "must be >= 0 (0 turns the limit off)")
	}
	if r.Burst > 0 && r.Every.Duration <= 0 {
		ps.add(key+".every", "must be > 0")
	}
	if r.Every.Duration > MaxRateEvery {
		ps.add(key+".every", "must be at most %s (a token a year; burst = 0 turns the limit off), got %s", Duration{MaxRateEvery}, r.Every)
	}
}

// MaxRateEvery bounds a rate's every: longer would mean no limit at all
// once multiplied (a cluster node's share, a bucket's debt) past what a
// duration holds, where the limiters read a negative every as "off".
const MaxRateEvery = 365 * 24 * time.Hour

func (c *Config) validateStorageBackend(ps *problems) {
	oneOf(ps, "storage.backend", c.Storage.Backend, BackendPebble, BackendPostgres)
	pg := c.Storage.Postgres
	if pg.MaxConns < 1 || pg.MaxConns > 1000 {
		ps.add("storage.postgres.max_conns", "must be 1..1000")
	}
	if pg.StatementTimeout.Duration < 0 {
		ps.add("storage.postgres.statement_timeout", "must be >= 0")
	}
	if c.Storage.Backend != BackendPostgres {
		return
	}
	u, err := url.Parse(pg.URL)
	switch {
	case pg.URL == "":
		ps.add("storage.postgres.url", `must be set when storage.backend = "postgres"`)
	case err != nil:
		// url's error would repeat the URL, password included.
		ps.add("storage.postgres.url", "does not parse as a URL (check the host, the port and any %%-escapes)")
	case u.Scheme != "postgres" && u.Scheme != "postgresql":
		ps.add("storage.postgres.url", "must be a postgres:// or postgresql:// URL")
	case u.Host == "" && u.Query().Get("host") == "":
		ps.add("storage.postgres.url", "must name a host (postgres://USER@HOST:PORT/DATABASE)")
	}
}
