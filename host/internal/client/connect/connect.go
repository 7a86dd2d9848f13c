package connect

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/aymanbagabas/go-udiff"

	"github.com/memhost/memhost/sdk/provider"
)

// Options describe one connect or undo.
type Options struct {
	// CLI is the CLI's name (claude, codex, gemini): its provider plugin's, and the folder of
	// its backups.
	CLI string
	// Provider is the CLI's provider plugin, which answers what connecting it takes.
	Provider Planner
	// Env is the user's environment: where the CLI keeps its configuration (HOME,
	// CLAUDE_CONFIG_DIR, CODEX_HOME, GEMINI_CLI_HOME) and PATH to find it.
	Env map[string]string
	// Executable is the CLI's executable: a name looked up on Env's PATH (the provider's
	// provider.Info.Executable, say), or a path.
	Executable string
	// Hook is the shell command of the SessionStart hook (memhost's absolute path, its
	// --config, `hook session-start --cli CLI`).
	Hook string
	// Memhost is memhost's absolute path: the CLI starts `Memhost mcp` as its stdio MCP
	// server, in the session's directory.
	Memhost string
	// Config is the operator's configuration file, given to that server as MEMHOST_CONFIG
	// ("" gives none: memhost's own default applies).
	Config string
	// StateDir holds each CLI's backups and record, in a folder per CLI.
	StateDir string
	// Revoke revokes the token a connection made by an earlier memhost registered (its record
	// names it); nil leaves such a token to the operator.
	Revoke func(ctx context.Context, id string) error
	// Yes applies without asking; otherwise In must answer y.
	Yes bool
	In  io.Reader
	Out io.Writer
}

// ErrNotConfirmed is returned when the user did not answer yes: nothing was changed.
var ErrNotConfirmed = errors.New("not confirmed; nothing was changed (pass --yes to apply without asking)")

// step is one change to one of the user's files: a command of the CLI that changes it, or an
// edit memhost makes.
type step struct {
	file string
	// run is the CLI's arguments; show is the command as printed.
	run  []string
	show string
	edit func(before []byte) ([]byte, error)
}

// tokenPattern finds a memhost token (auth.TokenPrefix and 256 bits in base64url) in what
// connect shows: a file that an earlier memhost connect wrote holds one.
var tokenPattern = regexp.MustCompile(`mh_[A-Za-z0-9_-]{16,}`)

// maskTokens replaces every token in s, so no diff or command connect prints shows one.
func maskTokens(s string) string { return tokenPattern.ReplaceAllString(s, "mh_REDACTED") }

func (o Options) stateDir() string { return filepath.Join(o.StateDir, o.CLI) }

// Connect registers memhost in the CLI's configuration; see the package documentation.
func Connect(ctx context.Context, o Options) error {
	if st, err := readState(o.stateDir()); err != nil {
		return err
	} else if st != nil {
		fmt.Fprintf(o.Out, "%s is connected already (since %s); nothing to change. memhost connect --undo %s removes it.\n",
			o.CLI, st.ConnectedAt.Local().Format("2006-01-02 15:04"), o.CLI)
		return nil
	}
	plan, err := o.plan(ctx, o.Hook)
	if err != nil {
		return err
	}
	if plan.RegisteredIn != "" {
		return fmt.Errorf("%s already has an MCP server named memhost in %s, registered outside memhost connect; remove it first", o.CLI, plan.RegisteredIn)
	}
	steps := connectSteps(o, plan)
	fmt.Fprintf(o.Out, "memhost connect %s will:\n", o.CLI)
	if err := show(o, steps); err != nil {
		return err
	}
	if err := confirm(o); err != nil {
		return err
	}
	if err := apply(ctx, o, steps, &state{CLI: o.CLI, ConnectedAt: time.Now().UTC(), Hook: o.Hook}); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "connected %s; undo with: memhost connect --undo %s\n", o.CLI, o.CLI)
	return nil
}

// show prints each step: a command as it will run, an edit as a unified diff.
func show(o Options, steps []step) error {
	for _, s := range steps {
		if s.run != nil {
			fmt.Fprintf(o.Out, "  run: %s\n    (it changes %s)\n", maskTokens(s.show), s.file)
			continue
		}
		before, _, err := readFile(s.file)
		if err != nil {
			return err
		}
		after, err := s.edit(before)
		if err != nil {
			return err
		}
		fmt.Fprintf(o.Out, "  edit %s:\n%s", s.file, indent(maskTokens(udiff.Unified(s.file, s.file+" (after)", string(before), string(after)))))
	}
	fmt.Fprintf(o.Out, "  backups and a record go to %s\n", o.stateDir())
	return nil
}

func indent(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if line != "" {
			b.WriteString("    " + line)
		}
	}
	return b.String()
}

// confirm asks unless Yes.
func confirm(o Options) error {
	if o.Yes {
		return nil
	}
	fmt.Fprint(o.Out, "Apply? [y/N] ")
	line, _ := bufio.NewReader(o.In).ReadString('\n')
	if answer := strings.ToLower(strings.TrimSpace(line)); answer != "y" && answer != "yes" {
		fmt.Fprintln(o.Out)
		return ErrNotConfirmed
	}
	return nil
}

