// How the result of a goweave command is shown to the user. Long commands (fuzzing) report
// through $/progress and diagnostics, so only replay and show_timeline have results to show.
// Free of the vscode module so that it can be unit-tested in plain node.

export type Presentation =
  | { kind: 'none' }
  | { kind: 'log'; text: string }
  | { kind: 'document'; text: string }
  | { kind: 'webview'; path: string; title: string };

/** Turns the result of executing command into what the user should see. */
export function presentResult(command: string, result: unknown): Presentation {
  if (result === undefined || result === null) {
    return { kind: 'none' };
  }
  switch (command) {
    case 'goweave.show_timeline': {
      // The server writes an HTML page; the extension declares the experimental capability
      // goweave.openTimeline, so the server leaves opening it to the extension, which shows it
      // in a webview panel: the extension host runs beside the server, so it can read the file
      // in local, remote and web windows alike.
      if (typeof result === 'object') {
        const r = result as Record<string, unknown>;
        if (typeof r.path === 'string' && r.path !== '') {
          if (r.opened === true) {
            return { kind: 'log', text: `timeline: ${r.path}` };
          }
          const id = r.path.replace(/^.*[\\/]/, '').replace(/\.html$/, '');
          return { kind: 'webview', path: r.path, title: `goweave timeline ${id}` };
        }
      }
      if (typeof result === 'string') {
        return { kind: 'document', text: result };
      }
      return { kind: 'document', text: JSON.stringify(result, null, 2) };
    }
    case 'goweave.replay': {
      // The server itself tells the user the outcome (window/showMessage); the client only
      // keeps a line in the log so that the outcome is not shown twice.
      if (typeof result === 'string') {
        return { kind: 'log', text: result };
      }
      if (typeof result === 'object') {
        const r = result as Record<string, unknown>;
        const parts: string[] = [];
        const id = typeof r.id === 'string' ? ` ${r.id}` : '';
        if (typeof r.reproduced === 'boolean') {
          parts.push(r.reproduced ? `replay${id}: reproduced` : `replay${id}: not reproduced`);
        } else {
          parts.push(`replay${id}: ${JSON.stringify(result)}`);
        }
        if (typeof r.status === 'string' && r.status !== '') {
          parts.push(`status ${r.status}`);
        }
        if (typeof r.panic === 'string' && r.panic !== '') {
          parts.push(`panic: ${r.panic}`);
        }
        if (Array.isArray(r.blocked) && r.blocked.length > 0) {
          parts.push(`blocked: ${r.blocked.join('; ')}`);
        }
        return { kind: 'log', text: parts.join(', ') };
      }
      return { kind: 'log', text: `replay: ${String(result)}` };
    }
    default:
      return { kind: 'none' };
  }
}
