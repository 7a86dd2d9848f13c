// Command fakecli stands in for claude, gemini and codex (by the name it is
// run as) in the plugin's tests: it prints each CLI's real output shapes,
// and its failures, as a marker in the input on stdin asks (FAKE:<mode>).
// It reads stdin to its end first, so a run whose stdin is never closed
// hangs and fails its test.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"
)

func main() {
	if os.Getenv("FAKECLI_GRANDCHILD") == "1" {
		signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
		time.Sleep(time.Hour)
		return
	}
	stdin, _ := io.ReadAll(os.Stdin)
	cli := filepath.Base(os.Args[0])
	mode := "ok"
	if m := regexp.MustCompile(`FAKE:([a-z_]+)`).FindSubmatch(stdin); m != nil {
		mode = string(m[1])
	}
	switch mode {
	case "hang":
		hang()
	case "record":
		record(cli, string(stdin))
		return
	case "exit":
		fmt.Fprintln(os.Stderr, "warning: something harmless")
		fmt.Fprintln(os.Stderr, "fatal: not logged in")
		os.Exit(3)
	case "prose":
		fmt.Println("Here is the result:")
		answer(cli, `{"summary":"x"}`)
		fmt.Println("Done.")
		return
	case "ansi":
		fmt.Print("\x1b[32m")
		answer(cli, `{"summary":"x"}`)
		fmt.Print("\x1b[0m")
		return
	case "is_error", "ratelimit":
		failure(cli, mode)
		return
	case "badschema":
		answer(cli, `{"other":1}`)
		return
	}
	text := "we use pnpm."
	if wantsJSON(cli) {
		text = `{"summary":"we use pnpm"}`
	}
	answer(cli, text)
}

// wantsJSON: the task has a schema, as each CLI would be told.
func wantsJSON(cli string) bool {
	for _, a := range os.Args {
		if strings.HasPrefix(a, "--json-schema=") || a == "--output-schema" {
			return true
		}
	}
	if cli == "gemini" {
		b, _ := os.ReadFile(filepath.Join(os.Getenv("GEMINI_CLI_HOME"), ".gemini", "GEMINI.md"))
		return strings.Contains(string(b), "JSON Schema")
	}
	return false
}

func answer(cli, text string) {
	switch cli {
	case "claude":
		out := map[string]any{"type": "result", "subtype": "success", "is_error": false, "result": text,
			"session_id": "s", "num_turns": 1,
			"usage":      map[string]int{"input_tokens": 12, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 3, "output_tokens": 9},
			"modelUsage": map[string]any{"claude-sonnet-fake": map[string]int{"inputTokens": 12}}}
		if wantsJSON(cli) {
			out["structured_output"] = json.RawMessage(text)
			out["result"] = ""
		}
		printJSON(out)
	case "gemini":
		printJSON(map[string]any{"session_id": "s", "response": text, "stats": map[string]any{"models": map[string]any{
			"gemini-fake-pro":  map[string]any{"tokens": map[string]int{"prompt": 20, "candidates": 8, "total": 28, "thoughts": 2}},
			"gemini-fake-lite": map[string]any{"tokens": map[string]int{"prompt": 5, "candidates": 1, "total": 6}},
		}}})
	case "codex":
		printJSON(map[string]any{"type": "thread.started", "thread_id": "t"})
		printJSON(map[string]any{"type": "turn.started"})
		printJSON(map[string]any{"type": "item.completed", "item": map[string]any{"id": "item_0", "type": "error", "message": "Model metadata for `x` not found. Defaulting to fallback metadata"}})
		printJSON(map[string]any{"type": "item.completed", "item": map[string]any{"id": "item_1", "type": "agent_message", "text": text}})
		printJSON(map[string]any{"type": "turn.completed", "usage": map[string]int{"input_tokens": 30, "cached_input_tokens": 0, "output_tokens": 7}})
	}
}

func failure(cli, mode string) {
	msg := "API Error: 401 Invalid API key · Please run /login"
	if mode == "ratelimit" {
		msg = "API Error: 429 rate_limit_error: Number of request tokens has exceeded your per-minute rate limit"
	}
	switch cli {
	case "claude":
		printJSON(map[string]any{"type": "result", "subtype": "success", "is_error": true, "result": msg, "session_id": "s"})
		os.Exit(1)
	case "gemini":
		printJSON(map[string]any{"error": map[string]any{"type": "Error", "message": msg, "code": 1}})
		os.Exit(1)
	case "codex":
		printJSON(map[string]any{"type": "thread.started", "thread_id": "t"})
		printJSON(map[string]any{"type": "turn.started"})
		printJSON(map[string]any{"type": "error", "message": msg})
		printJSON(map[string]any{"type": "turn.failed", "error": map[string]any{"message": msg}})
		os.Exit(1)
	}
}

// hang starts a grandchild that ignores SIGTERM and would outlive its
// parent, says so in FAKECLI_RECORD/started, and hangs ignoring SIGTERM.
func hang() {
	signal.Ignore(syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	gc := exec.Command(os.Args[0])
	gc.Env = append(os.Environ(), "FAKECLI_GRANDCHILD=1")
	if err := gc.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_ = os.WriteFile(filepath.Join(os.Getenv("FAKECLI_RECORD"), "started"), []byte(fmt.Sprint(gc.Process.Pid)), 0o600)
	time.Sleep(time.Hour)
}

// record writes what the CLI saw to FAKECLI_RECORD/<cli>.json and answers.
func record(cli, stdin string) {
	cwd, _ := os.Getwd()
	entries, _ := os.ReadDir(cwd)
	files := map[string]string{}
	read := func(name, path string) {
		if b, err := os.ReadFile(path); err == nil {
			files[name] = string(b)
		}
	}
	switch cli {
	case "claude":
		read("credentials", filepath.Join(os.Getenv("HOME"), ".claude", ".credentials.json"))
		for _, a := range os.Args {
			if p, ok := strings.CutPrefix(a, "--system-prompt-file="); ok {
				read("system", p)
			}
		}
	case "gemini":
		dot := filepath.Join(os.Getenv("GEMINI_CLI_HOME"), ".gemini")
		read("credentials", filepath.Join(dot, "oauth_creds.json"))
		read("settings", filepath.Join(dot, "settings.json"))
		read("system", filepath.Join(dot, "GEMINI.md"))
	case "codex":
		read("credentials", filepath.Join(os.Getenv("CODEX_HOME"), "auth.json"))
		read("config", filepath.Join(os.Getenv("CODEX_HOME"), "config.toml"))
	}
	b, _ := json.Marshal(map[string]any{
		"args": os.Args[1:], "cwd": cwd, "cwd_entries": len(entries), "env": os.Environ(),
		"stdin": stdin, "files": files,
	})
	if err := os.WriteFile(filepath.Join(os.Getenv("FAKECLI_RECORD"), cli+".json"), b, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if wantsJSON(cli) {
		answer(cli, `{"summary":"recorded"}`)
		return
	}
	answer(cli, "recorded.")
}

func printJSON(v any) {
	b, _ := json.Marshal(v)
	fmt.Println(string(b))
}