// apply runs the steps, backing each file up before its first change, and writes the record.
// When a step fails, every file is put back as it was.
func apply(ctx context.Context, o Options, steps []step, st *state) error {
	dir := o.stateDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	rollback := func(err error) error {
		for i := len(st.Files) - 1; i >= 0; i-- {
			_ = restore(dir, st.Files[i])
		}
		removeCreatedDirs(st.CreatedDirs)
		_ = os.RemoveAll(dir)
		return err
	}
	for _, s := range steps {
		if !slices.ContainsFunc(st.Files, func(f fileRecord) bool { return f.Path == s.file }) {
			rec, err := backup(dir, s.file, len(st.Files))
			if err != nil {
				return rollback(err)
			}
			st.Files = append(st.Files, rec)
		}
		if err := ensureDir(filepath.Dir(s.file), st); err != nil {
			return rollback(err)
		}
		if err := runStep(ctx, o, s); err != nil {
			return rollback(err)
		}
	}
	for i := range st.Files {
		data, exists, err := readFile(st.Files[i].Path)
		if err != nil {
			return rollback(err)
		}
		st.Files[i].After = digest(data, exists)
	}
	if err := st.write(dir); err != nil {
		return rollback(err)
	}
	return nil
}

// ensureDir creates dir (the CLI's configuration folder of a user who never ran it) and
// records what it created, for undo to remove.
func ensureDir(dir string, st *state) error {
	var created []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil || d == filepath.Dir(d) {
			break
		}
		created = append(created, d)
	}
	if len(created) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	st.CreatedDirs = append(st.CreatedDirs, created...)
	return nil
}

// runStep runs a CLI command or applies an edit.
func runStep(ctx context.Context, o Options, s step) error {
	if s.run != nil {
		exe, err := executable(o)
		if err != nil {
			return err
		}
		cmd := exec.CommandContext(ctx, exe, s.run...)
		cmd.Env = envList(o.Env)
		cmd.Dir = o.Env["HOME"]
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s failed: %w: %s", maskTokens(s.show), err, maskTokens(strings.TrimSpace(string(out))))
		}
		return nil
	}
	before, _, err := readFile(s.file)
	if err != nil {
		return err
	}
	after, err := s.edit(before)
	if err != nil {
		return err
	}
	return writeFile(s.file, after)
}

// executableName is the CLI's executable as connect shows it.
func (o Options) executableName() string {
	if o.Executable == "" {
		return o.CLI
	}
	return o.Executable
}

// executable is the CLI's path.
func executable(o Options) (string, error) {
	name := o.executableName()
	if strings.Contains(name, "/") {
		return name, nil
	}
	for _, dir := range filepath.SplitList(o.Env["PATH"]) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); dir != "" && err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: not found on PATH (install it, or name it with --bin)", name)
}

