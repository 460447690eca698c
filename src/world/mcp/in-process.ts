/**
 * The in-process transport: the client end of a connection to a package's MCP server, shaped
 * as `@modelcontextprotocol/sdk`'s `Transport` (for `client.connect(transport)`), without
 * loading the SDK. A message is handled within the `send` that carries it, so the call keeps
 * the caller's async context (the run it belongs to); the answer arrives on `onmessage` a
 * microtask later, as from any transport. A call of a run that crashed is never answered; the
 * file closes such a connection when its tests are done (`closeIfWaiting`), so the client's
 * request timer does not keep the test process running.
 */
import {
  internalError,
  type JsonRpcMessage,
  type JsonRpcResponse,
  parseMessage,
  RPC,
  rpcError,
} from './protocol';

/** The SDK's `Transport`, structurally: what `Client.connect()` drives. */
export interface McpTransport {
  start(): Promise<void>;
  send(message: unknown, options?: unknown): Promise<void>;
  close(): Promise<void>;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  // The SDK types it generically: <T extends JSONRPCMessage>(message: T, extra?) => void.
  onmessage?: (message: any, extra?: any) => void;
  sessionId?: string;
  setProtocolVersion?: (version: string) => void;
}

export interface InProcessServer {
  /** Names the connection in errors: `the MCP server of package "notes"`. */
  label: string;
  /** The response to a message (undefined: nothing to answer); throws for a failure of the server. */
  handle(message: JsonRpcMessage): Promise<JsonRpcResponse> | undefined;
}

/** The client end of an in-process connection, as the world that made it keeps it. */
export interface InProcessConnection extends McpTransport {
  /** Closes the connection if an answer is still due (a crashed run's), as a server going away would. */
  closeIfWaiting(): Promise<void>;
}

class InProcessTransport implements InProcessConnection {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: unknown, extra?: unknown) => void;
  private closed = false;
  /** Answers not delivered yet. */
  private due = 0;

  constructor(private readonly server: InProcessServer) {}

  async start(): Promise<void> {}

  async send(raw: unknown): Promise<void> {
    if (this.closed) throw new Error(`the connection to ${this.server.label} is closed`);
    const message = parseMessage(raw);
    if (!message) {
      const id = (raw as { id?: unknown } | null)?.id;
      this.deliver(
        Promise.resolve(
          rpcError(
            typeof id === 'string' || typeof id === 'number' ? id : null,
            RPC.INVALID_REQUEST,
            'Invalid Request: not a JSON-RPC 2.0 message',
          ),
        ),
      );
      return;
    }
    let answer: Promise<JsonRpcResponse> | undefined;
    try {
      answer = this.server.handle(message);
    } catch (error) {
      answer = Promise.reject(error);
    }
    if (answer) this.deliver(answer.catch((error) => internalError(message, error)));
  }

  private deliver(answer: Promise<JsonRpcResponse>): void {
    this.due++;
    void answer.then((response) => {
      this.due--;
      if (!this.closed) this.onmessage?.(response);
    });
  }

  async closeIfWaiting(): Promise<void> {
    if (this.due > 0) await this.close();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

export function createInProcessTransport(server: InProcessServer): InProcessConnection {
  return new InProcessTransport(server);
}
