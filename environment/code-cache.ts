/**
 * V8's code cache for the package's own bundle, kept between processes: a Jest worker compiles
 * the sandbox bundle (about 1 MB) once, a Vitest worker once per test file (Vitest starts a
 * process per file), and each compile parses the whole file and compiles again every function
 * the session runs. With the cache a process that finds it skips both.
 *
 * The cache of a bundle is written once, after a test file ran (so it holds the functions that
 * file compiled), to a folder of its own under the system's temporary folder, keyed by the file's
 * name, the Node version and the source's length and CRC-32 (V8 itself checks only the length;
 * CRC-32 is what Node's own compile cache checks a source by, at a third of sha-256's cost on the
 * 1 MB bundle that every Vitest test file's process reads); it replaces the cache of an earlier
 * build of the same file. Only a folder
 * this user owns and no one else may write to is read: a cache there runs as code. It holds the
 * package's compiled code, nothing of a test's. `NODE_DISABLE_COMPILE_CACHE` (Node's own switch
 * for its compile cache) turns it off.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import vm from 'node:vm';
import { crc32 } from 'node:zlib';

/** A script compiled from `source`, and how to keep its code for the next process. */
export interface CachedScript {
  script: vm.Script;
  /** Writes the script's code cache, unless a usable one was found; once per script. */
  keep(): void;
}

const FOLDER = 'jest-understudy-code-cache';

/** The scripts this process compiled, whose cache it may still have to write. */
const compiled = new Set<CachedScript>();

/** After a test file ran: keeps the code every script compiled for the next process. */
export function keepCompiledCode(): void {
  for (const script of compiled) script.keep();
  compiled.clear();
}

/** The cache folder under each folder asked for, checked once per process (a process compiles several files). */
const checked = new Map<string, string | undefined>();

/** The cache folder, when it is this user's alone (created so when missing); else undefined. */
function privateFolder(under: string): string | undefined {
  if (!checked.has(under)) checked.set(under, checkedFolder(under));
  return checked.get(under);
}

function checkedFolder(under: string): string | undefined {
  const folder = join(under, FOLDER);
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const stat = lstatSync(folder);
    const uid = process.getuid?.();
    if (!stat.isDirectory() || (uid !== undefined && stat.uid !== uid) || (stat.mode & 0o022) !== 0)
      return undefined;
    return folder;
  } catch {
    return undefined;
  }
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Compiles `source` (named `filename` in stacks) with the code cache, where it may be used; the
 * cache's folder is made in `under` (the system's temporary folder). A source given in parts may
 * hold a file's bytes as read: the digest reads those bytes rather than encoding the text again.
 */
export function compileCached(
  filename: string,
  source: string | ReadonlyArray<string | Buffer>,
  under = tmpdir(),
): CachedScript {
  const parts = typeof source === 'string' ? [source] : source;
  const text = parts.map((part) => (typeof part === 'string' ? part : part.toString('utf8'))).join('');
  // No `import()` loader: the bundles are scripts (scripts/bundle-host.cjs checks they need none).
  const options = { filename };
  const disabled = Boolean(process.env.NODE_DISABLE_COMPILE_CACHE);
  const folder = disabled ? undefined : privateFolder(under);
  if (!folder) return { script: new vm.Script(text, options), keep: () => undefined };
  const hash = createHash('sha256');
  for (const part of [filename, process.version, process.arch]) hash.update(part).update('\0');
  // One cache per script file and Node; a rebuilt file's cache replaces the one before.
  const name = hash.digest('hex').slice(0, 24);
  let crc = 0;
  for (const part of parts) crc = crc32(part, crc);
  const file = join(folder, `${name}-${text.length.toString(36)}-${crc.toString(16).padStart(8, '0')}.bin`);
  const cachedData = readCache(file);
  const script = new vm.Script(text, { ...options, cachedData });
  if (cachedData !== undefined && script.cachedDataRejected !== true)
    return { script, keep: () => undefined };
  let wanted = true;
  const made: CachedScript = {
    script,
    keep() {
      if (!wanted) return;
      wanted = false;
      // Written beside its place and renamed into it: a process reading it sees all or nothing.
      const partial = `${file}.${process.pid}.tmp`;
      try {
        writeFileSync(partial, script.createCachedData(), { mode: 0o600 });
        renameSync(partial, file);
        for (const other of readdirSync(folder))
          if (other.startsWith(`${name}-`) && other.endsWith('.bin') && join(folder, other) !== file)
            rmSync(join(folder, other), { force: true });
      } catch {
        // A cache that cannot be written costs the next process a compile, nothing more.
        rmSync(partial, { force: true });
      }
    },
  };
  compiled.add(made);
  return made;
}
