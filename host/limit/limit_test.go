package limit

import (
	"strconv"
	"testing"
	"time"
)

func TestKeyed(t *testing.T) {
	clock := time.Unix(1000, 0)
	k := New(Rate{Burst: 3, Every: time.Second}, 10, func() time.Time { return clock })
	for i := range 3 {
		if ok, _ := k.Allow("a"); !ok {
			t.Fatalf("token %d refused", i)
		}
	}
	ok, wait := k.Allow("a")
	if ok || wait != time.Second {
		t.Fatalf("4th: ok=%v wait=%v; want refused, 1s", ok, wait)
	}
	if ok, _ := k.Allow("b"); !ok {
		t.Error("another key shares a's bucket")
	}
	clock = clock.Add(time.Second)
	if ok, _ := k.Allow("a"); !ok {
		t.Error("no token back after Every")
	}

	// Check does not spend; Charge does, and goes into debt (back-off).
	if ok, _ := k.Check("c"); !ok {
		t.Error("fresh key refused by Check")
	}
	for range 5 {
		k.Charge("c")
	}
	ok, wait = k.Check("c")
	if ok || wait != 3*time.Second {
		t.Errorf("after 5 charges on burst 3: ok=%v wait=%v; want refused, 3s", ok, wait)
	}
	if k.Len() != 3 {
		t.Errorf("Len = %d, want 3", k.Len())
	}
}

func TestKeyedBoundedMemory(t *testing.T) {
	k := New(Rate{Burst: 2, Every: time.Hour}, 100, nil)
	for i := range 10_000 {
		k.Allow(strconv.Itoa(i))
		if k.Len() > 100 {
			t.Fatalf("after %d keys the map holds %d, bound 100", i+1, k.Len())
		}
	}
}

func TestNilAndOff(t *testing.T) {
	var k *Keyed
	if ok, _ := k.Allow("x"); !ok {
		t.Error("nil limiter refused")
	}
	if New(Rate{}, 0, nil) != nil {
		t.Error("zero rate is not off")
	}
}

// TestAllowN: n tokens are spent together or not at all, and the wait is
// until n are back.
func TestAllowN(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	k := New(Rate{Burst: 10, Every: time.Minute}, 0, func() time.Time { return now })
	if ok, _ := k.AllowN("a", 7); !ok {
		t.Fatal("7 of a full bucket of 10 refused")
	}
	if ok, wait := k.AllowN("a", 5); ok || wait != 2*time.Minute {
		t.Fatalf("5 with 3 left: ok=%v wait=%v; want refused, 2m", ok, wait)
	}
	if ok, _ := k.AllowN("a", 3); !ok {
		t.Fatal("the 3 left refused: the refused request spent some")
	}
	if ok, _ := k.AllowN("b", 11); ok {
		t.Error("more than the burst allowed")
	}
	if ok, _ := (*Keyed)(nil).AllowN("a", 100); !ok {
		t.Error("a nil limiter refused")
	}
}

func TestSetRate(t *testing.T) {
	clock := time.Unix(1000, 0)
	k := NewAdjustable(Rate{}, 10, func() time.Time { return clock })
	for range 100 {
		if ok, _ := k.Allow("a"); !ok {
			t.Fatal("an adjustable limiter that is off refused")
		}
	}
	k.SetRate(Rate{Burst: 2, Every: time.Second})
	if got := k.Rate(); got != (Rate{Burst: 2, Every: time.Second}) {
		t.Fatalf("Rate = %+v", got)
	}
	k.Allow("a")
	k.Allow("a")
	if ok, _ := k.Allow("a"); ok {
		t.Fatal("third token of burst 2 allowed after SetRate")
	}
	// Raising adds the difference: a spent key gets the new tokens at once.
	k.SetRate(Rate{Burst: 4, Every: time.Second})
	for i := range 2 {
		if ok, _ := k.Allow("a"); !ok {
			t.Fatalf("token %d of the raised burst refused", i)
		}
	}
	if ok, _ := k.Allow("a"); ok {
		t.Fatal("raising from 2 to 4 gave a spent key more than 2 tokens")
	}
	// Lowering caps what buckets hold at once.
	k.Allow("b")
	k.SetRate(Rate{Burst: 1, Every: time.Minute})
	k.Allow("c")
	if ok, wait := k.Allow("c"); ok || wait != time.Minute {
		t.Fatalf("after lowering to 1/min: ok=%v wait=%v", ok, wait)
	}
	// Off again allows everything.
	k.SetRate(Rate{})
	if ok, _ := k.Allow("c"); !ok {
		t.Fatal("refused after SetRate turned the limit off")
	}
	if ok, _ := k.AllowN("c", 1000); !ok {
		t.Fatal("AllowN refused after SetRate turned the limit off")
	}
}

