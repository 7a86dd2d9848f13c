package plugin

import "errors"

// The errors a host sees from any plugin kind's client, so that it can tell
// the cases apart with errors.Is without knowing gRPC or the kind. Kind
// packages re-export them under their own names (embedder.ErrUnavailable is
// ErrUnavailable), the way os.ErrNotExist is fs.ErrNotExist.
var (
	// ErrUnimplemented means the plugin does not implement the called RPC,
	// for instance an older plugin that predates it. Callers should degrade,
	// not treat the plugin as crashed.
	ErrUnimplemented = errors.New("not implemented by plugin")
	// ErrInvalidInput means the request broke a limit or rule of the plugin
	// (for an embedder: batch larger than MaxBatch, text longer than
	// MaxInputBytes, unknown purpose). It is permanent: retrying the same
	// request fails the same way. Implementations may return errors wrapping
	// it; they reach the host as ErrInvalidInput too.
	ErrInvalidInput = errors.New("invalid input")
	// ErrUnavailable means the plugin process could not be reached (it
	// exited or the connection broke). It is transient: the host restarts
	// the plugin.
	ErrUnavailable = errors.New("plugin unavailable")
	// ErrUnhealthy is returned by a client's Health when the plugin reports
	// itself not ready; the plugin's reason follows it.
	ErrUnhealthy = errors.New("plugin unhealthy")
)
