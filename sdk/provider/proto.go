package provider

import (
	"io/fs"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	memhostv1 "github.com/memhost/memhost/sdk/internal/gen/memhost/v1"
)

// The provider kind's one conversion to and from the wire messages, one xToProto and
// xFromProto pair per type (the convention of every kind). Both
// adapters use it, so a field added to one side is added to both.

func infoToProto(i Info) *memhostv1.ProviderDescribeResponse {
	w := &memhostv1.ProviderDescribeResponse{
		Name: i.Name, Version: i.Version, Description: i.Description, Executable: i.Executable, InstructionFiles: i.InstructionFiles,
	}
	if m := i.MemoryFolders; m != nil {
		w.MemoryFolders = &memhostv1.MemoryFolders{ConfigDirEnv: m.ConfigDirEnv, DefaultConfigDir: m.DefaultConfigDir, Subdir: m.Subdir, TruncateAt: uint32(m.TruncateAt)}
	}
	if r := i.Task; r != nil {
		w.TaskRules = taskRulesToProto(*r)
	}
	return w
}

func taskRulesToProto(r TaskRules) *memhostv1.TaskRules {
	w := &memhostv1.TaskRules{Wrappers: r.Wrappers, NoTaskCommands: r.NoTaskCommands, StdinMarker: r.StdinMarker, JoinPositional: r.JoinPositional}
	if len(r.Options) > 0 {
		w.Options = make(map[string]memhostv1.OptionArity, len(r.Options))
		for name, a := range r.Options {
			w.Options[name] = memhostv1.OptionArity(a)
		}
	}
	for _, g := range r.PromptOptions {
		w.PromptOptions = append(w.PromptOptions, &memhostv1.PromptOption{Spellings: g})
	}
	return w
}

func taskRulesFromProto(w *memhostv1.TaskRules) TaskRules {
	r := TaskRules{Wrappers: w.GetWrappers(), NoTaskCommands: w.GetNoTaskCommands(), StdinMarker: w.GetStdinMarker(), JoinPositional: w.GetJoinPositional()}
	if len(w.GetOptions()) > 0 {
		r.Options = make(Options, len(w.GetOptions()))
		for name, a := range w.GetOptions() {
			r.Options[name] = Arity(a)
		}
	}
	for _, g := range w.GetPromptOptions() {
		r.PromptOptions = append(r.PromptOptions, g.GetSpellings())
	}
	return r
}

func infoFromProto(w *memhostv1.ProviderDescribeResponse) Info {
	i := Info{
		Name: w.GetName(), Version: w.GetVersion(), Description: w.GetDescription(), Executable: w.GetExecutable(), InstructionFiles: w.GetInstructionFiles(),
	}
	if m := w.GetMemoryFolders(); m != nil {
		i.MemoryFolders = &MemoryFolders{ConfigDirEnv: m.GetConfigDirEnv(), DefaultConfigDir: m.GetDefaultConfigDir(), Subdir: m.GetSubdir(), TruncateAt: int(m.GetTruncateAt())}
	}
	if w.GetTaskRules() != nil {
		r := taskRulesFromProto(w.GetTaskRules())
		i.Task = &r
	}
	return i
}

func spawnToProto(s Spawn) *memhostv1.Spawn {
	w := &memhostv1.Spawn{
		Cli: s.CLI, Executable: s.Executable, Args: s.Args, Dir: s.Dir, Env: s.Env,
		Banner: s.Banner, Project: s.Project, ScratchDir: s.ScratchDir, PromptHook: s.PromptHook,
	}
	if s.MCP != nil {
		w.Mcp = &memhostv1.McpServer{Name: s.MCP.Name, Url: s.MCP.URL, Token: s.MCP.Token, Headers: s.MCP.Headers}
	}
	return w
}

func spawnFromProto(w *memhostv1.Spawn) Spawn {
	s := Spawn{
		CLI: w.GetCli(), Executable: w.GetExecutable(), Args: w.GetArgs(), Dir: w.GetDir(), Env: w.GetEnv(),
		Banner: w.GetBanner(), Project: w.GetProject(), ScratchDir: w.GetScratchDir(), PromptHook: w.GetPromptHook(),
	}
	if m := w.GetMcp(); m != nil {
		s.MCP = &MCPServer{Name: m.GetName(), URL: m.GetUrl(), Token: m.GetToken(), Headers: m.GetHeaders()}
	}
	return s
}

func planToProto(p Plan) *memhostv1.PrepareResponse {
	w := &memhostv1.PrepareResponse{Args: p.Args, SetEnv: p.SetEnv, UnsetEnv: p.UnsetEnv, Cleanup: p.Cleanup, State: p.State,
		DeliversBanner: p.DeliversBanner, DeliversPromptHook: p.DeliversPromptHook}
	for _, f := range p.Files {
		w.Files = append(w.Files, &memhostv1.ScratchFile{
			Path: f.Path, Mode: uint32(f.Mode), Content: f.Content, LinkTarget: f.LinkTarget, CreateTargetDir: f.CreateTargetDir,
		})
	}
	return w
}

func planFromProto(w *memhostv1.PrepareResponse) Plan {
	p := Plan{Args: w.GetArgs(), SetEnv: w.GetSetEnv(), UnsetEnv: w.GetUnsetEnv(), Cleanup: w.GetCleanup(), State: w.GetState(),
		DeliversBanner: w.GetDeliversBanner(), DeliversPromptHook: w.GetDeliversPromptHook()}
	for _, f := range w.GetFiles() {
		p.Files = append(p.Files, File{
			Path: f.GetPath(), Mode: fs.FileMode(f.GetMode()), Content: f.GetContent(), LinkTarget: f.GetLinkTarget(), CreateTargetDir: f.GetCreateTargetDir(),
		})
	}
	return p
}