// TestRefund: a token Allow spent comes back, never past Burst; a key the
// limiter does not track is not created; nil and off limiters ignore it.
func TestRefund(t *testing.T) {
	clock := time.Unix(1000, 0)
	k := New(Rate{Burst: 2, Every: time.Hour}, 10, func() time.Time { return clock })
	k.Allow("a")
	k.Allow("a")
	if ok, _ := k.Allow("a"); ok {
		t.Fatal("third token of burst 2 allowed")
	}
	k.Refund("a")
	if ok, _ := k.Allow("a"); !ok {
		t.Fatal("the refunded token was not there")
	}
	if ok, _ := k.Allow("a"); ok {
		t.Fatal("one refund gave more than one token")
	}
	// Never past Burst.
	for range 5 {
		k.Refund("b")
	}
	k.Allow("b")
	for range 5 {
		k.Refund("b")
	}
	for i := range 2 {
		if ok, _ := k.Allow("b"); !ok {
			t.Fatalf("token %d of a refunded bucket refused", i)
		}
	}
	if ok, _ := k.Allow("b"); ok {
		t.Fatal("refunds raised a bucket past its burst")
	}
	if k.Len() != 2 {
		t.Errorf("Len = %d, want 2 (Refund of an untracked key made one)", k.Len())
	}
	(*Keyed)(nil).Refund("a")
	off := NewAdjustable(Rate{}, 10, nil)
	off.Refund("a")
	if off.Len() != 0 {
		t.Error("Refund on an off limiter tracked a key")
	}
}

// TestWaitNeverNegative: with a long every and a bucket in debt, the
// wait before the next token is the longest duration, not the negative
// number its product overflowed to (a negative Retry-After, "try again
// in -2562047h").
func TestWaitNeverNegative(t *testing.T) {
	now := time.Unix(0, 0)
	k := New(Rate{Burst: 5, Every: 1_000_000 * time.Hour}, 0, func() time.Time { return now })
	for range 10 {
		k.Charge("a")
	}
	if ok, wait := k.Check("a"); ok || wait <= 0 {
		t.Errorf("Check: ok %v, wait %v", ok, wait)
	}
	if ok, wait := k.Allow("a"); ok || wait <= 0 {
		t.Errorf("Allow: ok %v, wait %v", ok, wait)
	}
	if ok, wait := k.AllowN("a", 3); ok || wait <= 0 {
		t.Errorf("AllowN: ok %v, wait %v", ok, wait)
	}
}

// TestEvictScansAreAmortised: a flood of fresh keys paced so that about
// one bucket is full again between insertions costs one whole-map scan
// per maxKeys/64 insertions, as a flood of fresh keys does: the scan
// frees a 1/64 of the map, not only the full buckets it finds.
func TestEvictScansAreAmortised(t *testing.T) {
	const maxKeys = 6400
	now := time.Unix(0, 0)
	k := New(Rate{Burst: 2, Every: maxKeys * time.Second}, maxKeys, func() time.Time { return now })
	next := 0
	insert := func() { k.Allow(strconv.Itoa(next)); next++; now = now.Add(time.Second) }
	for range maxKeys {
		insert()
	}
	scans := 0
	const n = 10 * 64
	for range n {
		if k.Len() >= maxKeys {
			scans++
		}
		insert()
	}
	if limit := n/(maxKeys/64) + 1; scans > limit {
		t.Fatalf("%d insertions ran %d whole-map scans, want at most %d", n, scans, limit)
	}
	if k.Len() > maxKeys {
		t.Fatalf("%d keys kept, bound %d", k.Len(), maxKeys)
	}
}

// TestSetDefaultMaxKeys: a limiter made without a bound of its own keeps
// at most the default set (limits.tracked_keys), not 100,000.
func TestSetDefaultMaxKeys(t *testing.T) {
	SetDefaultMaxKeys(1000)
	t.Cleanup(func() { SetDefaultMaxKeys(0) })
	k := New(Rate{Burst: 1, Every: time.Hour}, 0, nil)
	for i := range 5000 {
		k.Allow(strconv.Itoa(i))
	}
	if n := k.Len(); n > 1000 {
		t.Errorf("%d keys kept, want at most 1000", n)
	}
}

// RefundN gives back what AllowN spent, never past the burst.
func TestRefundN(t *testing.T) {
	now := time.Unix(0, 0)
	k := New(Rate{Burst: 10, Every: time.Hour}, 0, func() time.Time { return now })
	if ok, _ := k.AllowN("a", 8); !ok {
		t.Fatal("8 of 10 refused")
	}
	if ok, _ := k.AllowN("a", 3); ok {
		t.Fatal("3 more allowed with 2 left")
	}
	k.RefundN("a", 8)
	if ok, _ := k.AllowN("a", 10); !ok {
		t.Error("the refunded tokens are not back")
	}
	k.RefundN("a", 50)
	if ok, _ := k.AllowN("a", 11); ok {
		t.Error("a refund passed the burst")
	}
}
