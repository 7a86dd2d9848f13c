package rpcerr

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/memhost/memhost/sdk/plugin"
)

// ToStatus maps an implementation error to a gRPC status so that the client
// can rebuild the matching sentinel or context error.
func ToStatus(err error) error {
	if _, ok := status.FromError(err); ok {
		return err
	}
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return status.FromContextError(err).Err()
	case errors.Is(err, plugin.ErrInvalidInput):
		return status.Error(codes.InvalidArgument, err.Error())
	case errors.Is(err, plugin.ErrUnimplemented):
		return status.Error(codes.Unimplemented, err.Error())
	case errors.Is(err, plugin.ErrUnavailable):
		// What the plugin fronts is down (a model endpoint): the host waits for it and
		// probes its health, where Unknown would read as the plugin failing the call.
		return status.Error(codes.Unavailable, err.Error())
	default:
		return status.Error(codes.Unknown, err.Error())
	}
}

// Recover, deferred in a server method, turns a panic in the implementation
// into a codes.Internal error in *err, so that one bad input does not take
// the plugin process (and every in-flight call) down without a trace. The
// stack goes to logger, not to the caller.
func Recover(logger hclog.Logger, what string, err *error) {
	if r := recover(); r != nil {
		logger.Error("implementation panicked", "method", what, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
		*err = status.Errorf(codes.Internal, "%s panicked: %v", what, r)
	}
}

// FromStatus turns a gRPC error from the call what (e.g. "embedder Embed")
// into a Go error naming it and wrapping the matching sentinel or context
// error, so that callers use errors.Is without knowing about gRPC.
func FromStatus(ctx context.Context, what string, err error) error {
	// A call cut short by the caller's own context reports the context
	// error, whatever code the transport chose.
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("%s: %w", what, cerr)
	}
	st, _ := status.FromError(err)
	switch st.Code() {
	case codes.Canceled:
		// With the caller's context alive, the connection was cancelled
		// under the call: the plugin process is going away.
		return Wrap(what, plugin.ErrUnavailable, st.Message())
	case codes.DeadlineExceeded:
		return Wrap(what, context.DeadlineExceeded, st.Message())
	case codes.Unimplemented:
		return Wrap(what, plugin.ErrUnimplemented, st.Message())
	case codes.InvalidArgument:
		return Wrap(what, plugin.ErrInvalidInput, st.Message())
	case codes.Unavailable:
		return Wrap(what, plugin.ErrUnavailable, st.Message())
	default:
		return fmt.Errorf("%s: %s: %s", what, st.Code(), st.Message())
	}
}

// Wrap is the host-side error of the call what that failed with sentinel and the plugin's
// message msg. An implementation's message usually begins with the sentinel it wrapped
// ("bad answer: not JSON"), which is then said once, not twice.
func Wrap(what string, sentinel error, msg string) error {
	if rest, ok := strings.CutPrefix(msg, sentinel.Error()); ok && (rest == "" || strings.HasPrefix(rest, ": ")) {
		return fmt.Errorf("%s: %w%s", what, sentinel, rest)
	}
	return fmt.Errorf("%s: %w: %s", what, sentinel, msg)
}

// Health runs an implementation's Health for the server method what and says whether it is
// ok and, if not, why. err is no verdict on the plugin: the caller gave up (cancellation is
// not the plugin being unhealthy) or the implementation panicked.
func Health(ctx context.Context, logger hclog.Logger, what string, health func(context.Context) error) (ok bool, msg string, err error) {
	defer Recover(logger, what, &err)
	if herr := health(ctx); herr != nil {
		if ctx.Err() != nil {
			return false, "", status.FromContextError(ctx.Err()).Err()
		}
		return false, herr.Error(), nil
	}
	return true, "", nil
}

// Healthy is the host-side error of the Health answer of the call what: nil when ok, else
// plugin.ErrUnhealthy with the plugin's reason.
func Healthy(what string, ok bool, msg string) error {
	if ok {
		return nil
	}
	return fmt.Errorf("%s: %w: %s", what, plugin.ErrUnhealthy, msg)
}
