package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/shortid"
)

// memoryAddCmd is `memhost memory add`: a fact stored from the shell, through the write path
// every agent's memory_store takes (validate, redact, embed, fold).
func memoryAddCmd() *cobra.Command {
	c := memoryOp("add (TEXT | -)", "Store a fact in the project's memory (TEXT, or standard input with -); it folds into a memory that says the same, as any write",
		cobra.ExactArgs(1), func(cmd *cobra.Command, h *hostAPI, key string, args []string) (any, error) {
			text, err := textArg(args[0], cmd.InOrStdin())
			if err != nil {
				return nil, err
			}
			kind, _ := cmd.Flags().GetString("kind")
			pin, _ := cmd.Flags().GetBool("pin")
			body := map[string]any{"text": text, "kind": kind, "pinned": pin, "project": key}
			if global, _ := cmd.Flags().GetBool("global"); global {
				body["scope"] = "global"
			}
			if cmd.Flags().Changed("importance") {
				body["importance"], _ = cmd.Flags().GetFloat64("importance")
			}
			data, err := json.Marshal(body)
			if err != nil {
				return nil, err
			}
			var res memory.StoreResult
			err = h.do(cmd.Context(), http.MethodPost, "/api/v1/memories", data, &res)
			return res, err
		}, func(_ *cobra.Command, out io.Writer, v any) { printStored(out, v.(memory.StoreResult)) })
	c.Flags().String("kind", "fact", "fact, decision, convention, gotcha, preference, error_pattern or reference")
	c.Flags().Bool("pin", false, "pin it: full quality in ranking, and its text is never replaced by a fold")
	c.Flags().Float64("importance", 0.5, "how much it matters, 0..1 (ranks it in the spawn banner)")
	c.Flags().Bool("global", false, "store it for every project (needs an admin token not bound to a project)")
	return c
}

func printStored(out io.Writer, r memory.StoreResult) {
	id := shortid.Of(r.ID)
	switch {
	case r.Vetoed != "":
		fmt.Fprintf(out, "not stored: %s\n", printable(r.Vetoed))
		return
	case r.Exact:
		fmt.Fprintf(out, "already known: identical to memory %s\n", id)
	case r.Folded && r.VectorPending:
		fmt.Fprintf(out, "folded into memory %s (the same statement), which reads: %s\n", id, printable(r.Memory.Text))
	case r.Folded:
		fmt.Fprintf(out, "folded into memory %s (similarity %.2f), which reads: %s\n", id, r.Similarity, printable(r.Memory.Text))
	default:
		fmt.Fprintf(out, "stored as memory %s\n", id)
	}
	if r.VectorPending {
		fmt.Fprintln(out, "its vector follows in the background (the embedder is slow); search finds it by its words meanwhile")
	}
	if r.Redactions > 0 {
		fmt.Fprintf(out, "%d secret(s) redacted before storing\n", r.Redactions)
	}
}

// memoryEditCmd is `memhost memory edit`: correct a memory's text (in the user's editor unless
// --text gives it), kind or importance; the running host records the edit in history.
func memoryEditCmd() *cobra.Command {
	c := memoryOp("edit ID", "Correct a memory's text (in $VISUAL or $EDITOR, or --text), kind or importance; its history keeps the old text",
		cobra.ExactArgs(1), func(cmd *cobra.Command, h *hostAPI, key string, args []string) (any, error) {
			body := map[string]any{"project": key}
			if cmd.Flags().Changed("text") {
				flag, _ := cmd.Flags().GetString("text")
				text, err := textArg(flag, cmd.InOrStdin())
				if err != nil {
					return nil, err
				}
				body["text"] = text
			}
			if cmd.Flags().Changed("kind") {
				body["kind"], _ = cmd.Flags().GetString("kind")
			}
			if cmd.Flags().Changed("importance") {
				body["importance"], _ = cmd.Flags().GetFloat64("importance")
			}
			path := "/api/v1/memories/" + url.PathEscape(args[0]) + "?" + url.Values{"project": {key}}.Encode()
			if len(body) == 1 {
				var v memory.View
				if err := h.do(cmd.Context(), http.MethodGet, path, nil, &v); err != nil {
					return nil, err
				}
				text, err := editText(cmd, v.Text)
				if err != nil {
					return nil, err
				}
				if text == v.Text {
					return memory.EditResult{Memory: v}, nil
				}
				body["text"] = text
			}
			data, err := json.Marshal(body)
			if err != nil {
				return nil, err
			}
			var res memory.EditResult
			err = h.do(cmd.Context(), http.MethodPatch, path, data, &res)
			return res, err
		}, func(_ *cobra.Command, out io.Writer, v any) {
			r := v.(memory.EditResult)
			if !r.Changed {
				fmt.Fprintf(out, "memory %s unchanged\n", shortid.Of(r.Memory.ID))
				return
			}
			fmt.Fprintf(out, "memory %s edited; it reads: %s\n", shortid.Of(r.Memory.ID), printable(r.Memory.Text))
		})
	c.Flags().String("text", "", "the new text, or - for standard input (default: edit the text in your editor)")
	c.Flags().String("kind", "", "the new kind: fact, decision, convention, gotcha, preference, error_pattern or reference")
	c.Flags().Float64("importance", 0, "the new importance, 0..1")
	c.Flags().String("editor", "", "the editor to run (default $VISUAL, else $EDITOR, else vi)")
	return c
}

// editText has the user edit text in their editor and returns the result, its one trailing
// line break dropped. An editor that fails changes nothing.
func editText(cmd *cobra.Command, text string) (string, error) {
	editor, _ := cmd.Flags().GetString("editor")
	for _, env := range []string{"VISUAL", "EDITOR"} {
		if editor == "" {
			editor = os.Getenv(env)
		}
	}
	if editor == "" {
		editor = "vi"
	}
	dir, err := os.MkdirTemp("", "memhost-edit-")
	if err != nil {
		return "", fmt.Errorf("edit the text: %w", err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	path := filepath.Join(dir, "memory.md")
	if err := os.WriteFile(path, []byte(text+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("edit the text: %w", err)
	}
	// The editor setting may carry arguments ("code --wait"), as git reads it.
	run := exec.CommandContext(cmd.Context(), "/bin/sh", "-c", editor+` "$1"`, "memhost-edit", path)
	run.Stdin, run.Stdout, run.Stderr = os.Stdin, cmd.ErrOrStderr(), cmd.ErrOrStderr()
	if err := run.Run(); err != nil {
		return "", fmt.Errorf("the editor %q failed (%v); nothing was changed", editor, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read the edited text: %w", err)
	}
	return strings.TrimSuffix(strings.TrimSuffix(string(data), "\n"), "\r"), nil
}
