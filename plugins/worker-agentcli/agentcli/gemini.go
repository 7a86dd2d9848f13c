package agentcli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/memhost/memhost/sdk/jsonc"
	"github.com/memhost/memhost/sdk/worker"
)

// gemini runs `gemini -p -o json` with GEMINI_CLI_HOME pointing at a
// scratch home whose .gemini holds only
//
//   - links to the user's credentials (oauth_creds.json,
//     google_accounts.json, .env, installation_id, user_id);
//   - settings.json with the user's auth, model and privacy choices and
//     nothing else: no hooks (memhost connect's SessionStart hook is in the
//     user's settings), no MCP servers, no extensions; the tools that write
//     or run anything excluded;
//   - GEMINI.md holding the host's instructions, which Gemini CLI puts in
//     its system instruction.
//
// Gemini CLI has no way to make the model follow a schema: the schema is in
// the instructions and the plugin checks the answer. The folder is trusted
// for the run (--skip-trust), as headless Gemini CLI refuses to start in an
// untrusted one.
type gemini struct {
	model string
	env   []string
}

// geminiCredentials are the files of ~/.gemini a login leaves.
var geminiCredentials = []string{"oauth_creds.json", "google_accounts.json", ".env", "installation_id", "user_id"}

// geminiKept are the user's settings a worker's run keeps.
var geminiKept = []string{"security", "selectedAuthType", "model", "privacy"}

// geminiExcluded are the built-in tools that change or reach anything.
var geminiExcluded = []string{"run_shell_command", "write_file", "replace", "save_memory", "web_fetch", "google_web_search", "write_todos"}

func (g gemini) prepare(s scratch, p prompt, _ Config, _ int) ([]string, map[string]string, error) {
	user := userDir(g.env, "GEMINI_CLI_HOME", ".gemini", ".gemini")
	dot := filepath.Join(s.home, ".gemini")
	if err := os.Mkdir(dot, 0o700); err != nil {
		return nil, nil, err
	}
	if err := linkFiles(user, dot, geminiCredentials...); err != nil {
		return nil, nil, err
	}
	settings, err := g.settings(filepath.Join(user, "settings.json"))
	if err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(dot, "settings.json"), settings, 0o600); err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(dot, "GEMINI.md"), []byte(p.system), 0o600); err != nil {
		return nil, nil, err
	}
	args := []string{"-o", "json", "--skip-trust", "-p", "Do what the instructions say with the input above."}
	if g.model != "" {
		args = append(args, "-m", g.model)
	}
	return args, map[string]string{"GEMINI_CLI_HOME": s.home}, nil
}

// settings builds the run's settings.json from the user's at path.
func (g gemini) settings(path string) ([]byte, error) {
	doc := map[string]any{}
	raw, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	default:
		var user map[string]any
		if err := json.Unmarshal(jsonc.StripComments(raw), &user); err != nil {
			return nil, fmt.Errorf("the user's settings.json is not JSON: %w", err)
		}
		for _, k := range geminiKept {
			if v, ok := user[k]; ok {
				doc[k] = v
			}
		}
	}
	doc["tools"] = map[string]any{"exclude": geminiExcluded}
	return json.Marshal(doc)
}

// geminiOutput is the JSON object of `gemini -p -o json`: the answer, or
// the error that ended the run.
type geminiOutput struct {
	Response *string `json:"response"`
	Error    *struct {
		Message string `json:"message"`
	} `json:"error"`
	Stats struct {
		Models map[string]struct {
			Tokens struct {
				Prompt     int `json:"prompt"`
				Candidates int `json:"candidates"`
				Thoughts   int `json:"thoughts"`
				Tool       int `json:"tool"`
			} `json:"tokens"`
		} `json:"models"`
	} `json:"stats"`
}

func (g gemini) answer(r ran) (worker.Answer, error) {
	res, err := decodeRun(Gemini, r, "its output object", func(geminiOutput) bool { return true })
	if err != nil {
		return worker.Answer{}, err
	}
	switch {
	case res.Error != nil:
		return worker.Answer{}, cliError(Gemini, res.Error.Message)
	case r.err != nil:
		return worker.Answer{}, failed(Gemini, r)
	case res.Response == nil:
		return worker.Answer{}, fmt.Errorf("%w: gemini's JSON has no response", worker.ErrBadAnswer)
	}
	a := worker.Answer{Text: *res.Response, Model: g.model}
	// Every model of the run counts, the router's side call included.
	var u worker.Usage
	top := 0
	for m, s := range res.Stats.Models {
		t := s.Tokens
		u.InputTokens += t.Prompt
		u.OutputTokens += t.Candidates + t.Thoughts + t.Tool
		if g.model == "" && (t.Candidates > top || t.Candidates == top && (a.Model == "" || m < a.Model)) {
			top, a.Model = t.Candidates, m
		}
	}
	if len(res.Stats.Models) > 0 {
		a.Usage = &u
	}
	return a, nil
}
