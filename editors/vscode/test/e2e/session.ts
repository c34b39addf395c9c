// A scripted LSP client for the end-to-end test: starts `goweave serve` and records what the
// server sends (diagnostics, progress, messages) so that the test can wait for it. It plays
// the part of VS Code through vscode-languageserver-protocol, the protocol layer under
// vscode-languageclient.
import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  createProtocolConnection,
  Diagnostic,
  ProtocolConnection,
  PublishDiagnosticsParams,
  StreamMessageReader,
  StreamMessageWriter,
  WorkDoneProgress,
  WorkDoneProgressBegin,
  WorkDoneProgressEnd,
  WorkDoneProgressReport,
} from 'vscode-languageserver-protocol/node';

export type ProgressEvent = { token: string | number; value: WorkDoneProgressBegin | WorkDoneProgressReport | WorkDoneProgressEnd };

/** The repository root, from out/test/e2e/ inside editors/vscode. */
export const repoRoot = path.resolve(__dirname, '../../../../..');

/** The goweave binary to test: $GOWEAVE_BIN, or one built from the checkout into tmp. */
export function goweaveBinary(tmp: string): string {
  if (process.env.GOWEAVE_BIN) {
    return process.env.GOWEAVE_BIN;
  }
  const bin = path.join(tmp, 'goweave');
  execFileSync('go', ['build', '-o', bin, './cmd/goweave'], { cwd: repoRoot, stdio: 'inherit' });
  return bin;
}

/** Copies editors/testdata/<name> to a fresh temporary directory and returns its path. */
export function copyFixture(name: string, tmp: string): string {
  const dir = path.join(tmp, name);
  fs.cpSync(path.join(repoRoot, 'editors', 'testdata', name), dir, { recursive: true });
  return dir;
}

export function makeTempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'goweave-vscode-e2e-'));
}

/** The 0-based line of the first line of text containing marker. */
export function lineOf(text: string, marker: string): number {
  const i = text.split('\n').findIndex((l) => l.includes(marker));
  if (i < 0) {
    throw new Error(`fixture has no line containing ${JSON.stringify(marker)}`);
  }
  return i;
}

export class Session {
  readonly connection: ProtocolConnection;
  readonly proc: ChildProcess;
  readonly diagnostics = new Map<string, PublishDiagnosticsParams>();
  readonly progress: ProgressEvent[] = [];
  readonly messages: { type: number; message: string }[] = [];
  readonly createdTokens: (string | number)[] = [];
  readonly shownDocuments: { uri: string; external?: boolean; takeFocus?: boolean }[] = [];
  stderr = '';
  exitCode: number | null | undefined;
  private readonly exited: Promise<number | null>;
  private waiters: (() => void)[] = [];

  constructor(binary: string, cwd: string, settings: object) {
    // The arguments vscode-languageclient passes for TransportKind.stdio.
    this.proc = spawn(binary, ['serve', '--stdio'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc.stderr!.on('data', (b: Buffer) => {
      this.stderr += b.toString();
    });
    this.exited = new Promise((resolve) =>
      this.proc.on('exit', (code) => {
        this.exitCode = code;
        this.changed();
        resolve(code);
      }),
    );
    this.connection = createProtocolConnection(new StreamMessageReader(this.proc.stdout!), new StreamMessageWriter(this.proc.stdin!));
    const c = this.connection;
    c.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
      this.diagnostics.set(p.uri, p);
      this.changed();
    });
    c.onNotification('window/showMessage', (p: { type: number; message: string }) => {
      this.messages.push(p);
      this.changed();
    });
    c.onNotification('window/logMessage', (p: { type: number; message: string }) => {
      this.messages.push(p);
    });
    c.onRequest('window/showMessageRequest', (p: { type: number; message: string }) => {
      this.messages.push(p);
      return null;
    });
    c.onRequest('window/workDoneProgress/create', (p: { token: string | number }) => {
      this.createdTokens.push(p.token);
      this.watchProgress(p.token);
      return null;
    });
    c.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) =>
      p.items.map((item) => (item.section === 'goweave' ? settings : null)),
    );
    c.onRequest('client/registerCapability', () => null);
    c.onRequest('client/unregisterCapability', () => null);
    c.onRequest('workspace/codeLens/refresh', () => null);
    c.onRequest('workspace/diagnostic/refresh', () => null);
    c.onRequest('window/showDocument', (p: { uri: string; external?: boolean; takeFocus?: boolean }) => {
      this.shownDocuments.push(p);
      return { success: true };
    });
    c.listen();
  }

  /** Records $/progress for token (a token the client chose, or one the server created). */
  watchProgress(token: string | number): void {
    this.connection.onProgress(WorkDoneProgress.type, token, (value) => {
      this.progress.push({ token, value });
      this.changed();
    });
  }

  private changed(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) {
      f();
    }
  }

  /** Waits until probe returns a value other than undefined, or fails after timeoutMs. */
  async waitFor<T>(what: string, timeoutMs: number, probe: () => T | undefined): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const v = probe();
      if (v !== undefined) {
        return v;
      }
      if (this.exitCode !== undefined) {
        throw new Error(`goweave serve exited (code ${this.exitCode}) while waiting for ${what}; stderr:\n${this.stderr}`);
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(`timed out after ${timeoutMs}ms waiting for ${what}; server messages: ${JSON.stringify(this.messages)}; stderr tail:\n${this.stderr.slice(-3000)}`);
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 500));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  diagnosticsOf(uri: string): Diagnostic[] {
    return this.diagnostics.get(uri)?.diagnostics ?? [];
  }

  /**
   * Stops the server as vscode-languageclient does: shutdown, exit, then end of its stdin;
   * a server still running graceMs later is killed (VS Code waits 2 s). Resolves with the
   * exit code (null when killed).
   */
  async shutdown(graceMs: number): Promise<number | null> {
    try {
      // A server that dies instead of answering must fail the test, not hang it.
      await Promise.race([
        this.connection.sendRequest('shutdown'),
        this.exited.then((code) => {
          throw new Error(`goweave serve exited (code ${code}) without answering shutdown; stderr tail:\n${this.stderr.slice(-2000)}`);
        }),
      ]);
      await this.connection.sendNotification('exit');
      this.connection.end();
      const timer = setTimeout(() => this.proc.kill('SIGKILL'), graceMs);
      const code = await this.exited;
      clearTimeout(timer);
      return code;
    } finally {
      this.connection.dispose();
    }
  }

  kill(): void {
    if (this.exitCode === undefined) {
      this.proc.kill('SIGKILL');
    }
    this.connection.dispose();
  }
}