func endedToProto(e Ended) *memhostv1.FinishRequest {
	return &memhostv1.FinishRequest{Spawn: spawnToProto(e.Spawn), State: e.State, ExitCode: int32(e.ExitCode),
		StartedAt: timeToProto(e.StartedAt), Duration: durationpb.New(e.Duration)}
}

func endedFromProto(w *memhostv1.FinishRequest) Ended {
	e := Ended{Spawn: spawnFromProto(w.GetSpawn()), State: w.GetState(), ExitCode: int(w.GetExitCode()), StartedAt: timeFromProto(w.GetStartedAt())}
	if w.GetDuration() != nil {
		e.Duration = w.GetDuration().AsDuration()
	}
	if e.Duration < 0 {
		e.Duration = 0
	}
	return e
}

func connectRequestToProto(r ConnectRequest) *memhostv1.ConnectRequest {
	return &memhostv1.ConnectRequest{Env: r.Env, Memhost: r.Memhost, Config: r.Config, Hook: r.Hook}
}

func connectRequestFromProto(w *memhostv1.ConnectRequest) ConnectRequest {
	return ConnectRequest{Env: w.GetEnv(), Memhost: w.GetMemhost(), Config: w.GetConfig(), Hook: w.GetHook()}
}

func connectionToProto(c Connection) *memhostv1.ConnectResponse {
	w := &memhostv1.ConnectResponse{RegisteredIn: c.RegisteredIn}
	for _, s := range c.Steps {
		ws := &memhostv1.ConnectStep{File: s.File}
		switch {
		case s.Run != nil:
			ws.Change = &memhostv1.ConnectStep_Run{Run: &memhostv1.ConnectCommand{Args: s.Run.Args, UndoArgs: s.Run.UndoArgs}}
		case s.JSONAppend != nil:
			ws.Change = &memhostv1.ConnectStep_JsonAppend{JsonAppend: &memhostv1.JsonAppend{Path: s.JSONAppend.Path, Value: s.JSONAppend.Value}}
		case s.TextAppend != nil:
			ws.Change = &memhostv1.ConnectStep_TextAppend{TextAppend: &memhostv1.TextAppend{Text: s.TextAppend.Text, UntilPrefix: s.TextAppend.UntilPrefix}}
		}
		w.Steps = append(w.Steps, ws)
	}
	return w
}

func connectionFromProto(w *memhostv1.ConnectResponse) Connection {
	c := Connection{RegisteredIn: w.GetRegisteredIn()}
	for _, ws := range w.GetSteps() {
		s := ConnectStep{File: ws.GetFile()}
		if r := ws.GetRun(); r != nil {
			s.Run = &Command{Args: r.GetArgs(), UndoArgs: r.GetUndoArgs()}
		}
		if j := ws.GetJsonAppend(); j != nil {
			s.JSONAppend = &JSONAppend{Path: j.GetPath(), Value: j.GetValue()}
		}
		if t := ws.GetTextAppend(); t != nil {
			s.TextAppend = &TextAppend{Text: t.GetText(), UntilPrefix: t.GetUntilPrefix()}
		}
		c.Steps = append(c.Steps, s)
	}
	return c
}

func transcriptRequestToProto(r TranscriptRequest) *memhostv1.TranscriptRequest {
	return &memhostv1.TranscriptRequest{SessionId: r.SessionID, Path: r.Path, Dir: r.Dir, Start: timeToProto(r.Start), End: timeToProto(r.End)}
}

func transcriptRequestFromProto(w *memhostv1.TranscriptRequest) TranscriptRequest {
	return TranscriptRequest{SessionID: w.GetSessionId(), Path: w.GetPath(), Dir: w.GetDir(), Start: timeFromProto(w.GetStart()), End: timeFromProto(w.GetEnd())}
}

func transcriptToProto(t Transcript) *memhostv1.TranscriptResponse {
	w := &memhostv1.TranscriptResponse{NotIsolatedReason: t.NotIsolated}
	for _, tr := range t.Turns {
		wt := &memhostv1.TranscriptTurn{Role: tr.Role, Text: tr.Text, At: timeToProto(tr.At), Tokens: tr.Tokens}
		for _, c := range tr.Calls {
			wt.Calls = append(wt.Calls, &memhostv1.TranscriptToolCall{Id: c.ID, Name: c.Name, Result: c.Result})
		}
		for _, r := range tr.Results {
			wt.Results = append(wt.Results, &memhostv1.TranscriptToolResult{CallId: r.CallID, Text: r.Text})
		}
		w.Turns = append(w.Turns, wt)
	}
	return w
}

func transcriptFromProto(w *memhostv1.TranscriptResponse) Transcript {
	t := Transcript{NotIsolated: w.GetNotIsolatedReason()}
	for _, wt := range w.GetTurns() {
		tr := Turn{Role: wt.GetRole(), Text: wt.GetText(), At: timeFromProto(wt.GetAt()), Tokens: wt.GetTokens()}
		for _, c := range wt.GetCalls() {
			tr.Calls = append(tr.Calls, ToolCall{ID: c.GetId(), Name: c.GetName(), Result: c.GetResult()})
		}
		for _, r := range wt.GetResults() {
			tr.Results = append(tr.Results, ToolResult{CallID: r.GetCallId(), Text: r.GetText()})
		}
		t.Turns = append(t.Turns, tr)
	}
	return t
}

// timeToProto is t on the wire; the zero time is unset.
func timeToProto(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

// timeFromProto is w as a time; unset is the zero time.
func timeFromProto(w *timestamppb.Timestamp) time.Time {
	if w == nil {
		return time.Time{}
	}
	return w.AsTime()
}
