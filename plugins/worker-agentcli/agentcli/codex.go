package agentcli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pelletier/go-toml/v2"

	"github.com/memhost/memhost/sdk/worker"
)

// codex runs `codex exec --json` with CODEX_HOME pointing at a scratch home
// that holds only
//
//   - a link to the user's auth.json (their login, refreshed in place);
//   - config.toml with the user's model and model provider settings and
//     nothing else: no [mcp_servers] (memhost connect put memhost's there),
//     no hooks, no notify program, no profiles; plugins, apps, analytics
//     and the update check off; the host's instructions as
//     developer_instructions.
//
// No AGENTS.md is there, so no banner either. --ephemeral writes no rollout,
// -s read-only lets no command change anything, --output-schema makes the
// model answer in the task's schema, and the input is read from stdin ("-").
type codex struct {
	model string
	env   []string
}

// codexKept are the user's config.toml keys a worker's run keeps: which
// model answers, through which provider, and how the login is stored.
var codexKept = []string{
	"model", "model_provider", "model_providers", "model_reasoning_effort",
	"openai_base_url", "chatgpt_base_url", "forced_login_method", "forced_chatgpt_workspace_id",
	"cli_auth_credentials_store",
}

func (c codex) prepare(s scratch, p prompt, _ Config, _ int) ([]string, map[string]string, error) {
	user := userDir(c.env, "CODEX_HOME", "", ".codex")
	if err := linkFiles(user, s.home, "auth.json"); err != nil {
		return nil, nil, err
	}
	config, err := c.config(filepath.Join(user, "config.toml"), p.system)
	if err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(s.home, "config.toml"), config, 0o600); err != nil {
		return nil, nil, err
	}
	args := []string{"exec", "--json", "--skip-git-repo-check", "--ephemeral", "-s", "read-only", "--color", "never", "--ignore-rules"}
	if p.schema != "" {
		schema := filepath.Join(s.dir, "schema.json")
		if err := os.WriteFile(schema, []byte(p.schema), 0o600); err != nil {
			return nil, nil, err
		}
		args = append(args, "--output-schema", schema)
	}
	if c.model != "" {
		args = append(args, "-m", c.model)
	}
	args = append(args, "-")
	return args, map[string]string{"CODEX_HOME": s.home}, nil
}

// config builds the run's config.toml from the user's at path.
func (c codex) config(path, instructions string) ([]byte, error) {
	doc := map[string]any{}
	raw, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		var user map[string]any
		if err := toml.Unmarshal(raw, &user); err != nil {
			return nil, fmt.Errorf("the user's config.toml is not TOML: %w", err)
		}
		for _, k := range codexKept {
			if v, ok := user[k]; ok {
				doc[k] = v
			}
		}
	}
	doc["developer_instructions"] = instructions
	doc["check_for_update_on_startup"] = false
	doc["features"] = map[string]any{"plugins": false, "apps": false}
	// Codex 0.169 otherwise sends analytics to ab.chatgpt.com on every run
	// (seen by make e2e-cli), and the user's own setting is not kept.
	doc["analytics"] = map[string]any{"enabled": false}
	return toml.Marshal(doc)
}

// codexEvent is one line of `codex exec --json`.
type codexEvent struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	Item    *struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Message string `json:"message"`
	} `json:"item"`
	Usage *struct {
		InputTokens  int `json:"input_tokens"`
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

func (c codex) answer(r ran) (worker.Answer, error) {
	out, err := runOutput(Codex, r, true)
	if err != nil {
		return worker.Answer{}, err
	}
	var (
		a         = worker.Answer{Model: c.model}
		completed bool
		answered  bool
		lastError string
	)
	for _, line := range bytes.Split(out, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var e codexEvent
		if err := json.Unmarshal(line, &e); err != nil {
			return worker.Answer{}, fmt.Errorf("%w: codex printed an event that is not its shape: %s", worker.ErrBadAnswer, quote(string(line)))
		}
		switch {
		case e.Type == "item.completed" && e.Item != nil && e.Item.Type == "agent_message":
			a.Text, answered = e.Item.Text, true
		case e.Type == "item.completed" && e.Item != nil && e.Item.Type == "error":
			// Codex reports warnings this way too (an unknown model's
			// metadata): only a turn that fails is a failure.
			lastError = e.Item.Message
		case e.Type == "error":
			lastError = e.Message
		case e.Type == "turn.failed":
			msg := lastError
			if e.Error != nil {
				msg = e.Error.Message
			}
			return worker.Answer{}, cliError(Codex, msg)
		case e.Type == "turn.completed":
			completed = true
			if e.Usage != nil {
				a.Usage = &worker.Usage{InputTokens: e.Usage.InputTokens, OutputTokens: e.Usage.OutputTokens}
			}
		}
	}
	switch {
	case !completed && lastError != "":
		return worker.Answer{}, cliError(Codex, lastError)
	case r.err != nil:
		return worker.Answer{}, failed(Codex, r)
	case !completed || !answered:
		return worker.Answer{}, fmt.Errorf("%w: codex finished without an agent message", worker.ErrBadAnswer)
	}
	return a, nil
}
