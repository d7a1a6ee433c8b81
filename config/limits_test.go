package config

import (
	"testing"
	"time"
)

func wantLimits() Limits {
	return Limits{
		MaxConnections: 10000, MaxConnectionsPerAddress: 256, IPv6Prefix: 64,
		PreAuthPerAddress:   256,
		FailedProofsAddress: Rate{Burst: 30, Every: Duration{10 * time.Second}},
		FailedProofsLogin:   Rate{Burst: 5, Every: Duration{30 * time.Second}},
		SessionsPerAccount:  10, TrackedKeys: 100000,
		RegistrationsPerAddress: Rate{Burst: 300, Every: Duration{30 * time.Second}},
		MaxEmailLength:          254,
		CloudBuckets:            4, CloudBytes: 2 * MiB,
		DiskFreeMargin:       256 * MiB,
		ConsoleSignInAddress: Rate{Burst: 10, Every: Duration{time.Minute}},
		ConsoleSignInLogin:   Rate{Burst: 5, Every: Duration{time.Minute}},
	}
}

func TestValidateLimits(t *testing.T) {
	for _, tc := range []struct {
		key  string
		edit func(l *Limits)
	}{
		{"limits.max_connections", func(l *Limits) { l.MaxConnections = 0 }},
		{"limits.max_connections_per_address", func(l *Limits) { l.MaxConnectionsPerAddress = l.MaxConnections + 1 }},
		{"limits.pre_auth_per_address", func(l *Limits) { l.PreAuthPerAddress = 0 }},
		{"limits.ipv6_prefix", func(l *Limits) { l.IPv6Prefix = 0 }},
		{"limits.ipv6_prefix", func(l *Limits) { l.IPv6Prefix = 129 }},
		{"limits.failed_proofs_per_address.every", func(l *Limits) { l.FailedProofsAddress.Every.Duration = 0 }},
		{"limits.registrations_per_address.burst", func(l *Limits) { l.RegistrationsPerAddress.Burst = -1 }},
		{"limits.cloud_bytes_per_account", func(l *Limits) { l.CloudBytes = KiB }},
		{"limits.max_email_length", func(l *Limits) { l.MaxEmailLength = 3 }},
	} {
		c := Default()
		tc.edit(&c.Limits)
		ps := Problems(c.Validate())
		if len(ps) != 1 || ps[0].Key != tc.key {
			t.Errorf("%s: problems %v", tc.key, ps)
		}
	}
	c := Default()
	c.Limits.RegistrationsPerAddress = Rate{} // off is allowed
	if err := c.Validate(); err != nil {
		t.Errorf("limit turned off: %v", err)
	}
}
