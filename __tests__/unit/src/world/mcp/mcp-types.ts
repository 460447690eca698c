/**
 * Compiled against the published declarations (__tests__/support/tsconfig.published.json), never
 * run: the in-process transport is, by its type, what the MCP clients' `connect` takes.
 */
import type { createMCPClient } from '@ai-sdk/mcp';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type McpTransport, understudy } from 'jest-understudy';

export const connect = (client: Client): Promise<void> =>
  client.connect(understudy.world.mcpTransport('notes'));

export const sdkTransport: Transport = understudy.world.mcpTransport('notes', { actorId: 'reader' });

export const aiSdkTransport: Parameters<typeof createMCPClient>[0]['transport'] =
  understudy.world.mcpTransport('notes');

export const declared: McpTransport = understudy.world.mcpTransport('notes');
