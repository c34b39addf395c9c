// How the result of a goweave command is shown to the user. Long commands (fuzzing) report
// through $/progress and diagnostics, so only replay and show_timeline have results to show.
// Free of the vscode module so that it can be unit-tested in plain node.

export type Presentation =
  | { kind: 'none' }
  | { kind: 'message'; text: string; isError: boolean }
  | { kind: 'document'; text: string };

function field(o: Record<string, unknown>, ...names: string[]): unknown {
  for (const n of names) {
    if (o[n] !== undefined && o[n] !== null) {
      return o[n];
    }
  }
  return undefined;
}

/** Turns the result of executing command into what the user should see. */
export function presentResult(command: string, result: unknown): Presentation {
  if (result === undefined || result === null) {
    return { kind: 'none' };
  }
  switch (command) {
    case 'goweave.show_timeline': {
      if (typeof result === 'string') {
        return { kind: 'document', text: result };
      }
      if (typeof result === 'object') {
        const text = field(result as Record<string, unknown>, 'timeline', 'text');
        if (typeof text === 'string') {
          return { kind: 'document', text };
        }
      }
      return { kind: 'document', text: JSON.stringify(result, null, 2) };
    }
    case 'goweave.replay': {
      if (typeof result === 'string') {
        return { kind: 'message', text: result, isError: false };
      }
      if (typeof result === 'object') {
        const r = result as Record<string, unknown>;
        const message = field(r, 'message', 'outcome', 'summary');
        const reproduced = field(r, 'reproduced');
        const parts: string[] = [];
        if (typeof reproduced === 'boolean') {
          parts.push(reproduced ? 'Replay reproduced the bug.' : 'Replay did not reproduce the bug.');
        }
        if (typeof message === 'string' && message !== '') {
          parts.push(message);
        }
        if (parts.length === 0) {
          parts.push(JSON.stringify(result));
        }
        return { kind: 'message', text: 'goweave: ' + parts.join(' '), isError: false };
      }
      return { kind: 'message', text: `goweave: ${String(result)}`, isError: false };
    }
    default:
      return { kind: 'none' };
  }
}
