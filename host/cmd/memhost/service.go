package main

import (
	"bytes"
	"context"
	"embed"
	"encoding/xml"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/daemon/server"
	"github.com/memhost/memhost/host/internal/plugins"
)

// The unit and the agent are generated from one template each, so install, the tests and
// --print all show the same file.
//
//go:embed service/memhost.service.tmpl service/memhost.plist.tmpl
var serviceTemplates embed.FS

// serviceLabel names the launchd agent (reverse-DNS, as launchd expects).
const serviceLabel = "dev.memhost.memhost"

// serviceUnit is what a template is filled with.
type serviceUnit struct {
	Root    string // the checkout or unpacked archive: WorkingDirectory
	Memhost string // its bin/memhost, started as `memhost up`
	Path    string // PATH at install time: a service manager's own PATH lacks Homebrew and Go's
	Label   string
	Log     string // launchd only: where stdout and stderr go
	// Env are the variables the configured workers and embedders are given (their API keys,
	// an agent CLI's login, a worker's env list) with their values at install time: a
	// service manager starts the host without the login shell's environment.
	Env []serviceVar
}

// serviceVar is one variable the unit sets.
type serviceVar struct{ Name, Value string }

// servicePlatform is how one platform's service manager takes a user service.
type servicePlatform struct {
	name     string
	file     string
	template string
	// session is a read-only command that fails when no service manager of the user's can
	// be reached, and noSession says what to do then.
	session   []string
	noSession string
	install   [][]string
	uninstall [][]string
	status    []string
	logs      string
}

func platformFor(goos, home string) (servicePlatform, error) {
	switch goos {
	case "linux":
		conf := os.Getenv("XDG_CONFIG_HOME")
		if conf == "" {
			conf = filepath.Join(home, ".config")
		}
		return servicePlatform{
			name: "systemd user unit", file: filepath.Join(conf, "systemd", "user", "memhost.service"),
			template: "service/memhost.service.tmpl",
			session:  []string{"systemctl", "--user", "show-environment"},
			noSession: "no systemd user session here: run `memhost up` from your login instead, or enable lingering so your user's " +
				"systemd runs without a login (sudo loginctl enable-linger $USER), then log in again (or export " +
				"XDG_RUNTIME_DIR=/run/user/$(id -u)) and run memhost service install again",
			install: [][]string{
				{"systemctl", "--user", "daemon-reload"},
				{"systemctl", "--user", "enable", "--now", "memhost.service"},
			},
			uninstall: [][]string{
				{"systemctl", "--user", "disable", "--now", "memhost.service"},
				{"systemctl", "--user", "daemon-reload"},
			},
			status: []string{"systemctl", "--user", "status", "--no-pager", "memhost.service"},
			logs: "journalctl --user -u memhost -f   (to keep it running while you are logged out, and start it at boot: " +
				"loginctl enable-linger $USER)",
		}, nil
	case "darwin":
		domain := "gui/" + strconv.Itoa(os.Getuid())
		file := filepath.Join(home, "Library", "LaunchAgents", serviceLabel+".plist")
		return servicePlatform{
			name: "launchd agent", file: file, template: "service/memhost.plist.tmpl",
			session:   []string{"launchctl", "print", domain},
			noSession: "no launchd session of yours here (" + domain + "): log in at the Mac itself, or run `memhost up` from your login instead",
			install:   [][]string{{"launchctl", "bootstrap", domain, file}},
			uninstall: [][]string{{"launchctl", "bootout", domain + "/" + serviceLabel}},
			status:    []string{"launchctl", "print", domain + "/" + serviceLabel},
			logs:      filepath.Join(home, "Library", "Logs", "memhost", "memhost.log") + "   (Console.app shows it too)",
		}, nil
	}
	return servicePlatform{}, fmt.Errorf("memhost service: %s has no supported service manager (linux: systemd, darwin: launchd)", goos)
}

