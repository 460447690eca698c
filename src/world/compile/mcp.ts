/** Packages served as MCP servers. */
import type { PathSegment } from '../../file-format/json-path';
import { inputProblem, mcpToolName, TOOL_NAME } from '../mcp/schema';
import type { PackageDef } from '../types';
import type { CheckContext } from './context';
import { providerAt } from './hosts';

/** A package served as an MCP server: its endpoint, and one valid, distinct tool per operation. */
export function checkMcpPackage(
  ctx: CheckContext,
  pkg: PackageDef,
  at: PathSegment[],
  urls: Map<string, string>,
): void {
  const mcp = pkg.bindings.includes('mcp');
  if (!mcp) {
    if (pkg.mcp)
      ctx.add(
        'WORLD_REFERENCE',
        [...at, 'mcp'],
        `package ${JSON.stringify(pkg.id)} has no "mcp" binding, so this MCP server is never served`,
        'add "mcp" to the package\'s bindings',
      );
    return;
  }
  const url = pkg.mcp?.url;
  if (url !== undefined) {
    const urlAt = [...at, 'mcp', 'url'];
    if (!/^https?:\/\/[^/]/.test(url) || !URL.canParse(url)) {
      ctx.add(
        'WORLD_INVALID',
        urlAt,
        `not an absolute http(s) URL: ${JSON.stringify(url)}`,
        'e.g. "https://tools.example.test/mcp"',
      );
    } else {
      const provider = providerAt(url);
      const parsed = new URL(url);
      const endpoint = `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
      const other = urls.get(endpoint);
      if (provider)
        ctx.add(
          'WORLD_INVALID',
          urlAt,
          `${parsed.host} is the ${provider} API: the mock model answers every request to it, so this MCP server would never be served`,
          'give the package a host of its own, e.g. "https://tools.example.test/mcp"',
        );
      else if (other)
        ctx.add(
          'WORLD_INVALID',
          urlAt,
          `${endpoint} is already the MCP endpoint of package ${JSON.stringify(other)}`,
          'each MCP server has a URL of its own',
        );
      else urls.set(endpoint, pkg.id);
    }
  }
  const key = pkg.mcp?.idempotencyKey;
  const names = new Map<string, string>();
  pkg.operations.forEach((op, j) => {
    const opAt: PathSegment[] = [...at, 'operations', j];
    const name = mcpToolName(op);
    const nameAt = op.toolNames?.length ? [...opAt, 'toolNames', 0] : [...opAt, 'id'];
    if (!TOOL_NAME.test(name)) {
      ctx.add(
        'WORLD_INVALID',
        nameAt,
        `${JSON.stringify(name)} is not a valid MCP tool name: 1 to 128 letters, digits, "_", "-" or "."`,
        'give the operation a "toolNames" entry such as "save_record" (its first entry names the tool)',
      );
    } else if (names.has(name)) {
      ctx.add(
        'WORLD_INVALID',
        nameAt,
        `the MCP tool name ${JSON.stringify(name)} is already the tool of operation ${JSON.stringify(names.get(name))}`,
        'give one of them a "toolNames" entry of its own (its first entry names the tool)',
      );
    } else names.set(name, op.id);
    const problem = inputProblem(op.input, ctx.file.definitions);
    if (problem) ctx.add('WORLD_INVALID', [...opAt, 'input'], problem);
    if (key !== undefined && ctx.propertiesOf(op.input) && Object.hasOwn(ctx.propertiesOf(op.input)!, key))
      ctx.add(
        'WORLD_INVALID',
        [...at, 'mcp', 'idempotencyKey'],
        `${JSON.stringify(key)} is also an input property of operation ${JSON.stringify(op.id)}, whose input would lose it`,
        `name another argument, or key the operation by that input field with "idempotency": { "keyFrom": ${JSON.stringify(key)} }`,
      );
  });
}
