// The campaign state shown in the status bar, derived from the server's $/progress
// notifications. Free of the vscode module so that it can be unit-tested in plain node.

/** A WorkDoneProgress value as sent in $/progress (LSP 3.15+). */
export type ProgressValue =
  | { kind: 'begin'; title: string; message?: string; percentage?: number; cancellable?: boolean }
  | { kind: 'report'; message?: string; percentage?: number; cancellable?: boolean }
  | { kind: 'end'; message?: string };

export type ProgressToken = string | number;

/** Counts the server writes into progress messages, e.g. "TestX: 40 runs, 1 finding". */
export interface Counts {
  runs?: number;
  findings?: number;
}

/** Extracts "<n> run(s)" and "<n> finding(s)" from a progress message; absent counts stay undefined. */
export function parseCounts(message: string | undefined): Counts {
  const counts: Counts = {};
  if (!message) {
    return counts;
  }
  const runs = /(\d+)\s+runs?\b/i.exec(message);
  if (runs) {
    counts.runs = Number(runs[1]);
  }
  const findings = /(\d+)\s+(findings?|bugs?)\b/i.exec(message);
  if (findings) {
    counts.findings = Number(findings[1]);
  } else if (/\bno (findings|bugs)\b/i.test(message)) {
    counts.findings = 0;
  }
  return counts;
}

interface Campaign {
  title: string;
  message?: string;
  percentage?: number;
  counts: Counts;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** What the status bar item shows. */
export interface StatusView {
  text: string;
  tooltip: string;
  /** True while a campaign runs: clicking then stops the campaigns. */
  running: boolean;
}

/**
 * Tracks the campaigns the server reports through $/progress and summarizes them for the
 * status bar: while campaigns run, their runs and findings; afterwards, the last result.
 */
export class CampaignStatus {
  private readonly campaigns = new Map<ProgressToken, Campaign>();
  private last: { title: string; message?: string; counts: Counts } | undefined;

  /** Applies one $/progress value; values for tokens that never began are ignored. */
  update(token: ProgressToken, value: ProgressValue): void {
    switch (value.kind) {
      case 'begin':
        this.campaigns.set(token, {
          title: value.title,
          message: value.message,
          percentage: value.percentage,
          counts: parseCounts(value.message),
        });
        break;
      case 'report': {
        const c = this.campaigns.get(token);
        if (!c) {
          return;
        }
        if (value.message !== undefined) {
          c.message = value.message;
          c.counts = { ...c.counts, ...parseCounts(value.message) };
        }
        if (value.percentage !== undefined) {
          c.percentage = value.percentage;
        }
        break;
      }
      case 'end': {
        const c = this.campaigns.get(token);
        if (!c) {
          return;
        }
        this.campaigns.delete(token);
        this.last = { title: c.title, message: value.message, counts: { ...c.counts, ...parseCounts(value.message) } };
        break;
      }
    }
  }

  /** Forgets every running campaign, e.g. when the server stops. */
  reset(): void {
    this.campaigns.clear();
  }

  get running(): number {
    return this.campaigns.size;
  }

  /**
   * present is the number of goweave findings the editor shows now (its diagnostics): once
   * no campaign runs, that is the count shown, so that a replay or a clear, which end with
   * no count of their own, do not lose or falsify it.
   */
  view(present?: number): StatusView {
    if (this.campaigns.size > 0) {
      let runs: number | undefined;
      let findings: number | undefined;
      const lines: string[] = [];
      for (const c of this.campaigns.values()) {
        if (c.counts.runs !== undefined) {
          runs = (runs ?? 0) + c.counts.runs;
        }
        if (c.counts.findings !== undefined) {
          findings = (findings ?? 0) + c.counts.findings;
        }
        const pct = c.percentage !== undefined ? ` (${Math.round(c.percentage)}%)` : '';
        lines.push(`${c.title}${pct}${c.message ? ': ' + c.message : ''}`);
      }
      const parts: string[] = [];
      if (this.campaigns.size > 1) {
        parts.push(plural(this.campaigns.size, 'campaign'));
      } else {
        const only = [...this.campaigns.values()][0];
        if (only.percentage !== undefined) {
          parts.push(`${Math.round(only.percentage)}%`);
        }
      }
      if (runs !== undefined) {
        parts.push(plural(runs, 'run'));
      }
      if (findings !== undefined) {
        parts.push(plural(findings, 'finding'));
      }
      return {
        text: `$(sync~spin) goweave${parts.length ? ': ' + parts.join(', ') : ''}`,
        tooltip: lines.join('\n') + '\nClick to stop fuzzing.',
        running: true,
      };
    }
    if (present !== undefined && (this.last || present > 0)) {
      return {
        text: `${present > 0 ? '$(bug)' : '$(check)'} goweave: ${plural(present, 'finding')}`,
        tooltip: this.last ? `Last: ${this.last.title}${this.last.message ? ': ' + this.last.message : ''}` : 'goweave findings in the workspace',
        running: false,
      };
    }
    if (this.last) {
      const f = this.last.counts.findings;
      const icon = f !== undefined && f > 0 ? '$(bug)' : '$(check)';
      return {
        text: `${icon} goweave${f !== undefined ? ': ' + plural(f, 'finding') : ''}`,
        tooltip: `Last campaign: ${this.last.title}${this.last.message ? ': ' + this.last.message : ''}`,
        running: false,
      };
    }
    return { text: '$(beaker) goweave', tooltip: 'goweave: no campaign has run yet.', running: false };
  }
}
