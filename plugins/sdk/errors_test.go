package sdk

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestErrorsCrossTheBoundary(t *testing.T) {
	tests := []struct {
		name string
		err  error
		code codes.Code
		want []error // errors.Is must hold for each after fromStatus
	}{
		{"invalid facts", fmt.Errorf("%w: currency", ErrInvalidFacts), codes.InvalidArgument, []error{ErrInvalidFacts}},
		{"unavailable", ErrUnavailable, codes.Unavailable, []error{ErrUnavailable}},
		{"deadline", fmt.Errorf("slow: %w", context.DeadlineExceeded), codes.DeadlineExceeded, []error{ErrUnavailable, context.DeadlineExceeded}},
		{"canceled by caller", context.Canceled, codes.Canceled, []error{context.Canceled}},
		{"anything else", errors.New("boom"), codes.Internal, []error{ErrPluginFailed}},
		{"status passes through", status.Error(codes.NotFound, "x"), codes.NotFound, []error{ErrPluginFailed}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wire := toStatus(tt.err)
			if got := status.Code(wire); got != tt.code {
				t.Fatalf("code = %v, want %v", got, tt.code)
			}
			ctx, cancel := context.WithCancel(context.Background())
			if tt.code == codes.Canceled {
				cancel()
			}
			defer cancel()
			back := fromStatus(ctx, wire)
			for _, w := range tt.want {
				if !errors.Is(back, w) {
					t.Errorf("fromStatus(%v) = %v, want errors.Is %v", wire, back, w)
				}
			}
		})
	}
	if toStatus(nil) != nil || fromStatus(context.Background(), nil) != nil {
		t.Error("nil error must stay nil")
	}
	// Canceled without the caller canceling: the connection closed under
	// the call, so the plugin is unavailable.
	closing := status.Error(codes.Canceled, "grpc: the client connection is closing")
	if err := fromStatus(context.Background(), closing); !errors.Is(err, ErrUnavailable) {
		t.Errorf("closing connection: %v, want ErrUnavailable", err)
	}
}
