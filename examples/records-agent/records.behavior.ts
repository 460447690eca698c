/**
 * How the record store saves: a new version each time, an event for the activity feed.
 * A deterministic behavior module of records.world.yaml (loaded through Jest).
 */
import type { BehaviorContext } from 'jest-understudy';

interface StoredRecord {
  id: string;
  text: string;
  version: number;
}

export function save(
  ctx: BehaviorContext<{ id: string; text: string }, { records: Record<string, StoredRecord> }>,
) {
  const { id, text } = ctx.input;
  const record = { id, text, version: (ctx.state.records[id]?.version ?? 0) + 1 };
  ctx.state.records[id] = record;
  ctx.emit({ type: 'record.saved', id, version: record.version });
  return record;
}
