package agentcli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/memhost/memhost/sdk/worker"
)

// claude runs `claude -p --output-format json`. Claude Code keeps its home
// (CLAUDE_CONFIG_DIR or ~/.claude, and its credentials there or in the
// keychain) as the user has it; the flags shut out everything memhost
// connect or anyone else configured there:
//
//   - --setting-sources=project: the user's settings.json, where memhost
//     connect put its SessionStart hook, is not read (the scratch working
//     folder has no project settings), and --settings turns every hook off;
//   - --strict-mcp-config with an empty --mcp-config: no MCP server at all,
//     memhost's (~/.claude.json) included;
//   - --tools= (none), --permission-mode=dontAsk, --disable-slash-commands:
//     nothing to run, nothing to approve;
//   - --no-session-persistence: no transcript is written, so the run is in
//     no project's history;
//   - --system-prompt-file: the host's instructions replace Claude Code's
//     agent prompt; --json-schema makes Claude Code check the answer.
//
// Options are given as --flag=value: several take any number of values.
type claude struct{ model string }

func (c claude) prepare(s scratch, p prompt, _ Config, outputCap int) ([]string, map[string]string, error) {
	system := filepath.Join(s.dir, "system-prompt.txt")
	if err := os.WriteFile(system, []byte(p.system), 0o600); err != nil {
		return nil, nil, err
	}
	args := []string{
		"-p", "--output-format=json",
		"--no-session-persistence",
		"--setting-sources=project",
		`--settings={"disableAllHooks":true}`,
		"--strict-mcp-config", `--mcp-config={"mcpServers":{}}`,
		"--tools=", "--permission-mode=dontAsk", "--disable-slash-commands",
		"--system-prompt-file=" + system,
	}
	if p.schema != "" {
		args = append(args, "--json-schema="+p.schema)
	}
	if c.model != "" {
		args = append(args, "--model="+c.model)
	}
	env := map[string]string{
		// Caps the answer at what the budget leaves.
		"CLAUDE_CODE_MAX_OUTPUT_TOKENS": strconv.Itoa(outputCap),
		// No telemetry, update checks or other side traffic.
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
	}
	return args, env, nil
}

// claudeResult is the one JSON object of `claude -p --output-format json`.
type claudeResult struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	IsError          bool            `json:"is_error"`
	Result           string          `json:"result"`
	StructuredOutput json.RawMessage `json:"structured_output"`
	Usage            *struct {
		InputTokens              int `json:"input_tokens"`
		CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int `json:"cache_read_input_tokens"`
		OutputTokens             int `json:"output_tokens"`
	} `json:"usage"`
	ModelUsage map[string]json.RawMessage `json:"modelUsage"`
}

func (c claude) answer(r ran) (worker.Answer, error) {
	res, err := decodeRun(Claude, r, "a result object", func(res claudeResult) bool { return res.Type == "result" })
	if err != nil {
		return worker.Answer{}, err
	}
	switch {
	case res.IsError:
		msg := res.Result
		if msg == "" {
			msg = res.Subtype
		}
		if res.Subtype == "error_max_structured_output_retries" {
			return worker.Answer{}, fmt.Errorf("%w: claude gave no answer satisfying the schema: %s", worker.ErrBadAnswer, quote(msg))
		}
		return worker.Answer{}, cliError(Claude, msg)
	case r.err != nil:
		return worker.Answer{}, failed(Claude, r)
	}
	a := worker.Answer{Text: res.Result, Model: c.model}
	if len(res.StructuredOutput) > 0 && string(res.StructuredOutput) != "null" {
		a.Text = string(res.StructuredOutput)
	}
	if u := res.Usage; u != nil {
		a.Usage = &worker.Usage{
			InputTokens:  u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens,
			OutputTokens: u.OutputTokens,
		}
	}
	if a.Model == "" && len(res.ModelUsage) > 0 {
		models := make([]string, 0, len(res.ModelUsage))
		for m := range res.ModelUsage {
			models = append(models, m)
		}
		sort.Strings(models)
		a.Model = models[0]
	}
	return a, nil
}
