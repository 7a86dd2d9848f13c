package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/client/spawn"
	"github.com/memhost/memhost/host/internal/wire"
	"github.com/memhost/memhost/sdk/worker"
)

func promptHookCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "prompt --cli NAME [--session KEY]",
		Short: "Add the facts relevant to a prompt the user submitted (UserPromptSubmit: Claude Code, Codex; BeforeAgent: Gemini CLI)",
		Long: `Print the context of the prompt a CLI's prompt hook reports (prompt, session_id and cwd on
stdin), in the shape the CLI adds to the prompt: {"hookSpecificOutput":{"hookEventName":...,
"additionalContext":"..."}}. The context is the project's facts most relevant to the prompt,
over the relevance floor (brain.prompt_floor), that the session was not given or retrieved
yet, under the 10,000 characters Claude Code shows whole; nothing when none is relevant, or
brain.prompt_context is off. The session's record keeps what was given; the prompt is not kept.

memhost run registers it with --session (its own key for the session); memhost connect without,
and the CLI's session id names the session. In a session memhost run started with its own
prompt hook, memhost connect's stands down. A hook must never hold a prompt up: when memhost
cannot answer, it says why on stderr, prints nothing and exits 0.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cli, _ := cmd.Flags().GetString("cli")
			session, _ := cmd.Flags().GetString("session")
			switch {
			case os.Getenv(worker.RunMarkerEnv) != "":
				return nil // a worker plugin's CLI run: no memory
			case session == "" && spawn.MarkedByRun(os.Getenv, spawn.RunPromptEnv, cli):
				return nil // memhost run's own prompt hook serves this session
			}
			out, err := promptContext(cmd, cli, session)
			if err != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "memhost: no context for this prompt: %v\n", err)
				return nil
			}
			_, err = cmd.OutOrStdout().Write(out)
			return err
		},
	}
	c.Flags().String("cli", "", "the CLI running the hook: claude or gemini (tool names are written as it shows them)")
	c.Flags().String("session", "", "the session's key in its record (memhost run's); default: the CLI's session id")
	c.Flags().String("host", "", "the running host's URL (default http://<server.listen>)")
	addSpawnTokenFlags(c)
	return c
}

// promptContext returns the hook output for the prompt on stdin, or nothing when there is no
// context to add.
func promptContext(cmd *cobra.Command, cli, session string) ([]byte, error) {
	in := readHookInput(cmd.InOrStdin())
	in.Prompt = spawn.HookPrompt(in.Prompt)
	if in.Prompt == "" {
		return nil, nil
	}
	ref := wire.SessionRef{Key: session, CLI: cli, Origin: wire.OriginRun}
	switch {
	case session != "":
	case spawn.MarkedByRun(os.Getenv, spawn.RunSessionEnv, cli) && os.Getenv(spawn.SessionKeyEnv) != "":
		ref.Key = os.Getenv(spawn.SessionKeyEnv) // memhost run's session, its own hook left out
	default:
		ref.Key, ref.Origin = in.SessionID, wire.OriginConnected
	}
	h, done, err := hookAccess(cmd, cli, in.Cwd)
	if err != nil {
		return nil, err
	}
	defer done()
	prompt := in.Prompt
	if len(prompt) > maxHookPrompt {
		prompt = prompt[:maxHookPrompt] // the host searches with its first words
	}
	p, err := h.host.PromptContext(cmd.Context(), h.token, h.key, wire.PromptRequest{Session: ref, Prompt: prompt})
	if err != nil {
		return nil, err
	}
	if p.Text == "" {
		return nil, nil
	}
	event := in.HookEventName
	if event == "" {
		event = promptEvents[cli]
	}
	if event == "" {
		return nil, errors.New("the hook input names no event, and " + cli + " has no prompt hook memhost knows")
	}
	out, err := json.Marshal(map[string]any{"hookSpecificOutput": map[string]string{"hookEventName": event, "additionalContext": p.Text}})
	return append(out, '\n'), err
}

// promptEvents are the prompt hooks' events by CLI, for an input that names none.
var promptEvents = map[string]string{"claude": "UserPromptSubmit", "codex": "UserPromptSubmit", "gemini": "BeforeAgent"}

// maxHookPrompt bounds the prompt sent to the host: the search reads its first thousand bytes
// (brain.MaxTaskQueryBytes), and a pasted file need not travel whole.
const maxHookPrompt = 16 << 10