// render fills p's template for the memhost installed at root, setting env.
func (p servicePlatform) render(root, home string, env []serviceVar) ([]byte, error) {
	// systemd refuses an executable path with these even quoted ("contains special characters").
	if p.template == "service/memhost.service.tmpl" && strings.ContainsAny(root, "\"\\\n") {
		return nil, fmt.Errorf("memhost service: systemd cannot start a program whose path holds a quote, backslash or newline: %q; move the folder", root)
	}
	t, err := template.New(filepath.Base(p.template)).Funcs(template.FuncMap{
		"sd":     systemdQuote,
		"sdpath": systemdPath,
		"sdurl":  systemdFileURL,
		"xml":    xmlEscape,
	}).ParseFS(serviceTemplates, p.template)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = t.Execute(&b, serviceUnit{
		Root: root, Memhost: filepath.Join(root, "bin", "memhost"), Path: os.Getenv("PATH"), Label: serviceLabel,
		Log: filepath.Join(home, "Library", "Logs", "memhost", "memhost.log"), Env: env,
	})
	return b.Bytes(), err
}

// serviceEnv is what the service's workers and embedders need from the installer's
// environment: each variable the configuration of the memhost at root gives its plugins
// (ServiceEnv), with its value now; missing lists those it names itself but are not set here.
func serviceEnv(ctx context.Context, root string) (env []serviceVar, missing []string, err error) {
	// The service runs memhost up, which reads root's .memhost/memhost.toml and, of the
	// environment, only what the unit sets: the configuration is read the same way.
	cfg, err := config.Load(ctx, config.LoadOptions{WorkDir: root, Environ: []string{}})
	if err != nil {
		return nil, nil, err
	}
	all, named := server.ServiceEnv(cfg, exec.LookPath)
	for _, name := range all {
		if v, ok := os.LookupEnv(name); ok {
			env = append(env, serviceVar{Name: name, Value: v})
		} else if slices.Contains(named, name) {
			missing = append(missing, name)
		}
	}
	return env, missing, nil
}

// checkSession fails, saying what to do, when p's service manager cannot be reached: before
// anything is written, so a failed install leaves nothing behind.
func (p servicePlatform) checkSession(cmd *cobra.Command) error {
	out, err := exec.CommandContext(cmd.Context(), p.session[0], p.session[1:]...).CombinedOutput()
	if err == nil {
		return nil
	}
	said := strings.TrimSpace(string(out))
	if said == "" {
		said = err.Error()
	}
	return fmt.Errorf("memhost service: %s (%s: %s); nothing was written", p.noSession, strings.Join(p.session, " "), plugins.OneLine(said, 200))
}

// systemdQuote makes s one word of a unit file line: quoted, with systemd's escapes and its
// % specifiers doubled (render has refused paths with quotes; PATH may still hold them).
func systemdQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "%", "%%")
	return `"` + r.Replace(s) + `"`
}

// systemdPath is a path setting (WorkingDirectory): taken whole, unquoted, with specifiers.
func systemdPath(s string) string { return strings.ReplaceAll(s, "%", "%%") }

// systemdFileURL is a file:// URL for Documentation: percent-encoded, then specifier-escaped.
func systemdFileURL(path string) string {
	return systemdPath((&url.URL{Scheme: "file", Path: path}).String())
}

func xmlEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

func serviceCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "service",
		Short: "Run memhost as a user service that starts at login: install, uninstall, status",
		Long: `Run memhost up as a user service, so the host (and the CLIs wired with memhost connect) keep
working after a reboot: a systemd user unit on Linux (logs: journalctl --user -u memhost), a
launchd agent on macOS (logs: ~/Library/Logs/memhost/memhost.log). Stop make run first: both
serve the same port and cluster.`,
	}
	c.PersistentFlags().String("platform", runtime.GOOS, "service manager to write for: linux (systemd) or darwin (launchd)")
	_ = c.PersistentFlags().MarkHidden("platform")
	install := &cobra.Command{
		Use:   "install",
		Short: "Write the unit (agent) for this memhost and start it; --print shows it instead",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, root, home, err := servicePlatformOf(cmd)
			if err != nil {
				return err
			}
			env, missing, err := serviceEnv(cmd.Context(), root)
			if err != nil {
				return err
			}
			body, err := p.render(root, home, env)
			if err != nil {
				return err
			}
			if show, _ := cmd.Flags().GetBool("print"); show {
				_, err := cmd.OutOrStdout().Write(body)
				return err
			}
			if err := p.checkSession(cmd); err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(p.file), 0o755); err != nil {
				return fmt.Errorf("create %s: %w", filepath.Dir(p.file), err)
			}
			if p.template == "service/memhost.plist.tmpl" {
				if err := os.MkdirAll(filepath.Join(home, "Library", "Logs", "memhost"), 0o755); err != nil {
					return err
				}
			}
			before, err := os.ReadFile(p.file)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("read %s: %w", p.file, err)
			}
			// The values may be keys: only the user reads the file.
			if err := os.WriteFile(p.file, body, 0o600); err != nil {
				return fmt.Errorf("write %s: %w", p.file, err)
			}
			if err := os.Chmod(p.file, 0o600); err != nil {
				return fmt.Errorf("write %s: %w", p.file, err)
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "wrote %s (%s running %s up)\n", p.file, p.name, filepath.Join(root, "bin", "memhost"))
			if len(env) > 0 {
				names := make([]string, len(env))
				for i, v := range env {
					names[i] = v.Name
				}
				fmt.Fprintf(out, "it sets what the workers and embedders are given: %s (their values now; run memhost service install again after changing them)\n",
					strings.Join(names, ", "))
			}
			for _, name := range missing {
				fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s is named in the configuration but not set here, so the service will not have it\n", name)
			}
			for _, argv := range p.install {
				if err := runManager(cmd, argv); err != nil {
					// What was there before is put back, so status does not report a service
					// that never started.
					if before != nil {
						_ = os.WriteFile(p.file, before, 0o600)
					} else {
						_ = os.Remove(p.file)
					}
					return err
				}
			}
			fmt.Fprintf(out, "memhost is running as a %s. Logs: %s\n", p.name, p.logs)
			return nil
		},
	}
	install.Flags().Bool("print", false, "print the unit (agent) and change nothing")
	uninstall := &cobra.Command{
		Use:   "uninstall",
		Short: "Stop the service and remove its unit (agent)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, installed, err := installedService(cmd, "no memhost service installed (%s does not exist)\n")
			if err != nil || !installed {
				return err
			}
			// Stopping first: the manager has to know the unit to stop it. A unit the manager
			// no longer knows is removed anyway.
			if err := runManager(cmd, p.uninstall[0]); err != nil {
				fmt.Fprintln(cmd.ErrOrStderr(), "memhost service:", err)
			}
			if err := os.Remove(p.file); err != nil {
				return err
			}
			for _, argv := range p.uninstall[1:] {
				if err := runManager(cmd, argv); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "removed %s\n", p.file)
			return nil
		},
	}
	status := &cobra.Command{
		Use:   "status",
		Short: "The service manager's view of memhost: installed, running, recent log lines",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, installed, err := installedService(cmd, "not installed (%s does not exist); install: memhost service install\n")
			if err != nil || !installed {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "installed: %s\nlogs: %s\n", p.file, p.logs)
			// systemctl status exits 3 for a stopped unit: its report is the answer, not a failure.
			out, err := exec.CommandContext(cmd.Context(), p.status[0], p.status[1:]...).CombinedOutput()
			_, _ = cmd.OutOrStdout().Write(out)
			var exit *exec.ExitError
			if err != nil && !errors.As(err, &exit) {
				return fmt.Errorf("%s: %w", strings.Join(p.status, " "), err)
			}
			return nil
		},
	}
	c.AddCommand(install, uninstall, status)
	return c
}

// installedService is this platform's service and whether its unit is installed; when it is
// not, it says so on standard output (notInstalled, with the unit's path).
func installedService(cmd *cobra.Command, notInstalled string) (p servicePlatform, installed bool, err error) {
	if p, _, _, err = servicePlatformOf(cmd); err != nil {
		return p, false, err
	}
	if _, err := os.Stat(p.file); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(cmd.OutOrStdout(), notInstalled, p.file)
		return p, false, nil
	}
	return p, true, nil
}

func servicePlatformOf(cmd *cobra.Command) (p servicePlatform, root, home string, err error) {
	if root, err = installRoot(); err != nil {
		return p, "", "", err
	}
	if home, err = os.UserHomeDir(); err != nil {
		return p, "", "", err
	}
	goos, _ := cmd.Flags().GetString("platform")
	p, err = platformFor(goos, home)
	return p, root, home, err
}

// runManager runs one systemctl/launchctl step, passing its output through, and names the
// command when it fails so the operator can run it by hand.
func runManager(cmd *cobra.Command, argv []string) error {
	c := exec.CommandContext(cmd.Context(), argv[0], argv[1:]...)
	c.Stdout, c.Stderr = cmd.OutOrStdout(), cmd.ErrOrStderr()
	if err := c.Run(); err != nil {
		return fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
	}
	return nil
}
