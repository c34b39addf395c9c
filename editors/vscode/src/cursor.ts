// What the cursor points at: the test function around it and the goweave finding on its line.
// Free of the vscode module so that it can be unit-tested in plain node.

// A test as `go test` (and gopls's test code lens) sees it: TestXxx where Xxx does not start
// with a lower-case letter, taking exactly one *testing.T.
const testFunc = /^func\s+(Test(?:[^a-z(\s][\w]*)?)\s*\(\s*\w+\s+\*testing\.T\s*\)/;
const anyFunc = /^func\b/;

/**
 * Returns the name of the test function whose declaration is the nearest `func` at or above
 * cursorLine (0-based), or undefined when that function is not a test (or there is none).
 */
export function testAtLine(lines: readonly string[], cursorLine: number): string | undefined {
  for (let i = Math.min(cursorLine, lines.length - 1); i >= 0; i--) {
    if (anyFunc.test(lines[i])) {
      return testFunc.exec(lines[i])?.[1];
    }
  }
  return undefined;
}

/** The parts of a diagnostic that locating a finding needs (0-based lines). */
export interface DiagnosticLike {
  source?: string;
  startLine: number;
  endLine: number;
  data?: unknown;
}

/** The finding id the server put in data.id of a goweave diagnostic, if any. */
export function findingId(d: DiagnosticLike): string | undefined {
  if (d.source !== 'goweave' || typeof d.data !== 'object' || d.data === null) {
    return undefined;
  }
  const id = (d.data as { id?: unknown }).id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * Returns the id of the goweave finding whose diagnostic covers line, or else the nearest
 * one within `slack` lines, so that a cursor just below a one-line diagnostic still finds it.
 */
export function findingAtLine(diags: readonly DiagnosticLike[], line: number, slack = 0): string | undefined {
  let best: { id: string; distance: number } | undefined;
  for (const d of diags) {
    const id = findingId(d);
    if (id === undefined) {
      continue;
    }
    const distance = line < d.startLine ? d.startLine - line : line > d.endLine ? line - d.endLine : 0;
    if (distance <= slack && (best === undefined || distance < best.distance)) {
      best = { id, distance };
    }
  }
  return best?.id;
}
