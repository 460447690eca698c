/**
 * A production client module as an agent would import it: every function reaches the real
 * record store (here: a host nothing mocks, so a call that slipped through fails the test).
 * `realCalls` counts how often the real code ran.
 */
export const realCalls = { count: 0 };

export interface SavedRecord {
  id: string;
  text: string;
  version: number;
}

/** The dependency's own error class (what `error(envelope)` builds). */
export class RecordStoreError extends Error {
  override readonly name = 'RecordStoreError';
  constructor(
    readonly code: string,
    message: string,
    readonly httpStatus: number,
  ) {
    super(message);
  }
}

export async function saveRecord(id: string, text: string): Promise<SavedRecord> {
  realCalls.count++;
  const response = await fetch(`https://records-db.internal.test/records/${id}`, {
    method: 'PUT',
    body: JSON.stringify({ text }),
  });
  return (await response.json()) as SavedRecord;
}

export function getRecordSync(id: string): SavedRecord {
  realCalls.count++;
  throw new Error(`the real record store was called for ${id}`);
}

export const recordsClient = {
  /** A method spied on with jest.spyOn. */
  getRecord(id: string): Promise<SavedRecord> {
    realCalls.count++;
    return Promise.reject(new Error(`the real record store was called for ${id}`));
  },
};
