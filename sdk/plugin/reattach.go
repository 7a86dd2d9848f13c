package plugin

import (
	"errors"
	"fmt"

	goplugin "github.com/hashicorp/go-plugin"
)

// ReattachConfig says where a plugin served in debug mode (for example with
// embedder.WithDebug) listens, so that a test or a host connects to the
// running process instead of launching one. It marshals to JSON, to pass it
// from the debugged process to the one that attaches.
type ReattachConfig struct {
	// Protocol is the wire protocol; always "grpc".
	Protocol string `json:"protocol"`
	// ProtocolVersion is the negotiated plugin protocol version.
	ProtocolVersion int `json:"protocol_version"`
	// Network is "unix" or "tcp"; Address the socket path or host:port.
	Network string `json:"network"`
	Address string `json:"address"`
	// Pid is the plugin process.
	Pid int `json:"pid"`
}

// Validate reports the first field that cannot describe a reachable plugin.
func (r ReattachConfig) Validate() error {
	switch {
	case r.Protocol != string(goplugin.ProtocolGRPC):
		return fmt.Errorf("reattach protocol %q: must be %q", r.Protocol, goplugin.ProtocolGRPC)
	case r.Network != "unix" && r.Network != "tcp":
		return fmt.Errorf("reattach network %q: must be \"unix\" or \"tcp\"", r.Network)
	case r.Address == "":
		return errors.New("reattach address is empty")
	case r.Pid <= 0:
		return fmt.Errorf("reattach pid %d: must be > 0", r.Pid)
	}
	return nil
}

// GoPlugin returns r in the form goplugin.ClientConfig.Reattach takes. Test
// is set: a plugin in debug mode exits by itself, and go-plugin must not
// kill the process it attached to.
func (r ReattachConfig) GoPlugin() *goplugin.ReattachConfig {
	return &goplugin.ReattachConfig{
		Protocol:        goplugin.Protocol(r.Protocol),
		ProtocolVersion: r.ProtocolVersion,
		Addr:            addr{network: r.Network, address: r.Address},
		Pid:             r.Pid,
		Test:            true,
	}
}

// addr is a net.Addr for any network, without resolving it.
type addr struct{ network, address string }

func (a addr) Network() string { return a.network }
func (a addr) String() string  { return a.address }
