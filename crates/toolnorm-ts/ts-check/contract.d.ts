type ToolState = 'started' | 'running' | 'complete' | 'error';

type ToolKind =
  | 'web_search'
  | 'browser'
  | 'file_read'
  | 'file_write'
  | 'file_edit'
  | 'bash'
  | 'subagent'
  | 'mcp'
  | 'question'
  | 'todo'
  | 'unknown';

type NormalizedToolPart = {
  id: string;
  name: string;      // canonical machine-ish name: Bash, Read, webSearch, browser_navigate
  kind: ToolKind;    // stable UI bucket for icon/grouping
  title: string;     // human title shown in UI
  input: unknown;    // provider args, normalized only enough to be inspectable
  output?: unknown;  // successful result, if present
  error?: {
    message: string;
    code?: string;
    details?: unknown;
  };
  state: ToolState;
  timing?: {
    startedAt?: string | number;
    completedAt?: string | number;
    elapsedMs?: number;
  };
  metadata?: Record<string, unknown>; // provider-specific detail that UI may use later
};
