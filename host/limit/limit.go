// Package limit provides the one rate limiter the host uses against hostile
// clients: a token bucket per key (a client address, a login and address
// pair ...) in a map of bounded size.
//
// Each key starts with Burst tokens and gets one back every Every, up to
// Burst. Allow spends a token when one is left; Check and Charge split that
// in two, so that a caller can refuse early and charge only failures (a
// wrong password costs a token, a right one does not). Check and Charge
// leave a window between them: requests checked at once all pass before
// any is charged. Where the work between them is slow (a password check)
// and only failures should cost, spend first with Allow and give the token
// back with Refund when the request turns out not to count.
//
// Memory is bounded by maxKeys: when the map is full, keys whose bucket is
// full again (they carry no information) are dropped first, then random
// keys until a 1/64 of the map is free. An attacker who floods the map with fresh keys
// can therefore at worst make some other key's bucket refill early, never
// grow memory.
package limit

import (
	"math"
	"sync"
	"sync/atomic"
	"time"
)

// Rate is a token-bucket rate: Burst tokens at most, one back every Every.
// The zero Rate (Burst 0) allows nothing; a Keyed built from it is Off.
type Rate struct {
	Burst int
	Every time.Duration
}

// Share is a node's share of r when n nodes of a cluster each count an
// address's requests alone (config.ShareLimits, and an area's own
// per-address budgets through config.Limits.SharedBy): Burst/n at once
// (at least 1: a burst below n allows up to n in all) and a refill n
// times slower, so that an address spread over every node gets about r
// in all. With n <= 1, or a rate that is off, r itself.
func (r Rate) Share(n int) Rate {
	if n <= 1 || r.Burst <= 0 {
		return r
	}
	r.Burst = max(1, r.Burst/n)
	// Saturated: a product past what a duration holds would be negative,
	// which the limiters read as "off".
	if r.Every > math.MaxInt64/time.Duration(n) {
		r.Every = math.MaxInt64
	} else {
		r.Every *= time.Duration(n)
	}
	return r
}

// Keyed is a set of token buckets by key. The zero value is not usable; use
// New. A nil *Keyed allows everything.
type Keyed struct {
	rate    Rate
	maxKeys int
	now     func() time.Time

	mu sync.Mutex
	m  map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time // when tokens was last brought up to date
}

// DefaultMaxKeys is the bound of a limiter's map when New is given 0,
// until SetDefaultMaxKeys changes it.
const DefaultMaxKeys = 100_000

// defaultMaxKeys is SetDefaultMaxKeys' bound.
var defaultMaxKeys atomic.Int64

func init() { defaultMaxKeys.Store(DefaultMaxKeys) }

// SetDefaultMaxKeys sets the bound of the limiters New is given no bound
// for (limits.tracked_keys, which the documentation gives as every rate
// limiter's: the console's, the operator listener's and the matches
// area's take it this way); n < 1 restores DefaultMaxKeys. Limiters made
// before keep theirs: the server sets it once, before it makes any.
func SetDefaultMaxKeys(n int) {
	if n < 1 {
		n = DefaultMaxKeys
	}
	defaultMaxKeys.Store(int64(n))
}

// New returns a limiter at rate r keeping at most maxKeys keys (0:
// the default: SetDefaultMaxKeys). now may be nil (wall clock). A rate with Burst <= 0 or
// Every <= 0 returns nil: no limit.
func New(r Rate, maxKeys int, now func() time.Time) *Keyed {
	if r.Burst <= 0 || r.Every <= 0 {
		return nil
	}
	if maxKeys <= 0 {
		maxKeys = int(defaultMaxKeys.Load())
	}
	if now == nil {
		now = time.Now
	}
	return &Keyed{rate: r, maxKeys: maxKeys, now: now, m: map[string]*bucket{}}
}

// NewAdjustable is New for a limiter whose rate a configuration reload may
// change (SetRate): it never returns nil, and a rate that is off (Burst or
// Every <= 0) allows everything until SetRate turns it on.
func NewAdjustable(r Rate, maxKeys int, now func() time.Time) *Keyed {
	k := New(Rate{Burst: 1, Every: time.Second}, maxKeys, now)
	k.rate = r
	return k
}

// SetRate changes the rate from now on (a configuration reload). What a
// key spent stays spent: a raised Burst adds its difference to every
// bucket (an operator who raises a limit relieves those it stopped at
// once), a lowered one caps buckets at the new Burst. A rate that is off
// allows everything (and forgets every key).
func (k *Keyed) SetRate(r Rate) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	wasOff := k.off()
	if !wasOff {
		for _, b := range k.m {
			k.refill(b, now) // what was earned at the old pace
		}
	}
	raise := float64(r.Burst - k.rate.Burst)
	k.rate = r
	if wasOff || k.off() {
		clear(k.m)
		return
	}
	for _, b := range k.m {
		b.tokens = min(b.tokens+max(raise, 0), float64(r.Burst))
	}
}

