// The VS Code extension: starts `goweave serve` for Go files and wires its diagnostics, code
// lenses, code actions, commands and progress into VS Code. The logic lives in modules that
// do not import vscode (binary, settings, status, cursor, commandResult); this file only
// connects them to the editor.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import {
  ClientCapabilities,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  StaticFeature,
  TransportKind,
} from 'vscode-languageclient/node';

import { findBinary, installHint } from './binary';
import { presentResult } from './commandResult';
import { findingAtLine, testAtLine } from './cursor';
import { defaultSettings, didChangeConfigurationParams, readServerSettings, section, ServerSettings } from './settings';
import { CampaignStatus, ProgressValue } from './status';
import { TraceChannel, traceSetting } from './traceChannel';

let client: LanguageClient | undefined;
let output: vscode.LogOutputChannel;
let traceOutput: TraceChannel;
let statusItem: vscode.StatusBarItem;
const campaigns = new CampaignStatus();

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('goweave', { log: true });
  statusItem = vscode.window.createStatusBarItem('goweave.status', vscode.StatusBarAlignment.Left, 0);
  statusItem.name = 'goweave';
  traceOutput = new TraceChannel(vscode.window.createOutputChannel('goweave (LSP trace)'), () =>
    traceSetting(vscode.workspace.getConfiguration(section).get('trace.server')),
  );
  context.subscriptions.push(output, statusItem, traceOutput);

  const register = (id: string, f: () => unknown) => context.subscriptions.push(vscode.commands.registerCommand(id, f));
  register('goweave.fuzzTestAtCursor', fuzzTestAtCursor);
  register('goweave.fuzzPackage', fuzzPackage);
  register('goweave.stopFuzzing', () => runServerCommand('goweave.stop', {}));
  register('goweave.replayAtCursor', () => withFindingAtCursor('goweave.replay'));
  register('goweave.showTimelineAtCursor', () => withFindingAtCursor('goweave.show_timeline'));
  register('goweave.clearFindings', () => runServerCommand('goweave.clear', {}));
  register('goweave.showServerLog', () => output.show(true));
  register('goweave.restartServer', async () => {
    await stopClient();
    await startClient();
  });

  context.subscriptions.push(
    vscode.languages.onDidChangeDiagnostics(() => {
      if (client?.state === State.Running) {
        showStatus();
      }
    }),
  );
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('goweave.trace.server')) {
        traceOutput.settingChanged();
      }
      if (e.affectsConfiguration('goweave.path')) {
        await stopClient();
        await startClient();
      } else if (e.affectsConfiguration(section) && !onlyTrace(e) && client?.state === State.Running) {
        await client.sendNotification('workspace/didChangeConfiguration', didChangeConfigurationParams(currentSettings()));
      }
    }),
  );

  await startClient();
}

export async function deactivate(): Promise<void> {
  await stopClient();
}

// currentSettings reads the server settings; report shows invalid values to the user (on
// start and on change, not on every pull by the server).
function currentSettings(report = true): ServerSettings {
  const config = vscode.workspace.getConfiguration(section);
  const { settings, problems } = readServerSettings((name) => {
    // Only values the user set; defaults come from settings.ts.
    const inspected = config.inspect(name);
    return inspected?.workspaceFolderValue ?? inspected?.workspaceValue ?? inspected?.globalValue;
  });
  if (report) {
    for (const p of problems) {
      output.warn(p);
      void vscode.window.showWarningMessage(p);
    }
  }
  return settings;
}

// shownFindings counts the goweave findings the editor shows (one diagnostic each, named by
// its data.id).
function shownFindings(): number {
  const ids = new Set<string>();
  for (const [uri, diags] of vscode.languages.getDiagnostics()) {
    for (const d of diags) {
      if (d.source === 'goweave') {
        const data = (d as vscode.Diagnostic & { data?: { id?: unknown } }).data;
        ids.add(typeof data?.id === 'string' ? data.id : `${uri.toString()}:${d.range.start.line}:${d.message}`);
      }
    }
  }
  return ids.size;
}

function showStatus(): void {
  const view = campaigns.view(shownFindings());
  statusItem.text = view.text;
  statusItem.tooltip = view.tooltip;
  statusItem.command = view.running ? 'goweave.stopFuzzing' : 'goweave.showServerLog';
  statusItem.show();
}

