// Finding the goweave binary the extension starts as `goweave serve`. Kept free of the vscode
// module so that it can be unit-tested in plain node.
import * as path from 'node:path';

export const installHint =
  'Install it with `go install github.com/goweave/goweave/cmd/goweave@latest` ' +
  '(or `go install ./cmd/goweave` in a goweave checkout), then reload the window, ' +
  'or set "goweave.path" to the binary.';

/** Where the binary was found. */
export type BinarySource = 'setting' | 'PATH' | 'GOBIN' | 'GOPATH' | 'home';

export type BinaryLookup =
  | { found: true; path: string; source: BinarySource; warning?: string }
  | { found: false; message: string };

/** What the lookup may know about the machine: injected so tests need not touch the real one. */
export interface LookupEnvironment {
  env: Record<string, string | undefined>;
  platform: NodeJS.Platform;
  homedir: string;
  /** Reports whether p is an existing regular file this process may execute. */
  isExecutable(p: string): boolean;
}

function expandHome(p: string, homedir: string): string {
  if (p === '~') {
    return homedir;
  }
  if (p.startsWith('~/') || p.startsWith('~\\')) {
    return path.join(homedir, p.slice(2));
  }
  return p;
}

/**
 * Finds the goweave binary: the configured path if set, else `goweave` on PATH, else where
 * `go install` puts it: $GOBIN, each $GOPATH/bin, ~/go/bin. VS Code started from a desktop
 * launcher often lacks the Go bin directory on its PATH, hence the last three.
 *
 * goweave.path is a window-scoped setting, so a path from the User settings of one machine also
 * reaches remote windows (SSH, WSL, containers, code-server), where it may not exist. Such a
 * path is then bypassed for the search, with a warning saying so; with nothing found the error
 * names the setting.
 */
export function findBinary(configuredPath: string | undefined, le: LookupEnvironment): BinaryLookup {
  const configured = (configuredPath ?? '').trim();
  if (configured !== '') {
    const p = expandHome(configured, le.homedir);
    if (le.isExecutable(p)) {
      return { found: true, path: p, source: 'setting' };
    }
    const searched = search(le);
    const wrong = `goweave.path is set to "${configured}", but that is not an executable file on this machine`;
    if (searched.found) {
      return { ...searched, warning: `${wrong}; using ${searched.path} (found via ${searched.source}) instead.` };
    }
    return { found: false, message: `${wrong}, and no goweave was found on PATH or in the go install directories. ` + installHint };
  }
  return search(le);
}

/** The search without a configured path. */
function search(le: LookupEnvironment): BinaryLookup {
  const pathApi = le.platform === 'win32' ? path.win32 : path.posix;
  const exe = le.platform === 'win32' ? 'goweave.exe' : 'goweave';

  const candidates: { dir: string; source: BinarySource }[] = [];
  const delimiter = le.platform === 'win32' ? ';' : ':';
  for (const dir of (le.env.PATH ?? le.env.Path ?? '').split(delimiter)) {
    if (dir !== '') {
      candidates.push({ dir, source: 'PATH' });
    }
  }
  if (le.env.GOBIN) {
    candidates.push({ dir: le.env.GOBIN, source: 'GOBIN' });
  }
  for (const dir of (le.env.GOPATH ?? '').split(delimiter)) {
    if (dir !== '') {
      candidates.push({ dir: pathApi.join(dir, 'bin'), source: 'GOPATH' });
    }
  }
  if (le.homedir !== '') {
    candidates.push({ dir: pathApi.join(le.homedir, 'go', 'bin'), source: 'home' });
  }
  for (const c of candidates) {
    const p = pathApi.join(c.dir, exe);
    if (le.isExecutable(p)) {
      return { found: true, path: p, source: c.source };
    }
  }
  return {
    found: false,
    message: `The goweave binary was not found on PATH, in $GOBIN, $GOPATH/bin or ~/go/bin. ` + installHint,
  };
}
