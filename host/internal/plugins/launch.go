package plugins

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	goplugin "github.com/hashicorp/go-plugin"

	"github.com/memhost/memhost/sdk/plugin"
)

// instance is one running plugin process.
type instance struct {
	client  *goplugin.Client
	raw     any // the value dispensed for the kind, handed to its adapter
	ident   Identity
	pid     int
	started time.Time
	relay   *outputRelay
	streams []*lineWriter
}

// kill ends the process and waits for it and for its output to be logged;
// go-plugin first asks it to exit and force-kills it after two seconds. Safe
// to call more than once.
func (i *instance) kill() {
	i.client.Kill()
	for _, w := range i.streams {
		w.flush()
	}
}

// withLastWords adds what a dead process said last to err, which is often
// the only explanation of a crash (a panic, a missing setting). Call it after
// kill, when the output has been read to the end.
func (i *instance) withLastWords(err error) error {
	if words := i.relay.lastWords(); words != "" {
		return fmt.Errorf("%w (last output: %s)", err, words)
	}
	return err
}

// launch starts c's binary, dispenses its kind and asks the adapter who the
// plugin is.
func (s *Supervisor) launch(c Candidate) (*instance, error) {
	adapter, ok := s.adapters[c.Kind]
	if !ok {
		return nil, fmt.Errorf("plugin kind %q is not supported by this host", c.Kind)
	}
	cmd := exec.Command(c.Path)
	cmd.Env = append(pluginEnv(), c.Env...)
	if s.cfg.SocketDir != "" {
		cmd.Env = append(cmd.Env, goplugin.EnvUnixSocketDir+"="+s.cfg.SocketDir)
	}
	if err := socketDirUsable(cmd.Env); err != nil {
		return nil, err
	}
	configureCmd(cmd)
	logger := s.logger.Named(c.Kind + "-" + c.Name)
	inst := &instance{relay: newOutputRelay(logger)}
	stderr, syncStderr, syncStdout := inst.relay.stream("stderr"), inst.relay.stream("stderr"), inst.relay.stream("stdout")
	inst.streams = []*lineWriter{stderr, syncStderr, syncStdout}
	cfg := &goplugin.ClientConfig{
		HandshakeConfig:  plugin.Handshake,
		VersionedPlugins: plugin.VersionedPlugins(adapter.SDKKind()),
		Cmd:              cmd,
		// nil would mean net/rpc only.
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		AutoMTLS:         s.cfg.SocketDir == "",
		SkipHostEnv:      true, // cmd.Env is the allow-listed environment
		// Not Managed: go-plugin never drops managed clients from its global
		// list, so every restart would leak one. Shutdown and KillAll play
		// the role of goplugin.CleanupClients.
		Managed:      false,
		StartTimeout: s.cfg.StartTimeout,
		Logger:       muteRelay{Logger: logger, binary: filepath.Base(c.Path)},
		// The process's stderr, and what a Go plugin writes to os.Stderr and
		// os.Stdout after Serve (go-plugin carries those over gRPC).
		Stderr:     stderr,
		SyncStderr: syncStderr,
		SyncStdout: syncStdout,
	}
	if c.Checksum != "" {
		sum, err := hex.DecodeString(c.Checksum)
		if err != nil {
			return nil, fmt.Errorf("bad checksum %q: %w", c.Checksum, err)
		}
		// A fresh hash per launch: SecureConfig.Check writes into it.
		cfg.SecureConfig = &goplugin.SecureConfig{Checksum: sum, Hash: sha256.New()}
	}
	inst.client = goplugin.NewClient(cfg)
	fail := func(err error) (*instance, error) {
		inst.kill()
		return nil, inst.withLastWords(err)
	}
	rpc, err := inst.client.Client()
	if err != nil {
		if errors.Is(err, goplugin.ErrChecksumsDoNotMatch) {
			inst.kill()
			return nil, fmt.Errorf("%w: %s changed since it was allow-listed", ErrChecksumMismatch, c.Path)
		}
		return fail(fmt.Errorf("launch: %w", err))
	}
	inst.pid, inst.started = cmd.Process.Pid, time.Now()
	if inst.raw, err = rpc.Dispense(c.Kind); err != nil {
		return fail(fmt.Errorf("dispense %s: %w", c.Kind, err))
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.CallTimeout)
	defer cancel()
	start := time.Now()
	ident, err := adapter.Identify(ctx, inst.raw)
	if err == nil && ident.Name == "" {
		err = errors.New("the plugin reported an empty name")
	}
	label, result := c.Name, "ok"
	if err == nil {
		label = ident.Name
	} else {
		result = resultLabel(adapter, "Identify", err)
	}
	s.metrics.observe(c.Kind, label, "Identify", start, result)
	if err != nil {
		return fail(fmt.Errorf("identify: %w", err))
	}
	inst.ident = ident
	return inst, nil
}

// socketDirUsable checks that a plugin started with env can create its socket: go-plugin makes
// it in PLUGIN_UNIX_SOCKET_DIR, else TMPDIR, else /tmp, and a plugin that cannot only stops
// before its handshake, which the host reads as "Unrecognized remote plugin message". The
// host and its plugins run as one user, so the host can try for them.
func socketDirUsable(env []string) error {
	name, dir := "TMPDIR", "/tmp"
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == goplugin.EnvUnixSocketDir && v != "":
			name, dir = goplugin.EnvUnixSocketDir, v
		case k == "TMPDIR" && v != "" && name == "TMPDIR":
			dir = v
		}
	}
	f, err := os.CreateTemp(dir, ".memhost-plugin-socket-check-*")
	if err != nil {
		return fmt.Errorf("%s=%s is not writable by this user (uid %d), and plugins make their sockets there: set %s to a folder it can write: %w",
			name, dir, os.Getuid(), name, err)
	}
	_ = f.Close()
	_ = os.Remove(f.Name())
	return nil
}