async function startClient(): Promise<void> {
  const configured = vscode.workspace.getConfiguration(section).get<string>('path');
  const lookup = findBinary(configured, {
    env: process.env,
    platform: process.platform,
    homedir: os.homedir(),
    isExecutable: (p) => {
      try {
        fs.accessSync(p, fs.constants.X_OK);
        return fs.statSync(p).isFile();
      } catch {
        return false;
      }
    },
  });
  if (!lookup.found) {
    output.appendLine(lookup.message);
    statusItem.text = '$(warning) goweave: not installed';
    statusItem.tooltip = installHint;
    statusItem.command = 'goweave.showServerLog';
    statusItem.show();
    // Not awaited: activation must not wait for the user to dismiss the message.
    void vscode.window.showErrorMessage(lookup.message, 'Copy install command', 'Open settings').then(async (choice) => {
      if (choice === 'Copy install command') {
        await vscode.env.clipboard.writeText('go install github.com/goweave/goweave/cmd/goweave@latest');
      } else if (choice === 'Open settings') {
        await vscode.commands.executeCommand('workbench.action.openSettings', 'goweave.path');
      }
    });
    return;
  }
  if (lookup.warning) {
    output.warn(lookup.warning);
    void vscode.window.showWarningMessage(`goweave: ${lookup.warning}`);
  }
  output.appendLine(`Starting ${lookup.path} serve (found via ${lookup.source}).`);

  const serverOptions: ServerOptions = {
    command: lookup.path,
    args: ['serve'],
    transport: TransportKind.stdio,
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'go' }],
    outputChannel: output,
    // Not a LogOutputChannel: its level follows goweave.trace.server (see traceChannel.ts).
    traceOutputChannel: traceOutput as unknown as vscode.LogOutputChannel,
    initializationOptions: currentSettings(),
    middleware: {
      handleWorkDoneProgress: (token, params, next) => {
        campaigns.update(token, params as ProgressValue);
        showStatus();
        next(token, params);
      },
      // Lenses and code actions run server commands through the client; show what replay and
      // show_timeline return instead of dropping it.
      executeCommand: async (command, args, next) => {
        const result = await next(command, args);
        await present(command, result);
        return result;
      },
      workspace: {
        // Answer pulls of the "goweave" section with the validated server settings only.
        configuration: async (params, token, next) => {
          const answers = await next(params, token);
          if (!Array.isArray(answers)) {
            return answers;
          }
          return params.items.map((item, i) => (item.section === section ? currentSettings(false) : answers[i]));
        },
      },
    },
  };

  client = new LanguageClient('goweave', 'goweave', serverOptions, clientOptions);
  client.registerFeature(openTimelineFeature);
  client.onDidChangeState((e) => {
    if (e.newState === State.Stopped) {
      campaigns.reset();
      statusItem.text = '$(debug-stop) goweave: server stopped';
      statusItem.command = 'goweave.showServerLog';
    }
  });
  showStatus();
  try {
    await client.start();
  } catch (err) {
    output.appendLine(`goweave serve failed to start: ${String(err)}`);
    void vscode.window.showErrorMessage(`goweave serve failed to start: ${String(err)}. See the goweave output.`);
  }
}

// onlyTrace: the change concerns only goweave.trace.server, which the server does not read.
function onlyTrace(e: vscode.ConfigurationChangeEvent): boolean {
  const names = Object.keys(defaultSettings).map((n) => `${section}.${n}`);
  return !names.some((n) => e.affectsConfiguration(n));
}

// Tells the server (experimental client capability goweave.openTimeline) that the extension
// opens timeline pages itself, in a webview panel, so the server sends no window/showDocument
// for them.
const openTimelineFeature: StaticFeature = {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
    capabilities.experimental = { ...experimental, goweave: { openTimeline: true } };
  },
  initialize(): void {},
  getState: () => ({ kind: 'static' }),
  clear(): void {},
};

async function stopClient(): Promise<void> {
  const c = client;
  client = undefined;
  campaigns.reset();
  if (c && c.state !== State.Stopped) {
    await c.stop();
  }
}

async function present(command: string, result: unknown): Promise<void> {
  const p = presentResult(command, result);
  switch (p.kind) {
    case 'log':
      output.info(p.text);
      break;
    case 'webview': {
      output.info(`timeline: ${p.path}`);
      const html = await fs.promises.readFile(p.path, 'utf8');
      // The page has no scripts and no external resources; the webview allows neither.
      const panel = vscode.window.createWebviewPanel('goweave.timeline', p.title, vscode.ViewColumn.Beside, {
        enableScripts: false,
        localResourceRoots: [],
      });
      panel.webview.html = html;
      break;
    }
    case 'document': {
      const doc = await vscode.workspace.openTextDocument({ content: p.text, language: 'plaintext' });
      await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
      break;
    }
  }
}

async function runServerCommand(command: string, arg: object): Promise<void> {
  if (!client || client.state !== State.Running) {
    void vscode.window.showWarningMessage('goweave: the language server is not running. See the goweave output.');
    return;
  }
  try {
    const result = await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [arg] });
    await present(command, result);
  } catch (err) {
    void vscode.window.showErrorMessage(`goweave: ${command} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

function activeGoEditor(): vscode.TextEditor | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== 'go') {
    void vscode.window.showWarningMessage('goweave: open a Go file first.');
    return undefined;
  }
  return editor;
}

async function fuzzTestAtCursor(): Promise<void> {
  const editor = activeGoEditor();
  if (!editor) {
    return;
  }
  const lines = editor.document.getText().split(/\r?\n/);
  const test = testAtLine(lines, editor.selection.active.line);
  if (!test) {
    void vscode.window.showWarningMessage('goweave: the cursor is not inside a func TestXxx(t *testing.T).');
    return;
  }
  await runServerCommand('goweave.fuzz_test', { uri: editor.document.uri.toString(), test });
}

async function fuzzPackage(): Promise<void> {
  const editor = activeGoEditor();
  if (editor) {
    await runServerCommand('goweave.fuzz_package', { uri: editor.document.uri.toString() });
  }
}

async function withFindingAtCursor(command: 'goweave.replay' | 'goweave.show_timeline'): Promise<void> {
  const editor = activeGoEditor();
  if (!editor) {
    return;
  }
  const diags = vscode.languages.getDiagnostics(editor.document.uri).map((d) => ({
    source: d.source,
    startLine: d.range.start.line,
    endLine: d.range.end.line,
    // vscode-languageclient keeps the LSP diagnostic's data on the converted diagnostic.
    data: (d as vscode.Diagnostic & { data?: unknown }).data,
  }));
  const id = findingAtLine(diags, editor.selection.active.line, 1);
  if (!id) {
    void vscode.window.showWarningMessage('goweave: no goweave finding at the cursor.');
    return;
  }
  await runServerCommand(command, { id });
}
