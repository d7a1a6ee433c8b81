package supervisor

import (
	"context"
	"fmt"

	"github.com/honmaster/masterserver/plugins/sdk"
)

// Plinko returns a stable handle to the plinko plugin: every call goes to
// the instance running at that moment, is bounded by CallTimeout, and has
// its facts and its decision validated. While the plugin is down calls fail
// fast with an error wrapping sdk.ErrUnavailable. For a supervisor of
// another area every call fails that way.
func (s *Supervisor) Plinko() sdk.Plinko {
	return plinkoHandle{s: s}
}

type plinkoHandle struct{ s *Supervisor }

var _ sdk.Plinko = plinkoHandle{}

func (h plinkoHandle) plinko() (sdk.Plinko, error) {
	inst, err := h.s.current()
	if err != nil {
		return nil, err
	}
	p, ok := inst.raw.(sdk.Plinko)
	if !ok {
		return nil, fmt.Errorf("%w: supervisor runs the %s area, not %s", sdk.ErrUnavailable, h.s.src.Area, sdk.AreaPlinko)
	}
	return p, nil
}

func (h plinkoHandle) Info(ctx context.Context) (sdk.PlinkoInfo, error) {
	p, err := h.plinko()
	if err != nil {
		return sdk.PlinkoInfo{}, err
	}
	ctx, cancel := h.s.callContext(ctx)
	defer cancel()
	info, err := p.Info(ctx)
	if err != nil {
		return sdk.PlinkoInfo{}, fmt.Errorf("supervisor: plinko info: %w", err)
	}
	return info, nil
}

func (h plinkoHandle) Drop(ctx context.Context, f sdk.DropFacts) (sdk.DropDecision, error) {
	if err := f.Validate(); err != nil {
		return sdk.DropDecision{}, err
	}
	p, err := h.plinko()
	if err != nil {
		return sdk.DropDecision{}, err
	}
	ctx, cancel := h.s.callContext(ctx)
	defer cancel()
	d, err := p.Drop(ctx, f)
	if err != nil {
		return sdk.DropDecision{}, fmt.Errorf("supervisor: plinko drop: %w", err)
	}
	if err := d.Validate(f); err != nil {
		return sdk.DropDecision{}, fmt.Errorf("supervisor: plinko drop: %w", err)
	}
	return d, nil
}

// checkPlinko is the plinko health check: Info answers and the odds are
// valid.
func checkPlinko(ctx context.Context, raw any) error {
	p, ok := raw.(sdk.Plinko)
	if !ok {
		return fmt.Errorf("dispensed %T, want sdk.Plinko", raw)
	}
	info, err := p.Info(ctx)
	if err != nil {
		return fmt.Errorf("health check: %w", err)
	}
	if err := info.Odds.Validate(); err != nil {
		return fmt.Errorf("health check: %w", err)
	}
	return nil
}
