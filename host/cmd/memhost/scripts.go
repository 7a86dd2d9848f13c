package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
)

// installRoot is the folder a memhost binary was installed from: a checkout or an unpacked
// release archive, both laid out as bin/memhost, bin/plugins/ and scripts/.
func installRoot() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the memhost binary: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", fmt.Errorf("find the memhost binary: %w", err)
	}
	return filepath.Dir(filepath.Dir(exe)), nil
}

// execScript replaces memhost with one of the scripts beside it, so that the script's
// process is the one a terminal's Ctrl-C or a service manager's stop signal reaches: the
// scripts are the one owner of starting and stopping the private cluster (make run and
// make stop run the same files).
func execScript(name string, args ...string) error {
	root, err := installRoot()
	if err != nil {
		return err
	}
	script := filepath.Join(root, "scripts", name)
	if _, err := os.Stat(script); err != nil {
		return fmt.Errorf("%s not found: this command runs from a checkout or an unpacked release archive (bin/memhost beside scripts/)", script)
	}
	return syscall.Exec(script, append([]string{script}, args...), os.Environ())
}

func upCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "up",
		Short: "Start everything: PostgreSQL + pgvector (a private cluster in .memhost, or MEMHOST_DATABASE_URL), migrations, the host",
		Long: `Start memhost the way make run does, without building: provide PostgreSQL 14-18 + pgvector (the
private cluster in .memhost beside bin/, unless MEMHOST_DATABASE_URL names a database), write
.memhost/memhost.toml once, apply migrations and serve in the foreground. Ctrl-C (or SIGTERM)
stops the host, its plugins and the private cluster it started. Runs scripts/run.sh.`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error { return execScript("run.sh") },
	}
}

func stopCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "stop",
		Short: "Stop what memhost up / make run started: the host, its plugins and the private cluster",
		Args:  cobra.NoArgs,
		RunE:  func(*cobra.Command, []string) error { return execScript("stop.sh") },
	}
}

func uninstallCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "uninstall",
		Short: "Remove what memhost created (service, private cluster, state, caches) and print what it leaves",
		Long: `First, name the CLIs wired with memhost connect: take memhost out of them with
memhost connect --undo CLI before uninstalling (their settings start this memhost, and only it
undoes them from its backups in ~/.config/memhost/connect/); --yes refuses while one is connected.
Then stop everything, remove the user service, the .memhost folder (the private cluster and its
data: export projects first), memhost's caches and a cluster setup placed in /var/lib/memhost,
and print what setup recorded installing (PostgreSQL and pgvector packages, pgvector built from
source, the deb-src list, build tools, Node.js) with the commands that remove it: never a
PostgreSQL that was there before. Without --yes it only lists what it would remove.
Runs scripts/uninstall.sh.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if yes, _ := cmd.Flags().GetBool("yes"); yes {
				return execScript("uninstall.sh", "--yes")
			}
			return execScript("uninstall.sh")
		},
	}
	c.Flags().Bool("yes", false, "remove (default: only list what would be removed)")
	return c
}