// Rate returns the current rate.
func (k *Keyed) Rate() Rate {
	if k == nil {
		return Rate{}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.rate
}

// off reports whether the rate allows everything (k.mu is held).
func (k *Keyed) off() bool { return k.rate.Burst <= 0 || k.rate.Every <= 0 }

// refill brings b up to date at now.
func (k *Keyed) refill(b *bucket, now time.Time) {
	if el := now.Sub(b.at); el > 0 {
		b.tokens = min(float64(k.rate.Burst), b.tokens+float64(el)/float64(k.rate.Every))
		b.at = now
	}
}

// Check reports whether key has a token left, without spending it. When it
// has none, wait is how long until it has one.
func (k *Keyed) Check(key string) (ok bool, wait time.Duration) {
	if k == nil {
		return true, 0
	}
	now := k.now()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.off() {
		return true, 0
	}
	b, found := k.m[key]
	if !found {
		return true, 0
	}
	k.refill(b, now)
	if b.tokens >= 1 {
		return true, 0
	}
	return false, k.waitFor(1 - b.tokens)
}

// Charge spends a token of key (going below zero is allowed: repeated
// failures push the next token further away — the back-off).
func (k *Keyed) Charge(key string) {
	if k == nil {
		return
	}
	now := k.now()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.off() {
		return
	}
	b := k.get(key, now)
	k.refill(b, now)
	// Never more than one bucket's worth in debt: the wait stays bounded
	// by Burst×Every however long a client keeps failing.
	b.tokens = max(b.tokens-1, -float64(k.rate.Burst))
}

// Allow spends a token of key when one is left and reports whether it did.
// When it did not, wait is how long until one is back.
func (k *Keyed) Allow(key string) (ok bool, wait time.Duration) {
	if k == nil {
		return true, 0
	}
	now := k.now()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.off() {
		return true, 0
	}
	b := k.get(key, now)
	k.refill(b, now)
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, k.waitFor(1 - b.tokens)
}

// Refund gives back a token that Allow spent, up to Burst: the request it
// was spent for turned out not to count (a right password). A key the
// limiter no longer tracks is left alone (its bucket is full, or was
// dropped as full), and so is a limiter whose rate is off.
func (k *Keyed) Refund(key string) { k.RefundN(key, 1) }

// RefundN gives back n tokens that AllowN spent, up to Burst: the request
// they were spent for was refused before it did anything (see Refund).
func (k *Keyed) RefundN(key string, n int) {
	if k == nil || n <= 0 {
		return
	}
	now := k.now()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.off() {
		return
	}
	b, found := k.m[key]
	if !found {
		return
	}
	k.refill(b, now)
	b.tokens = min(b.tokens+float64(n), float64(k.rate.Burst))
}

// AllowN spends n tokens of key when n are left, and none otherwise (a
// request that does not fit costs nothing): one lock for a request that
// costs several units, such as a cloud upload counted in KiB. When it did
// not, wait is how long until n are back (or until the bucket is full, when
// n is more than Burst: such a request is never allowed).
func (k *Keyed) AllowN(key string, n int) (ok bool, wait time.Duration) {
	if k == nil || n <= 0 {
		return true, 0
	}
	now := k.now()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.off() {
		return true, 0
	}
	b := k.get(key, now)
	k.refill(b, now)
	if b.tokens >= float64(n) {
		b.tokens -= float64(n)
		return true, 0
	}
	need := min(float64(n), float64(k.rate.Burst))
	return false, k.waitFor(need - b.tokens)
}

// waitFor is how long until units tokens are back, at most the longest
// duration: a long every times a bucket's debt would otherwise overflow
// to a negative wait (a negative Retry-After, "try again in -2562047h").
func (k *Keyed) waitFor(units float64) time.Duration {
	w := units * float64(k.rate.Every)
	if w >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(w)
}

// Len returns how many keys are tracked.
func (k *Keyed) Len() int {
	if k == nil {
		return 0
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.m)
}

// get returns key's bucket, creating it full, evicting when the map is full.
// k.mu is held.
func (k *Keyed) get(key string, now time.Time) *bucket {
	if b, ok := k.m[key]; ok {
		return b
	}
	if len(k.m) >= k.maxKeys {
		k.evict(now)
	}
	b := &bucket{tokens: float64(k.rate.Burst), at: now}
	k.m[key] = b
	return b
}

// evict drops every full bucket, then random keys (map order is random)
// until a 1/64 of the map is free, so that a flood of fresh keys costs one
// scan per maxKeys/64 insertions, not one per insertion. Before, random
// keys were dropped only when no bucket was full: a flood paced so that
// about one bucket filled again between insertions had every insertion
// scan the whole map under the lock.
func (k *Keyed) evict(now time.Time) {
	for key, b := range k.m {
		k.refill(b, now)
		if b.tokens >= float64(k.rate.Burst) {
			delete(k.m, key)
		}
	}
	room := k.maxKeys/64 + 1
	if len(k.m) <= k.maxKeys-room {
		return
	}
	drop := len(k.m) - (k.maxKeys - room)
	for key := range k.m {
		if drop == 0 {
			break
		}
		delete(k.m, key)
		drop--
	}
}
