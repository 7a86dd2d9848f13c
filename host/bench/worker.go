package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/memhost/memhost/sdk/worker"
	"github.com/memhost/memhost/sdk/worker/workertest"
)

// WorkerBench is what one LLM task costs the host apart from the model: the go-plugin round
// trip of a worker call, and the agentcli worker's spawn of a CLI per call.
type WorkerBench struct {
	// Echo is a merge task's Run on the worker-echo example, which answers at once.
	Echo Latency
	// AgentCLI is the same Run on the agentcli worker running a fake claude that answers at
	// once; CLIAlone is that fake started directly with the same input, the floor AgentCLI
	// includes.
	AgentCLI, CLIAlone Latency
}

// workerWarmup calls are made before timing: plugin start and first-call setup are not per
// call.
const workerWarmup = 5

// fakeClaude answers like `claude -p --output-format=json` with a structured merge at once.
const fakeClaude = `#!/bin/sh
cat > /dev/null
echo '{"type":"result","subtype":"success","is_error":false,"result":"","structured_output":{"text":"merged"},"usage":{"input_tokens":40,"output_tokens":12}}'
`

// benchMerge is the merge task every call runs.
func benchMerge() worker.Task {
	return worker.Task{
		Kind:         worker.TaskMerge,
		Instructions: "Merge the numbered memories, which say the same thing, into one short memory. Answer with JSON.",
		Input:        "1. The project uses pnpm.\n2. Always use pnpm, never npm, in this repository.",
		// Worker-echo answers {"summary":…}, the fake claude {"text":…}: the schema takes both,
		// so each answer is still checked against a schema as a real task's is.
		Schema:      `{"type":"object","minProperties":1,"additionalProperties":{"type":"string"}}`,
		TokenBudget: 16000,
	}
}

// measureWorkers times calls Run calls on memhost-worker-echo and memhost-worker-agentcli
// from dir, the agentcli one with a fake claude.
func measureWorkers(ctx context.Context, dir string, calls int, logTo io.Writer) (WorkerBench, error) {
	var out WorkerBench
	tmp, err := os.MkdirTemp("", "memhost-bench-worker-")
	if err != nil {
		return out, err
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	claude := filepath.Join(tmp, "claude")
	if err := os.WriteFile(claude, []byte(fakeClaude), 0o700); err != nil {
		return out, err
	}
	// The agentcli worker reads its settings from its environment, which the host sets; the
	// wrapper does it here.
	agentcli := filepath.Join(tmp, "memhost-worker-agentcli")
	wrapper := fmt.Sprintf("#!/bin/sh\nexport MEMHOST_WORKER_CLI=claude MEMHOST_WORKER_CLI_PATH=%q\nexec %q \"$@\"\n",
		claude, filepath.Join(dir, "memhost-worker-agentcli"))
	if err := os.WriteFile(agentcli, []byte(wrapper), 0o700); err != nil {
		return out, err
	}

	if out.Echo, err = timeWorker(ctx, filepath.Join(dir, "memhost-worker-echo"), calls, logTo); err != nil {
		return out, fmt.Errorf("worker-echo: %w", err)
	}
	if out.AgentCLI, err = timeWorker(ctx, agentcli, calls, logTo); err != nil {
		return out, fmt.Errorf("worker-agentcli: %w", err)
	}
	input := strings.NewReader(benchMerge().Input)
	samples := make([]time.Duration, 0, calls)
	for i := range calls + workerWarmup {
		_, _ = input.Seek(0, io.SeekStart)
		cmd := exec.CommandContext(ctx, claude, "-p")
		cmd.Stdin = input
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return out, fmt.Errorf("fake claude: %w", err)
		}
		if i >= workerWarmup {
			samples = append(samples, time.Since(start))
		}
	}
	out.CLIAlone = summarize(samples)
	return out, nil
}

// timeWorker starts the worker plugin at path as the host does and times calls merge tasks.
func timeWorker(ctx context.Context, path string, calls int, logTo io.Writer) (Latency, error) {
	w, kill, err := workertest.Start(path, logTo)
	if err != nil {
		return Latency{}, err
	}
	defer kill()
	samples := make([]time.Duration, 0, calls)
	for i := range calls + workerWarmup {
		t := benchMerge()
		t.Deadline = time.Now().Add(30 * time.Second)
		start := time.Now()
		if _, err := w.Run(ctx, t); err != nil {
			return Latency{}, err
		}
		if i >= workerWarmup {
			samples = append(samples, time.Since(start))
		}
	}
	return summarize(samples), nil
}

func renderWorkers(b *strings.Builder, wb WorkerBench) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("\n## Worker calls, without the model (%d calls each)\n\n", wb.Echo.N)
	w("| call | p50 | p99 | max |\n| --- | --- | --- | --- |\n")
	w("| merge task on worker-echo over go-plugin (the round trip) | %s | %s | %s |\n", ms(wb.Echo.P50), ms(wb.Echo.P99), ms(wb.Echo.Max))
	w("| merge task on worker-agentcli, fake claude answering at once | %s | %s | %s |\n", ms(wb.AgentCLI.P50), ms(wb.AgentCLI.P99), ms(wb.AgentCLI.Max))
	w("| the fake claude alone (sh, the floor of the row above) | %s | %s | %s |\n", ms(wb.CLIAlone.P50), ms(wb.CLIAlone.P99), ms(wb.CLIAlone.Max))
	w("\nThere is no design target for these. A real CLI adds its own start (node or a native binary loading its config) and the model's answer; see docs/e2e-cli.md.\n")
}
