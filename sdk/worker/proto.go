package worker

import (
	"math"

	"google.golang.org/protobuf/types/known/timestamppb"

	memhostv1 "github.com/memhost/memhost/sdk/internal/gen/memhost/v1"
)

// The worker kind's one conversion to and from the wire messages. Both
// adapters use it, so a field added to one side is added to both.

func infoToProto(i Info) *memhostv1.WorkerDescribeResponse {
	w := &memhostv1.WorkerDescribeResponse{
		Name: i.Name, Version: i.Version, Description: i.Description, Model: i.Model,
		MaxInputBytes: int64(i.MaxInputBytes), Locality: memhostv1.Locality_LOCALITY_REMOTE,
	}
	if i.Locality == LocalityLocal {
		w.Locality = memhostv1.Locality_LOCALITY_LOCAL
	}
	for _, k := range i.TaskKinds {
		w.TaskKinds = append(w.TaskKinds, string(k))
	}
	return w
}

func infoFromProto(w *memhostv1.WorkerDescribeResponse) Info {
	i := Info{
		Name: w.GetName(), Version: w.GetVersion(), Description: w.GetDescription(), Model: w.GetModel(),
		MaxInputBytes: clampInt(w.GetMaxInputBytes()),
	}
	// Unset and values from a later protocol read as remote, the cautious
	// reading.
	if w.GetLocality() == memhostv1.Locality_LOCALITY_LOCAL {
		i.Locality = LocalityLocal
	}
	for _, k := range w.GetTaskKinds() {
		i.TaskKinds = append(i.TaskKinds, TaskKind(k))
	}
	return i
}

func taskToProto(t Task) *memhostv1.RunRequest {
	w := &memhostv1.RunRequest{
		Kind: string(t.Kind), Instructions: t.Instructions, Input: t.Input, JsonSchema: t.Schema,
		TokenBudget: int64(t.TokenBudget),
	}
	if !t.Deadline.IsZero() {
		w.Deadline = timestamppb.New(t.Deadline)
	}
	return w
}

func taskFromProto(w *memhostv1.RunRequest) Task {
	t := Task{
		Kind: TaskKind(w.GetKind()), Instructions: w.GetInstructions(), Input: w.GetInput(), Schema: w.GetJsonSchema(),
		TokenBudget: clampInt(w.GetTokenBudget()),
	}
	if w.GetDeadline() != nil {
		t.Deadline = w.GetDeadline().AsTime()
	}
	return t
}

func answerToProto(a Answer) *memhostv1.RunResponse {
	w := &memhostv1.RunResponse{Text: a.Text, Model: a.Model}
	if a.Usage != nil {
		w.Usage = &memhostv1.TokenUsage{InputTokens: int64(a.Usage.InputTokens), OutputTokens: int64(a.Usage.OutputTokens)}
	}
	return w
}

func answerFromProto(w *memhostv1.RunResponse) Answer {
	a := Answer{Text: w.GetText(), Model: w.GetModel()}
	if u := w.GetUsage(); u != nil {
		a.Usage = &Usage{InputTokens: clampInt(u.GetInputTokens()), OutputTokens: clampInt(u.GetOutputTokens())}
	}
	return a
}

// clampInt narrows a wire int64 to int without wrapping, so a huge count
// stays huge (and fails its check) instead of turning small or negative.
func clampInt(v int64) int {
	switch {
	case v > math.MaxInt32:
		return math.MaxInt32
	case v < math.MinInt32:
		return math.MinInt32
	}
	return int(v)
}
