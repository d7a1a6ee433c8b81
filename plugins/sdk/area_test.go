package sdk

import (
	"testing"
	"time"
)

func TestAreaTable(t *testing.T) {
	if got := Areas(); len(got) != 1 || got[0] != AreaPlinko {
		t.Fatalf("Areas() = %v", got)
	}
	if a, err := ParseArea("plinko"); err != nil || a != AreaPlinko {
		t.Fatalf("ParseArea(plinko) = %v, %v", a, err)
	}
	if _, err := ParseArea("Plinko"); err == nil {
		t.Fatal("ParseArea(Plinko) succeeded; names are exact")
	}
	if v := AreaPlinko.ProtocolVersion(); v != PlinkoProtocolVersion {
		t.Fatalf("ProtocolVersion = %d", v)
	}

	sets, err := ClientPluginSets(AreaPlinko)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := sets[PlinkoProtocolVersion][string(AreaPlinko)].(*PlinkoPlugin); !ok {
		t.Fatalf("client sets = %v", sets)
	}
	if _, err := ClientPluginSets("guides-v0"); err == nil {
		t.Fatal("unknown area accepted")
	}

	if got := serverPluginSets(ServeOpts{}); len(got) != 0 {
		t.Fatalf("server sets without implementations = %v", got)
	}
	impl := &DefaultPlinko{}
	served := serverPluginSets(ServeOpts{Plinko: impl})
	p, ok := served[PlinkoProtocolVersion][string(AreaPlinko)].(*PlinkoPlugin)
	if !ok || p.Impl != impl {
		t.Fatalf("server sets = %v", served)
	}
}

func TestWatchParent(t *testing.T) {
	ppids := make(chan int, 3)
	ppids <- 100
	ppids <- 100
	ppids <- 1 // re-parented to init: the host died
	exited := make(chan struct{})
	go watchParent(100, time.Millisecond, func() int { return <-ppids }, func() { close(exited) })
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		t.Fatal("watchParent did not exit after the parent changed")
	}
}
