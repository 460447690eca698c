/** What the router knows of a provider, or of a preset of a service that speaks its protocol. */
import type { ProviderId } from '../conversation';
import type { ProviderCodec, WireResponse } from './codec';
import type { EmbeddingCodec } from './embedding-codec';

export interface ProviderDefinition {
  id: ProviderId;
  /** Base URLs the SDKs use by default; requests below them belong to this provider. */
  defaultBaseURLs: string[];
  /** Origins the provider serves under any name (a region, a resource), and the base path below them. */
  hosts?: { origin: RegExp; basePath: string };
  /** The preset (`azure`, `vertex`, `ollama`…) this definition is, whose option names its extra base URLs. */
  preset?: string;
  /** This definition's base URLs from those its option names, where they differ (Ollama's root below its `/v1`). */
  basesFrom?: (named: string[]) => string[];
  readonly codecs: ProviderCodec[];
  /** Embedding endpoints, served apart from the model (src/embeddings). */
  readonly embeddings?: EmbeddingCodec[];
  /** How this provider says "no such endpoint". */
  notFound: (message: string) => WireResponse;
}

/**
 * A provider whose codecs are required on its first request: a test file that talks to one
 * provider does not load (and Jest does not re-evaluate for every file) the others.
 */
export function lazyProvider(
  base: Pick<ProviderDefinition, 'id' | 'defaultBaseURLs' | 'hosts' | 'preset' | 'basesFrom'>,
  codecs: () => ProviderCodec[],
  notFound: (message: string) => WireResponse,
  embeddings: () => EmbeddingCodec[] = () => [],
): ProviderDefinition {
  let loaded: ProviderCodec[] | undefined;
  let loadedEmbeddings: EmbeddingCodec[] | undefined;
  return {
    ...base,
    get codecs() {
      loaded ??= codecs();
      return loaded;
    },
    get embeddings() {
      loadedEmbeddings ??= embeddings();
      return loadedEmbeddings;
    },
    notFound,
  };
}
