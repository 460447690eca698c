/**
 * A request as matching, the staleness check and the cassette see it: with the personal data the
 * `pii` option names as numbered placeholders (one numbering per request), and built into the
 * recorded request form; and a recorded answer with the live request's data put back.
 */
import type { Conversation, NeutralReply } from '../conversation';
import { secretsInUse } from '../files/secrets';
import type { RecordedRequest } from '../fixtures/types';
import type { MockModel } from '../model/mock-model';
import type { PiiKind } from '../options';
import { PiiScanner } from './pii';
import { fingerprintOf } from './prompt-hash';
import { piiView, requestHashOf, requestOf } from './request';

export interface RequestView {
  conversation: Conversation;
  pii: PiiScanner;
}

export class RequestViews {
  private readonly views = new WeakMap<Conversation, RequestView>();

  constructor(
    private readonly model: MockModel,
    private readonly pii: readonly PiiKind[],
  ) {}

  /** The request with its personal data as placeholders (when the option asks for any). */
  viewOf(conversation: Conversation): RequestView {
    let view = this.views.get(conversation);
    if (!view) {
      const pii = new PiiScanner(this.pii);
      view = { conversation: piiView(conversation, pii), pii };
      this.views.set(conversation, view);
    }
    return view;
  }

  /** The recorded request of a live one, built as recording builds it. */
  recordedRequestOf(
    conversation: Conversation,
    body: unknown,
  ): { request: RecordedRequest; requestHash: string; toolsHash: string } {
    const view = this.viewOf(conversation).conversation;
    const normalize = (t: string) => this.model.normalizeText(t);
    const { toolsHash } = fingerprintOf(view, normalize);
    const request = requestOf(view, body, { normalize, secrets: secretsInUse() });
    return { request, requestHash: requestHashOf(request, toolsHash), toolsHash };
  }

  /** A recorded answer with the live request's personal data where the recording has its placeholders. */
  restored(reply: NeutralReply, conversation: Conversation): NeutralReply {
    const { pii } = this.viewOf(conversation);
    return {
      ...reply,
      content: reply.content === null ? null : pii.restore(reply.content),
      ...(reply.reasoning !== undefined && { reasoning: pii.restore(reply.reasoning) }),
      toolCalls: reply.toolCalls.map((c) => ({ ...c, arguments: pii.restore(c.arguments) })),
      ...(reply.order && {
        order: reply.order.map((step) => ('call' in step ? step : { text: pii.restore(step.text) })),
      }),
    };
  }
}
