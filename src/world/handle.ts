/**
 * What tests hold: a world handle (`understudy.world`, a drill's `world`) and bindings
 * (`world.bind({ actorId })`, a drill's `binding`) that mockTool calls through.
 */
import { readFileSync } from 'node:fs';
import type { CallVia, ToolDoor } from './door';
import type { WorldEngine } from './engine/engine';
import { WorldError } from './errors';
import type { FileChange, OperationRecord, ScenarioDef, WorldEvent, WorldState } from './types';
import { confine } from './workspace/paths';

// The workspace operations (their schemas built at load) are needed only when a workspace is read.
const workspaceOperations = (): typeof import('./workspace/operations') => require('./workspace/operations');

export interface WorldClockHandle {
  /** World time in ms since the world (re)started. */
  now(): number;
  /** Moves the world clock on (scheduled events due by then fire). */
  advance(ms: number): void;
  /** Whether Jest's fake timers drive it right now. */
  readonly faked: boolean;
}

export interface WorldResetOptions {
  /** Reset only these packages: their state and the counts of rules and faults on their operations. */
  packages?: string[];
  /** Start over from this scenario (a name, or an inline scenario whose rules are per-test). */
  scenario?: string | ScenarioDef;
}

export interface WorldHandle {
  readonly name: string;
  /** Identifies the world file and its behavior modules (builds record it). */
  readonly hash: string;
  /** A copy of the state: `packageId → collection → key → record`. */
  readonly state: WorldState;
  /** The evidence: every operation, in order. */
  readonly operations: readonly OperationRecord[];
  /** Events emitted by operations and scheduled events. */
  readonly events: readonly WorldEvent[];
  readonly clock: WorldClockHandle;
  reset(options?: WorldResetOptions): void;
  /** A binding to call the world as `actorId` (default: the world's default actor). */
  bind(options?: { actorId?: string }): Binding;
  /**
   * The folder of a workspace package (made from its tree on first use; a fresh one per
   * test and drill trial), and what is in it now.
   */
  workspace(packageId: string): WorkspaceHandle;
}

/** A workspace package's folder as the test sees it. */
export interface WorkspaceHandle {
  readonly packageId: string;
  /** The absolute path of the folder: start a spawned coding agent with `cwd: dir`. */
  readonly dir: string;
  /** The files in it now, relative with `/`, sorted. */
  files(): string[];
  /** A file's text now. */
  read(path: string): string;
  /** Every change since the tree was copied, as one unified diff ('' when nothing changed). */
  diff(): string;
  /** The same, file by file. */
  changes(): FileChange[];
}

function workspaceHandle(engine: () => WorldEngine, packageId: string): WorkspaceHandle {
  const where = `world.workspace(${JSON.stringify(packageId)})`;
  const current = () => engine().workspace(packageId);
  current();
  return {
    packageId,
    get dir() {
      return current().dir;
    },
    files: () => [...current().snapshot().keys()],
    read(path: string) {
      if (typeof path !== 'string' || path === '')
        throw new WorldError('BAD_ARGUMENT', `${where}.read(path): expected a relative path string`);
      const at = confine(current().dir, path);
      if ('error' in at) throw new WorldError('BAD_ARGUMENT', `${where}.read(path): ${at.error.message}`);
      if (!workspaceOperations().isFile(at.abs))
        throw new WorldError(
          'BAD_ARGUMENT',
          `${where}.read(path): ${JSON.stringify(path)} is not a file in the workspace`,
        );
      return readFileSync(at.abs, 'utf8');
    },
    diff: () =>
      current()
        .changes()
        .map((c) => c.diff)
        .join(''),
    changes: () => current().changes(),
  };
}

/** Who calls the world, and until when: a binding expires with the test or drill that made it. */
export interface Binding {
  readonly actorId: string;
  readonly world: WorldHandle;
  /** True once the test, drill trial or file that created it has ended. */
  readonly expired: boolean;
}

export interface BindingInternals {
  engine(): WorldEngine;
  /** The world's door (WorldHost.callTool): mockTool's calls go through it. */
  door: ToolDoor;
  /** What created it, for the expiry message. */
  owner: string;
}

/** What mockTool hands the door: the binding's engine, read at each call (a world reset may replace it). */
export interface BindingInside extends BindingInternals {
  via: CallVia;
}

const internals = new WeakMap<object, BindingInside>();

class WorldBinding implements Binding {
  private isExpired = false;
  constructor(
    readonly actorId: string,
    readonly world: WorldHandle,
  ) {}
  get expired(): boolean {
    return this.isExpired;
  }
  /** @internal */
  expire(): void {
    this.isExpired = true;
  }
}

export function createBinding(actorId: string, world: WorldHandle, inside: BindingInternals): WorldBinding {
  const binding = new WorldBinding(actorId, world);
  const via: CallVia = {
    transport: 'direct',
    get engine() {
      return inside.engine();
    },
  };
  internals.set(binding, { ...inside, via });
  return binding;
}

export function expireBinding(binding: Binding): void {
  (binding as WorldBinding).expire();
}

export function internalsOf(binding: unknown, where: string): BindingInside {
  const found = binding && typeof binding === 'object' ? internals.get(binding) : undefined;
  if (!found) {
    throw new WorldError(
      'BAD_ARGUMENT',
      `${where}: expected a binding from understudy.world.bind({ actorId }) or a drill's { binding }, received ${binding === null ? 'null' : typeof binding}`,
    );
  }
  return found;
}

export function createHandle(
  engine: () => WorldEngine,
  bind: (actorId: string | undefined) => Binding,
  reset: (options?: WorldResetOptions) => void,
): WorldHandle {
  const clock: WorldClockHandle = {
    now: () => {
      const e = engine();
      e.settle();
      return e.clock.now();
    },
    advance: (ms) => {
      if (!(typeof ms === 'number' && ms >= 0))
        throw new WorldError(
          'BAD_ARGUMENT',
          `world.clock.advance(ms): expected a number ≥ 0, received ${String(ms)}`,
        );
      const e = engine();
      e.clock.advance(ms);
      e.settle();
    },
    get faked() {
      return engine().clock.faked;
    },
  };
  return {
    get name() {
      return engine().definition.name;
    },
    get hash() {
      return engine().definition.hash;
    },
    get state() {
      return engine().snapshot();
    },
    get operations() {
      return [...engine().operations];
    },
    get events() {
      return [...engine().events];
    },
    clock,
    reset,
    bind: (options) => bind(options?.actorId),
    workspace: (packageId) => {
      if (typeof packageId !== 'string' || packageId === '')
        throw new WorldError('BAD_ARGUMENT', 'world.workspace(packageId): expected a package id string');
      return workspaceHandle(engine, packageId);
    },
  };
}
