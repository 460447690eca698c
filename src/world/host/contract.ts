/**
 * What the host gives the test file (`FileWorld`, `FileSnapshot`) and what its own serving parts
 * read of it (`HostView`). What it reads of the file, and the runs it credits, are the door's
 * contract (../door.ts).
 */
import type { ToolDoor } from '../door';
import type { WorldEngine } from '../engine/engine';
import type { WorldHandle } from '../handle';
import type { WorldDefinition } from '../model';
import type { WorldHttpRouter } from '../transports/http';
import type { McpTransport } from '../transports/mcp/in-process';
import type { FileTree } from '../workspace/tree';

/** The workspace files a run starts from, to tell what it changed (see executeRun). */
export type FileSnapshot = ReadonlyMap<string, FileTree>;

/** `understudy.world`: this file's world. */
export interface FileWorld extends WorldHandle {
  /** Loads a world file (a relative path is relative to process.cwd()) for the rest of this file. */
  load(path: string): FileWorld;
  /** Whether a world is loaded. */
  readonly loaded: boolean;
  /**
   * A connected client-side transport to the MCP server of a package with the mcp binding, for
   * `@modelcontextprotocol/sdk`'s `client.connect(transport)`. Calls go as `actorId` (default:
   * the drill's actor, else the world's default actor), to the running drill trial's world if any.
   */
  mcpTransport(packageId: string, options?: { actorId?: string }): McpTransport;
}

/** Where requests go now: the running drill trial's world while one runs, else the file's. */
export interface ServingTarget {
  engine: WorldEngine | undefined;
  /** The drill trial's actor; undefined: the world's default actor. */
  actorId: string | undefined;
  router: WorldHttpRouter | undefined;
}

/** What the host's serving parts (HTTP, MCP, the served port) read of it: the door their calls go through, and the world. */
export interface HostView extends ToolDoor {
  /** The world loaded now, if any. */
  definition(): WorldDefinition | undefined;
  /** The definition, or the error every world API gives without one. */
  require(where: string): WorldDefinition;
  target(): ServingTarget;
}

export const MISSING =
  'no world is loaded for this test file. Set testEnvironmentOptions.understudy.world in the Jest config, ' +
  'add the docblock pragma `@understudy-world <path>` to the test file, or call understudy.world.load(path).';
