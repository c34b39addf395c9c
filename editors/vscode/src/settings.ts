// Settings of `goweave serve`: their names, defaults and validation, in one table. The
// extension sends them as initializationOptions and on every change as
// workspace/didChangeConfiguration {settings: {goweave: ...}}; package.json declares the same
// names and defaults under "goweave." (a unit test keeps the two in step).

/** The settings `goweave serve` understands, exactly as the server names them. */
export interface ServerSettings {
  backgroundFuzzing: boolean;
  budgetPerTest: string;
  runsPerTest: number;
  strategy: string;
  parallel: number;
  race: boolean;
  packages: string[];
  maxCampaigns: number;
  analysisMemory: number;
}

export const defaultSettings: Readonly<ServerSettings> = Object.freeze({
  backgroundFuzzing: true,
  budgetPerTest: '20s',
  runsPerTest: 100,
  strategy: 'auto',
  parallel: 0,
  race: true,
  packages: ['./...'],
  maxCampaigns: 1,
  analysisMemory: 0,
});

/** Values of the strategy setting, as the fuzzer accepts them. */
export const strategies: readonly string[] = ['auto', 'gfuzz', 'gopie', 'flow', 'prefix', 'record'];

/** The configuration section the settings live in, in VS Code and on the wire. */
export const section = 'goweave';

/** Reads one user setting by its name without the "goweave." prefix; undefined when unset. */
export type SettingReader = (name: keyof ServerSettings) => unknown;

export interface SettingsResult {
  settings: ServerSettings;
  /** One sentence per setting that was invalid and replaced by its default. */
  problems: string[];
}

// Go's time.ParseDuration syntax: "0", or a sequence of decimal numbers with units.
const goDuration = /^(0|([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))*)$/;

/** Reports whether s is a duration Go's time.ParseDuration accepts (without a sign). */
export function isGoDuration(s: string): boolean {
  return goDuration.test(s);
}

type Check = (v: unknown) => boolean;

const isNonNegativeInt: Check = (v) => typeof v === 'number' && Number.isInteger(v) && v >= 0;

const checks: { [K in keyof ServerSettings]: { valid: Check; expect: string } } = {
  backgroundFuzzing: { valid: (v) => typeof v === 'boolean', expect: 'true or false' },
  budgetPerTest: { valid: (v) => typeof v === 'string' && isGoDuration(v), expect: 'a Go duration such as "20s" or "1m30s"' },
  runsPerTest: { valid: isNonNegativeInt, expect: 'an integer >= 0' },
  strategy: { valid: (v) => typeof v === 'string' && strategies.includes(v), expect: `one of ${strategies.join(', ')}` },
  parallel: { valid: isNonNegativeInt, expect: 'an integer >= 0 (0: one per CPU core)' },
  race: { valid: (v) => typeof v === 'boolean', expect: 'true or false' },
  packages: {
    valid: (v) => Array.isArray(v) && v.length > 0 && v.every((p) => typeof p === 'string' && p.trim() !== ''),
    expect: 'a non-empty list of package patterns such as ["./..."]',
  },
  maxCampaigns: { valid: (v) => isNonNegativeInt(v) && (v as number) >= 1, expect: 'an integer >= 1' },
  analysisMemory: { valid: isNonNegativeInt, expect: "an integer >= 0 (MB; 0: a quarter of the machine's memory, at most 1 GB)" },
};

/**
 * Reads the server settings through read, replacing each invalid value by its default and
 * saying so in problems, so that the server never receives a value it would reject.
 */
export function readServerSettings(read: SettingReader): SettingsResult {
  const settings = { ...defaultSettings, packages: [...defaultSettings.packages] } as ServerSettings;
  const problems: string[] = [];
  for (const name of Object.keys(checks) as (keyof ServerSettings)[]) {
    const value = read(name);
    if (value === undefined || value === null) {
      continue;
    }
    if (!checks[name].valid(value)) {
      problems.push(
        `goweave.${name} is ${JSON.stringify(value)}, but must be ${checks[name].expect}; using ${JSON.stringify(defaultSettings[name])}.`,
      );
      continue;
    }
    (settings as unknown as Record<string, unknown>)[name] = Array.isArray(value) ? [...value] : value;
  }
  return { settings, problems };
}

/** The workspace/didChangeConfiguration parameters for settings. */
export function didChangeConfigurationParams(settings: ServerSettings): { settings: { goweave: ServerSettings } } {
  return { settings: { goweave: settings } };
}
