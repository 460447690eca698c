import type { Variant } from './driver.cjs';

export interface RawClient {
  readonly ready: Promise<void>;
  call(bytes: Buffer): Promise<{ head: string; body: string }>;
  close(): void;
}

export declare function requestBytes(host: string, path: string, variant: Variant): Buffer;
export declare function connect(port: number): RawClient;
