package worker

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/memhost/memhost/sdk/internal/rpcerr"
)

// codeOf pairs each error of the worker kind with the status code it
// travels as (the proto file documents them for plugins in other
// languages); the kind-neutral errors travel as rpcerr maps them.
var codeOf = []struct {
	err  error
	code codes.Code
}{
	{ErrRefused, codes.PermissionDenied},
	{ErrRateLimited, codes.ResourceExhausted},
	{ErrBadAnswer, codes.DataLoss},
	{ErrOverBudget, codes.OutOfRange},
	{ErrUnavailable, codes.Unavailable},
}

// toStatus maps an implementation's error to a gRPC status.
func toStatus(err error) error {
	if _, ok := status.FromError(err); ok {
		return err
	}
	for _, c := range codeOf {
		if errors.Is(err, c.err) {
			return status.Error(c.code, err.Error())
		}
	}
	return rpcerr.ToStatus(err)
}

// fromStatus turns a gRPC error from the call what into an error wrapping
// the worker's error for its code.
func fromStatus(ctx context.Context, what string, err error) error {
	if ctx.Err() == nil {
		st, _ := status.FromError(err)
		for _, c := range codeOf {
			if st.Code() == c.code {
				return rpcerr.Wrap(what, c.err, st.Message())
			}
		}
	}
	return rpcerr.FromStatus(ctx, what, err)
}
