/**
 * What a spoken turn's audio is known by: a recorded transcript is bound to the audio it was
 * heard from, so a replay hears that audio, and only that audio, as the recorded words.
 */
import { createHash } from 'node:crypto';

/** `sha256:` of the bytes of base64 `chunks`, as one stream. */
export function spokenDigest(chunks: readonly string[]): string {
  const hash = createHash('sha256');
  for (const chunk of chunks) hash.update(Buffer.from(chunk, 'base64'));
  return `sha256:${hash.digest('hex')}`;
}
