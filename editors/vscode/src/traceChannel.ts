// The channel vscode-languageclient writes the LSP message trace to. Since version 10 the client
// traces only while its trace channel's log level is Trace, and reads `goweave.trace.server`
// only to choose between messages and verbose; a LogOutputChannel starts at Info and an
// extension cannot change its level, so the setting alone showed nothing. This channel's level
// follows the setting instead: Trace while it is "messages" or "verbose", Info while "off", and
// it tells the client when that changes. Kept free of the vscode module for unit tests.

/** vscode.LogLevel's values (the enum is numeric and stable). */
export const LogLevel = { Off: 0, Trace: 1, Debug: 2, Info: 3, Warning: 4, Error: 5 } as const;

export type TraceSetting = 'off' | 'messages' | 'verbose';

/** Reads goweave.trace.server; anything but messages/verbose counts as off. */
export function traceSetting(value: unknown): TraceSetting {
  return value === 'messages' || value === 'verbose' ? value : 'off';
}

/** Where the trace lines go: a plain output channel. */
export interface LineSink {
  readonly name: string;
  append(value: string): void;
  appendLine(value: string): void;
  replace(value: string): void;
  clear(): void;
  show(preserveFocus?: boolean): void;
  hide(): void;
  dispose(): void;
}

type Listener = (level: number) => void;

/**
 * TraceChannel has the shape of vscode.LogOutputChannel (what the client's traceOutputChannel
 * option takes). Call settingChanged when goweave.trace.server may have changed.
 */
export class TraceChannel {
  private listeners: Listener[] = [];
  private level: number;

  constructor(
    private readonly sink: LineSink,
    private readonly read: () => TraceSetting,
  ) {
    this.level = levelOf(read());
  }

  get name(): string {
    return this.sink.name;
  }

  get logLevel(): number {
    return this.level;
  }

  readonly onDidChangeLogLevel = (listener: Listener): { dispose(): void } => {
    this.listeners.push(listener);
    return {
      dispose: () => {
        this.listeners = this.listeners.filter((l) => l !== listener);
      },
    };
  };

  /** Re-reads the setting and tells the listeners (the client) about a new level. */
  settingChanged(): void {
    const level = levelOf(this.read());
    if (level === this.level) {
      return;
    }
    this.level = level;
    for (const l of [...this.listeners]) {
      l(level);
    }
  }

  trace(message: string): void {
    if (this.level === LogLevel.Trace) {
      this.sink.appendLine(message);
    }
  }
  debug(message: string): void {
    this.sink.appendLine(message);
  }
  info(message: string): void {
    this.sink.appendLine(message);
  }
  warn(message: string): void {
    this.sink.appendLine(message);
  }
  error(error: string | Error): void {
    this.sink.appendLine(error instanceof Error ? error.message : error);
  }
  append(value: string): void {
    this.sink.append(value);
  }
  appendLine(value: string): void {
    this.sink.appendLine(value);
  }
  replace(value: string): void {
    this.sink.replace(value);
  }
  clear(): void {
    this.sink.clear();
  }
  show(preserveFocus?: boolean): void {
    this.sink.show(preserveFocus);
  }
  hide(): void {
    this.sink.hide();
  }
  dispose(): void {
    this.listeners = [];
    this.sink.dispose();
  }
}

function levelOf(s: TraceSetting): number {
  return s === 'off' ? LogLevel.Info : LogLevel.Trace;
}
