/**
 * Provider presets: the URL shapes of services that speak a provider's protocol under
 * another address. Azure OpenAI puts the deployment in the path, Vertex AI the project,
 * location and publisher; OpenAI-compatible gateways serve the OpenAI paths below their own
 * base. Each preset rewrites its path to the provider's own and hands the request to that
 * provider's codec, so fixtures, contracts and dialects apply unchanged.
 */
import type { DecodeContext } from './codec';

/** A path below the preset's base, as the provider's codec knows it; the model when the path names it. */
export type PathRewrite = (path: string) => { path: string; model?: string } | undefined;

interface Decodes<R> {
  handles(method: string, path: string): boolean;
  decode(body: unknown, ctx: DecodeContext): R;
}

/** `codec`, serving the paths `rewrite` maps to its own; a model named by the path fills a body that has none. */
export function rewritten<R, C extends Decodes<R>>(codec: C, rewrite: PathRewrite): C {
  return {
    ...codec,
    handles: (method, path) => {
      const r = rewrite(path);
      return r !== undefined && codec.handles(method, r.path);
    },
    decode: (body: unknown, ctx: DecodeContext) => {
      const r = rewrite(ctx.path) ?? { path: ctx.path };
      const withModel =
        r.model !== undefined && typeof body === 'object' && body !== null && !Array.isArray(body)
          ? { model: r.model, ...(body as Record<string, unknown>) }
          : body;
      return codec.decode(withModel, { ...ctx, path: r.path });
    },
  };
}

const decodeSegment = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/**
 * Azure OpenAI below `https://{resource}.openai.azure.com/openai`: the deployment paths
 * (`/deployments/{d}/chat/completions?api-version=…`, the deployment standing for the model),
 * the `/v1/…` paths of the v1 API, and the unversioned `/responses` the Azure client uses.
 */
export const azurePath: PathRewrite = (path) => {
  const deployment = /^\/deployments\/([^/]+)(\/.*)$/.exec(path);
  if (deployment) return { path: deployment[2], model: decodeSegment(deployment[1]) };
  if (path.startsWith('/v1/')) return { path: path.slice(3) };
  return { path };
};

/**
 * Vertex AI's Gemini paths, `/{v1,v1beta1}/projects/{p}/locations/{l}/publishers/google/models/{m}:{method}`
 * and the express-mode `/{version}/publishers/google/models/{m}:{method}`, as the Gemini API's
 * `/v1beta/models/{m}:{method}`.
 */
export const vertexPath: PathRewrite = (path) => {
  const m =
    /^\/(v1|v1beta1)\/(?:projects\/[^/]+\/locations\/[^/]+\/)?publishers\/google\/models\/([^/:]+)(:[A-Za-z]+)$/.exec(
      path,
    );
  if (!m) return undefined;
  return { path: `/${m[1] === 'v1' ? 'v1' : 'v1beta'}/models/${m[2]}${m[3]}` };
};

/** OpenAI-compatible gateways that serve the OpenAI paths with or without the `/v1` prefix (LiteLLM). */
export const optionalV1: PathRewrite = (path) => ({ path: path.startsWith('/v1/') ? path.slice(3) : path });