func envList(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// Undo takes memhost out of the CLI's configuration; see the package documentation.
func Undo(ctx context.Context, o Options) error {
	dir := o.stateDir()
	st, err := readState(dir)
	if err != nil {
		return err
	}
	if st == nil {
		fmt.Fprintf(o.Out, "%s is not connected by memhost connect; nothing to undo.\n", o.CLI)
		return nil
	}

	var plan *provider.Connection
	var restores []fileRecord
	var surgery []step
	keep := false // a backup of a file that is edited rather than restored
	for i := len(st.Files) - 1; i >= 0; i-- {
		f := st.Files[i]
		data, exists, err := readFile(f.Path)
		if err != nil {
			return err
		}
		if digest(data, exists) == f.After {
			restores = append(restores, f)
			continue
		}
		if plan == nil {
			// The provider's plan, asked again, names memhost's entries; its inverse takes
			// them out of a file that changed since connect.
			hook := st.Hook
			if hook == "" {
				hook = o.Hook
			}
			p, err := o.plan(ctx, hook)
			if err != nil {
				return err
			}
			plan = &p
		}
		surgery = append(surgery, undoSteps(o, *plan, f.Path)...)
		keep = keep || f.Existed
	}
	fmt.Fprintf(o.Out, "memhost connect --undo %s will:\n", o.CLI)
	for _, f := range restores {
		what := "restore it byte for byte from " + filepath.Join(dir, f.Backup)
		if !f.Existed {
			what = "remove it (it did not exist before)"
		}
		fmt.Fprintf(o.Out, "  %s: unchanged since connect; %s\n", f.Path, what)
	}
	if len(surgery) > 0 {
		fmt.Fprintln(o.Out, "  changed since connect, so only memhost's entries are taken out:")
		if err := show(o, surgery); err != nil {
			return err
		}
	}
	if err := confirm(o); err != nil {
		return err
	}
	for _, f := range restores {
		if err := restore(dir, f); err != nil {
			return err
		}
	}
	for _, s := range surgery {
		if err := runStep(ctx, o, s); err != nil {
			return err
		}
	}
	removeCreatedDirs(st.CreatedDirs)
	if st.TokenID != "" && o.Revoke != nil {
		if err := o.Revoke(ctx, st.TokenID); err != nil {
			fmt.Fprintf(o.Out, "could not revoke the connection's token %s (memhost token revoke %s): %v\n", st.TokenID, st.TokenID, err)
		}
	}
	if keep {
		// The originals stay available; only the record goes.
		fmt.Fprintf(o.Out, "disconnected %s; the files as they were before connect are kept in %s\n", o.CLI, dir)
		return os.Remove(filepath.Join(dir, stateFile))
	}
	fmt.Fprintf(o.Out, "disconnected %s\n", o.CLI)
	return os.RemoveAll(dir)
}

// removeCreatedDirs removes the directories connect created, if they are empty (deepest
// first: they were recorded from the deepest up).
func removeCreatedDirs(dirs []string) {
	for _, d := range dirs {
		_ = os.Remove(d)
	}
}

// stateFile is the record of a connection, in its CLI's state folder.
const stateFile = "state.json"

// state is the record of one connection.
type state struct {
	CLI         string    `json:"cli"`
	ConnectedAt time.Time `json:"connected_at"`
	// TokenID is the token an earlier memhost connect minted and registered; undo revokes it.
	TokenID     string       `json:"token_id,omitempty"`
	Hook        string       `json:"hook,omitempty"`
	Files       []fileRecord `json:"files"`
	CreatedDirs []string     `json:"created_dirs,omitempty"`
}

// fileRecord is one of the user's files as connect found and left it.
type fileRecord struct {
	Path    string      `json:"path"`
	Existed bool        `json:"existed"`
	Mode    fs.FileMode `json:"mode,omitempty"`
	// Backup names the copy of the original in the state folder.
	Backup string `json:"backup,omitempty"`
	// After is the digest of the file after connect ("absent" when it did not exist).
	After string `json:"after"`
}

func readState(dir string) (*state, error) {
	data, err := os.ReadFile(filepath.Join(dir, stateFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the connect record: %w", err)
	}
	var st state
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("the connect record %s is damaged: %w", filepath.Join(dir, stateFile), err)
	}
	return &st, nil
}

func (st *state) write(dir string) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, stateFile), append(data, '\n'))
}

// backup copies path into dir as backup number n.
func backup(dir, path string, n int) (fileRecord, error) {
	rec := fileRecord{Path: path}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return rec, nil
	case err != nil:
		return rec, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return rec, err
	}
	rec.Existed, rec.Mode = true, fi.Mode().Perm()
	rec.Backup = fmt.Sprintf("%d-%s", n, filepath.Base(path))
	if err := os.WriteFile(filepath.Join(dir, rec.Backup), data, 0o600); err != nil {
		return rec, fmt.Errorf("back up %s: %w", path, err)
	}
	return rec, nil
}

// restore puts the file back as backed up, or removes it when it did not exist.
func restore(dir string, f fileRecord) error {
	if !f.Existed {
		if err := os.Remove(f.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	data, err := os.ReadFile(filepath.Join(dir, f.Backup))
	if err != nil {
		return fmt.Errorf("read the backup of %s: %w", f.Path, err)
	}
	if err := writeFile(f.Path, data); err != nil {
		return err
	}
	return os.Chmod(f.Path, f.Mode)
}

func readFile(path string) (data []byte, exists bool, err error) {
	data, err = os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return data, true, nil
}

// writeFile replaces path atomically, keeping its mode (0600 for a new file: the CLIs' own
// configuration is the user's business).
func writeFile(path string, data []byte) error {
	mode := fs.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".memhost-")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func digest(data []byte, exists bool) string {
	if !exists {
		return "absent"
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// shellQuote quotes s for a POSIX shell, which runs hook commands.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// HookCommand is the SessionStart hook's command for cli: memhost at exe with its config file
// (none when ""), quoted for the shell the CLIs run hooks with.
func HookCommand(exe, config, cli string) string {
	return hookCommand(exe, config, "session-start", cli)
}

// PromptHookCommand is the prompt hook's command for cli as memhost run registers it:
// HookCommand's for `hook prompt`, with the host memhost run reaches (none when ""); memhost
// run adds the session's key (--session KEY). memhost connect's is derived from HookCommand
// (provider.ConnectRequest.PromptHook).
func PromptHookCommand(exe, config, cli, host string) string {
	cmd := hookCommand(exe, config, "prompt", cli)
	if host != "" {
		cmd += " --host " + shellQuote(host)
	}
	return cmd
}

func hookCommand(exe, config, hook, cli string) string {
	var b bytes.Buffer
	b.WriteString(shellQuote(exe))
	if config != "" {
		b.WriteString(" --config " + shellQuote(config))
	}
	b.WriteString(" hook " + hook + " --cli " + shellQuote(cli))
	return b.String()
}
