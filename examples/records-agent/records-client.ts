/**
 * The records service's client module, as the team ships it. The agent imports it; tests
 * replace `saveRecord` with jest.mock + mockTool, so this code never runs there (it would
 * reach a host nothing mocks, and fail the test).
 */
export interface SavedRecord {
  id: string;
  text: string;
  version: number;
}

/** The client's own error: what callers catch and what they retry on. */
export class RecordStoreError extends Error {
  override readonly name = 'RecordStoreError';
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

export interface SaveOptions {
  /** Retries of one logical save reuse it; the store applies each request id once. */
  requestId?: string;
}

const STORE = 'https://records-db.internal.example/v2';

export async function saveRecord(id: string, text: string, options: SaveOptions = {}): Promise<SavedRecord> {
  const response = await fetch(`${STORE}/records/${encodeURIComponent(id)}`, {
    method: 'PUT',
    headers: {
      'content-type': 'application/json',
      ...(options.requestId && { 'idempotency-key': options.requestId }),
    },
    body: JSON.stringify({ text }),
  });
  const body = (await response.json()) as SavedRecord & {
    error?: { code: string; message: string; retryable: boolean };
  };
  if (body.error) throw new RecordStoreError(body.error.code, body.error.message, body.error.retryable);
  return body;
}
