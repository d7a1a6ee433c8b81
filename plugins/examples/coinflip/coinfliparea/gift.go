package coinfliparea

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/honmaster/masterserver/actors"
	"github.com/honmaster/masterserver/storage"
)

// Gift moves tickets from one account (the first participant) to another
// (the second), each share by its own account's actor, exactly once (see
// docs/effects.md): the sender's debit is the first share, refused when
// the balance is short (then nothing happened); once it committed, the
// receiver's credit follows, resumed after a crash. The payload is the
// tickets, a varint. The name is stored with every gift: never rename it.
var Gift = actors.RegisterEffect("coinflip.gift", func(tx *actors.Tx, e *storage.Effect, share int) error {
	n, k := binary.Varint(e.Payload)
	if k != len(e.Payload) || n < 1 {
		return fmt.Errorf("%w: coinflip gift payload %x", actors.ErrBadEffect, e.Payload)
	}
	if share == 0 {
		if tx.View().Tickets < n {
			return errNotEnoughTickets
		}
		tx.Account().Tickets -= n
		return nil
	}
	tx.Account().Tickets += n
	return nil
})

// GiftPayload is the payload of a gift of n tickets.
func GiftPayload(n int64) []byte { return binary.AppendVarint(nil, n) }

// giftRequest is the form besides the sender's cookie, which the host
// reads (the route is an Account route).
type giftRequest struct {
	To      string `form:"to,required" doc:"the receiver's login"`
	Tickets int32  `form:"tickets,required" doc:"tickets given, 1..[areas.coinflip] max_gift"`
}

type giftReply struct {
	Success bool  `php:"success"`
	Tickets int32 `php:"tickets"` // given
}

func (h *handler) gift(ctx context.Context, sess *storage.Session, req giftRequest) (giftReply, error) {
	if req.Tickets < 1 || req.Tickets > h.settings.MaxGift {
		return giftReply{}, fmt.Errorf("%w: %d tickets, [areas.coinflip] max_gift is %d", errGiftSize, req.Tickets, h.settings.MaxGift)
	}
	to, err := h.Sys.DB().LoginID(req.To)
	switch {
	case errors.Is(err, storage.ErrNotFound):
		return giftReply{}, errNoReceiver
	case err != nil:
		return giftReply{}, err
	case to == sess.AccountID:
		return giftReply{}, errGiftToSelf
	}
	// Start is called outside any actor: it drives the shares one actor
	// at a time, so crossing gifts cannot deadlock. Its error is the
	// sender's share's (nothing was written), or an unknown outcome.
	_, err = Gift.Start(ctx, h.Sys, GiftPayload(int64(req.Tickets)), sess.AccountID, to)
	if errors.Is(err, actors.ErrNoAccount) { // the receiver was deleted since the look-up
		return giftReply{}, fmt.Errorf("%w: %w", errNoReceiver, err)
	} else if err != nil {
		return giftReply{}, err
	}
	return giftReply{Success: true, Tickets: req.Tickets}, nil
}
