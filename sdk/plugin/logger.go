package plugin

import (
	"os"

	"github.com/hashicorp/go-hclog"
)

// Logger returns the logger plugins should use: JSON lines on stderr, which
// go-plugin relays to the host's log with their level. Writing to stdout
// would corrupt the handshake, so nothing in a plugin may use it.
func Logger(name string) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Name:       name,
		Level:      hclog.Info,
		Output:     os.Stderr,
		JSONFormat: true,
	})
}
