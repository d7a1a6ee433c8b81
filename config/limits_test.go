package config

import (
	"strings"
	"testing"
	"time"
)

func wantLimits() Limits {
	return Limits{
		MaxConnections: 10000, MaxConnectionsPerAddress: 64, IPv6Prefix: 64,
		PreAuthPerAddress:   256,
		LoginsAddress:       Rate{Burst: 100, Every: Duration{100 * time.Millisecond}},
		FailedProofsAddress: Rate{Burst: 30, Every: Duration{10 * time.Second}},
		FailedProofsLogin:   Rate{Burst: 5, Every: Duration{30 * time.Second}},
		SessionsPerAccount:  10, TrackedKeys: 100000,
		RegistrationsPerAddress: Rate{Burst: 5, Every: Duration{12 * time.Minute}},
		MaxEmailLength:          254,
		CloudBuckets:            4, CloudBytes: 2 * MiB,
		CloudBytesAddress:      ByteRate{Size: 16 * MiB, Every: Duration{24 * time.Hour}},
		ReportsAddress:         Rate{Burst: 40, Every: Duration{30 * time.Minute}},
		GuideVotesAddress:      Rate{Burst: 30, Every: Duration{2 * time.Minute}},
		GuideVotesGuideAddress: Rate{Burst: 3, Every: Duration{8 * time.Hour}},
		TogglesAccount:         Rate{Burst: 30, Every: Duration{2 * time.Second}},
		TogglesAddress:         Rate{Burst: 300, Every: Duration{200 * time.Millisecond}},
		NewAccountAge:          Duration{7 * 24 * time.Hour},
		DiskFreeMargin:         256 * MiB,
		ConsoleSignInAddress:   Rate{Burst: 10, Every: Duration{time.Minute}},
		ConsoleSignInLogin:     Rate{Burst: 5, Every: Duration{time.Minute}},
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
		{"limits.logins_per_address.every", func(l *Limits) { l.LoginsAddress.Every.Duration = 0 }},
		{"limits.ipv6_prefix", func(l *Limits) { l.IPv6Prefix = 0 }},
		{"limits.ipv6_prefix", func(l *Limits) { l.IPv6Prefix = 129 }},
		{"limits.failed_proofs_per_address.every", func(l *Limits) { l.FailedProofsAddress.Every.Duration = 0 }},
		{"limits.registrations_per_address.burst", func(l *Limits) { l.RegistrationsPerAddress.Burst = -1 }},
		{"limits.cloud_bytes_per_account", func(l *Limits) { l.CloudBytes = KiB }},
		{"limits.max_email_length", func(l *Limits) { l.MaxEmailLength = 3 }},
		{"limits.cloud_bytes_per_address.size", func(l *Limits) { l.CloudBytesAddress.Size = KiB }},
		{"limits.cloud_bytes_per_address.every", func(l *Limits) { l.CloudBytesAddress.Every.Duration = 0 }},
		{"limits.reports_per_address.every", func(l *Limits) { l.ReportsAddress.Every.Duration = 0 }},
		{"limits.guide_votes_per_guide_address.burst", func(l *Limits) { l.GuideVotesGuideAddress.Burst = -1 }},
		{"limits.toggles_per_account.every", func(l *Limits) { l.TogglesAccount.Every.Duration = 0 }},
		{"limits.toggles_per_address.burst", func(l *Limits) { l.TogglesAddress.Burst = -1 }},
		{"limits.new_account_age", func(l *Limits) { l.NewAccountAge.Duration = -time.Hour }},
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
	c.Limits.CloudBytesAddress = ByteRate{}
	if err := c.Validate(); err != nil {
		t.Errorf("limit turned off: %v", err)
	}
}

// The load-test block of defaults.toml's [limits] comment parses and
// turns the per-address budgets off.
func TestLoadTestLimitsBlock(t *testing.T) {
	var block []string
	in := false
	for _, line := range strings.Split(defaultsTOML, "\n") {
		switch {
		case strings.HasPrefix(line, "#   [limits]"):
			in = true
		case in && !strings.HasPrefix(line, "#   "):
			in = false
		}
		if in {
			block = append(block, strings.TrimPrefix(line, "#   "))
		}
	}
	if len(block) < 2 {
		t.Fatal("no load-test block in the [limits] comment")
	}
	c := Default()
	if err := c.overlay(strings.Join(block, "\n")); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	l := c.Limits
	if l.RegistrationsPerAddress.Burst < 100000 || l.LoginsAddress.Burst != 0 || l.CloudBytesAddress.Size != 0 || l.ReportsAddress.Burst != 0 ||
		l.GuideVotesAddress.Burst != 0 || l.GuideVotesGuideAddress.Burst != 0 || l.TogglesAccount.Burst != 0 || l.TogglesAddress.Burst != 0 {
		t.Errorf("load-test limits: %+v", l)
	}
}
