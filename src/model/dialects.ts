/**
 * Which stream dialect answers a request. A setting comes from the fixture (`dialect`), the
 * test or the file (`understudy.model.dialect(…)`), or the `dialect` option, the most specific
 * winning; among the dialects it names that change this reply on this protocol, requests take
 * turns in order (from `seed`), counted per test and per kind of reply (replies that the same
 * dialects fit share one count), so every dialect comes round and a test replays the same
 * variants every run.
 */
import type { NeutralReply } from '../conversation';
import {
  DIALECT_NAMES,
  type DialectList,
  type DialectName,
  type DialectSetting,
} from '../fixtures/stream-dialects';
import type { Fixture } from '../fixtures/types';

function normalized(setting: DialectSetting): { names: readonly DialectName[]; seed: number } {
  if (setting === 'all') return { names: DIALECT_NAMES, seed: 0 };
  if (setting === 'none') return { names: [], seed: 0 };
  if (Array.isArray(setting)) return { names: setting, seed: 0 };
  const { dialects, seed } = setting as { dialects: DialectList; seed?: number };
  return { names: dialects === 'all' ? DIALECT_NAMES : dialects, seed: seed ?? 0 };
}

const OPENROUTER_KEEP_ALIVE: DialectSetting = ['keep-alive'];

type Dialects = typeof import('../providers/dialects');
// Required when a setting asks for a dialect: a file that names none never loads them.
const dialects = (): Dialects => require('../providers/dialects');

export class DialectChooser {
  private layers: { file?: DialectSetting; test?: DialectSetting } = {};
  /** A test that reset the model does not see what the file set, until it ends. */
  private fileHidden = false;
  /** Turns per set of applicable dialects: replies of one kind take every dialect that fits them in turn. */
  private readonly turns = new Map<string, number>();

  set(scope: 'file' | 'test', setting: DialectSetting | undefined): void {
    this.layers[scope] = setting;
  }

  /** Drops what the scope set (a test ended, or `reset()`); `hideFile`: also what the file set, for this test. */
  clear(scope: 'file' | 'test', hideFile = false): void {
    this.layers[scope] = undefined;
    this.fileHidden = scope === 'test' && hideFile;
  }

  /** Turns start again (a test starts, a drill trial restarts). */
  restart(): void {
    this.turns.clear();
  }

  /** The dialect for this reply, or undefined for the canonical stream. */
  choose(
    fixture: Fixture,
    protocol: string,
    reply: NeutralReply,
    streamed: boolean,
    option: DialectSetting | undefined,
  ): DialectName | undefined {
    const setting =
      fixture.dialect ??
      // aimock's OpenRouter keep-alive comments are this dialect.
      (fixture.openRouterProcessing === true && protocol === 'openai.chat'
        ? OPENROUTER_KEEP_ALIVE
        : undefined) ??
      this.layers.test ??
      (this.fileHidden ? undefined : this.layers.file) ??
      option;
    if (setting === undefined || setting === 'none') return undefined;
    const { names, seed } = normalized(setting);
    const d = dialects();
    const applicable = names.filter((name) => d.dialectApplies(name, protocol, reply, streamed));
    if (applicable.length === 0) return undefined;
    const key = `${protocol}|${applicable.join(',')}`;
    const turn = this.turns.get(key) ?? 0;
    this.turns.set(key, turn + 1);
    return applicable[(((seed + turn) % applicable.length) + applicable.length) % applicable.length];
  }
}

/** The dialects that change some reply on `protocol`, for a test that runs once per dialect (`it.each`). */
export function dialectsFor(protocol: string): DialectName[] {
  return dialects().dialectsOf(protocol);
}
