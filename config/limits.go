package config

import "time"

// Limits is the [limits] table: every limit that protects the server from
// hostile clients and failing disks (SECURITY.md explains each).
type Limits struct {
	// Listener.
	MaxConnections           int `toml:"max_connections"`
	MaxConnectionsPerAddress int `toml:"max_connections_per_address"`

	// IPv6Prefix is how many leading bits of an IPv6 address make one
	// client for every per-address limit (host/limit.AddrKey).
	IPv6Prefix int `toml:"ipv6_prefix"`

	// Login.
	PreAuthPerAddress   int  `toml:"pre_auth_per_address"`
	LoginsAddress       Rate `toml:"logins_per_address"`
	FailedProofsAddress Rate `toml:"failed_proofs_per_address"`
	FailedProofsLogin   Rate `toml:"failed_proofs_per_login_address"`
	SessionsPerAccount  int  `toml:"sessions_per_account"`
	TrackedKeys         int  `toml:"tracked_keys"`

	// Registration.
	RegistrationsPerAddress Rate `toml:"registrations_per_address"`
	MaxEmailLength          int  `toml:"max_email_length"`

	// Cloud.
	CloudBuckets int      `toml:"cloud_buckets_per_account"`
	CloudBytes   ByteSize `toml:"cloud_bytes_per_account"`

	// Budgets per client address over all its accounts (sock puppets).
	CloudBytesAddress      ByteRate `toml:"cloud_bytes_per_address"`
	ReportsAddress         Rate     `toml:"reports_per_address"`
	GuideVotesAddress      Rate     `toml:"guide_votes_per_address"`
	GuideVotesGuideAddress Rate     `toml:"guide_votes_per_guide_address"`
	// Small writes a player repeats at will (switch_auth, guide marks,
	// cloud enrollment): each kind per account and per address
	// (host/limit.Writes).
	TogglesAccount Rate `toml:"toggles_per_account"`
	TogglesAddress Rate `toml:"toggles_per_address"`
	// NewAccountAge: accounts younger than this weigh less where a plugin
	// decides (report priority, guide ranking: a vote keeps the class its
	// account had when it voted); 0 treats every account as established.
	NewAccountAge Duration `toml:"new_account_age"`

	// Storage.
	DiskFreeMargin ByteSize `toml:"disk_free_margin"`

	// Web console sign-in (failures only).
	ConsoleSignInAddress Rate `toml:"console_signin_per_address"`
	ConsoleSignInLogin   Rate `toml:"console_signin_per_login"`

	// SharedBy is how many cluster nodes each count an address's requests
	// alone (ShareLimits sets it; 0 or 1: this node alone). The budgets
	// above are already cut to this node's share; an area's per-address
	// budgets of its own table take theirs with limit.Rate.Share(SharedBy).
	// Not a setting.
	SharedBy int `toml:"-"`
}

// Rate is a token bucket: burst requests at once, then one more every
// "every". In TOML: { burst = 20, every = "3s" }. A burst of 0 turns the
// limit off.
type Rate struct {
	Burst int      `toml:"burst"`
	Every Duration `toml:"every"`
}

// Per returns the rate's refill interval.
func (r Rate) Per() time.Duration { return r.Every.Duration }

// ByteRate is a budget of bytes: Size at once, refilled evenly over Every
// (Size again after Every). In TOML: { size = "16MiB", every = "24h" }. A
// Size of 0 turns the budget off.
type ByteRate struct {
	Size  ByteSize `toml:"size"`
	Every Duration `toml:"every"`
}

func (c *Config) validateLimits(ps *problems) {
	l := c.Limits
	atLeast := func(key string, v, lo int) {
		if v < lo {
			ps.add("limits."+key, "must be >= %d, got %d", lo, v)
		}
	}
	atLeast("max_connections", l.MaxConnections, 1)
	atLeast("max_connections_per_address", l.MaxConnectionsPerAddress, 1)
	if l.MaxConnectionsPerAddress > l.MaxConnections && l.MaxConnections > 0 {
		ps.add("limits.max_connections_per_address", "%d exceeds limits.max_connections (%d)", l.MaxConnectionsPerAddress, l.MaxConnections)
	}
	if l.IPv6Prefix < 1 || l.IPv6Prefix > 128 {
		ps.add("limits.ipv6_prefix", "must be 1 to 128 (64: one key per /64), got %d", l.IPv6Prefix)
	}
	atLeast("pre_auth_per_address", l.PreAuthPerAddress, 1)
	atLeast("sessions_per_account", l.SessionsPerAccount, 1)
	atLeast("tracked_keys", l.TrackedKeys, 1000)
	atLeast("max_email_length", l.MaxEmailLength, 6)
	atLeast("cloud_buckets_per_account", l.CloudBuckets, 1)
	if l.CloudBytes < c.Cloud.MaxUpload {
		ps.add("limits.cloud_bytes_per_account", "%s is below cloud.max_upload (%s); one upload of the allowed size would not fit", l.CloudBytes, c.Cloud.MaxUpload)
	}
	if b := l.CloudBytesAddress; b.Size < 0 {
		ps.add("limits.cloud_bytes_per_address.size", "must be >= 0 (0 turns the budget off)")
	} else if b.Size > 0 {
		if b.Size < c.Cloud.MaxUpload {
			ps.add("limits.cloud_bytes_per_address.size", "%s is below cloud.max_upload (%s); one upload of the allowed size would not fit", b.Size, c.Cloud.MaxUpload)
		}
		if b.Every.Duration <= 0 {
			ps.add("limits.cloud_bytes_per_address.every", "must be > 0")
		}
	}
	if l.NewAccountAge.Duration < 0 {
		ps.add("limits.new_account_age", "must be >= 0 (0: no account counts as new)")
	}
	if l.DiskFreeMargin < 0 {
		ps.add("limits.disk_free_margin", "must be >= 0")
	}
	for key, r := range map[string]Rate{
		"failed_proofs_per_address":       l.FailedProofsAddress,
		"logins_per_address":              l.LoginsAddress,
		"failed_proofs_per_login_address": l.FailedProofsLogin,
		"registrations_per_address":       l.RegistrationsPerAddress,
		"reports_per_address":             l.ReportsAddress,
		"guide_votes_per_address":         l.GuideVotesAddress,
		"guide_votes_per_guide_address":   l.GuideVotesGuideAddress,
		"toggles_per_account":             l.TogglesAccount,
		"toggles_per_address":             l.TogglesAddress,
		"console_signin_per_address":      l.ConsoleSignInAddress,
		"console_signin_per_login":        l.ConsoleSignInLogin,
	} {
		rate(ps, "limits."+key, r)
	}
}
