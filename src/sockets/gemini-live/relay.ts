/**
 * Record and live modes for a Gemini Live connection: one Live socket to the real provider,
 * opened with the client's URL (its `?key=`) and headers (`x-goog-api-key`), set up as the
 * client's session is. At each turn it sends the user's turns added since the last one
 * (`clientContent`) or the function responses (`toolResponse`), and reads the model's turn back
 * (to `turnComplete`, or the `toolCall` that waits for responses) into the neutral reply the
 * client's session then serves. A spoken turn goes as the client's audio (`realtimeInput`), and
 * the provider's input transcription of it is the user's text the recording keeps; the model's
 * turn that follows it is the next turn's reply.
 */
import type { Conversation } from '../../conversation';
import type { ReplyDecodeResult } from '../../providers/codec';
import type { SocketOpening, SpokenTurn, UpstreamConnector, UpstreamRelay } from '../protocol';
import {
  OneAtATime,
  TranscriptMissing,
  UnsendableTurn,
  UpstreamLink,
  upstreamHeaders,
} from '../upstream-link';
import { endsTurn, liveReplyOf } from './upstream-reply';

type Obj = Record<string, any>;

export class LiveRelay implements UpstreamRelay {
  readonly keys: string[] = [];
  private link: UpstreamLink | undefined;
  private ready: Promise<void> | undefined;
  /** How many of the session's contents the provider has (sent, or its own turns). */
  private sent = 0;
  /** The last turn ended with function calls: a `turnComplete` the provider sends after them closes that turn. */
  private afterCalls = false;
  /** The calls the provider's last turn made, waiting for their responses. */
  private waiting = new Set<string>();
  /** The next model turn of the session is the reply the provider just gave. */
  private ownTurnNext = false;
  /** The user turns the provider heard as audio (their transcripts), not to be sent again as text. */
  private readonly heard: string[] = [];
  /** The provider's answer to the last spoken turn, read while hearing it: the next turn's reply. */
  private answered: Obj[] | undefined;
  /** The provider's session takes the user's activity start and end from the client (setup). */
  private manualActivity = false;
  private readonly operations = new OneAtATime();
  /** The client's socket closed, and this relay closed the provider's: a turn it ends fails nothing. */
  private closed = false;

  constructor(
    private readonly opening: SocketOpening,
    private readonly connect: UpstreamConnector,
  ) {}

  turn(request: unknown, conversation: Conversation, signal: AbortSignal): Promise<ReplyDecodeResult> {
    return this.operations.run(() => this.turnNow(request as Obj, conversation, signal));
  }

  private async turnNow(r: Obj, conversation: Conversation, signal: AbortSignal): Promise<ReplyDecodeResult> {
    const link = await this.open(r.setup ?? {});
    const contents: Obj[] = Array.isArray(r.contents) ? r.contents : [];
    for (const message of this.newInput(contents.slice(this.sent))) link.send(message);
    this.sent = contents.length;
    const messages: Obj[] = this.answered ?? [];
    this.answered = undefined;
    // A cut turn (the client's barge-in) is still read to its end: Live has no cancel, and what the
    // provider goes on sending belongs to this turn, not the next; closing would end the session.
    while (!messages.some(endsTurn)) {
      let message: Obj;
      try {
        message = await link.next();
      } catch (closed) {
        // Closed before the turn began: the close is the failure (Live reports its errors as close codes).
        if (!this.closed && messages.length === 0) throw closed;
        break; // closed mid-turn: what came is all there is
      }
      const stray = this.afterCalls && messages.length === 0 && message.serverContent?.turnComplete === true;
      if (stray && !message.serverContent.modelTurn) {
        this.afterCalls = false;
        continue;
      }
      messages.push(message);
      if (endsTurn(message)) break;
    }
    const read = liveReplyOf(messages, conversation.model);
    const result = signal.aborted && read.ok ? { ...read, complete: false } : read;
    this.afterCalls = result.ok && result.reply.toolCalls.length > 0;
    this.waiting = new Set(result.ok ? result.reply.toolCalls.map((c) => c.id) : []);
    // The session keeps a model turn only when it said or called something.
    this.ownTurnNext = result.ok && (Boolean(result.reply.content) || result.reply.toolCalls.length > 0);
    return result;
  }

  /**
   * The session's contents since the last turn, as the provider gets them: the model's own turn
   * (the reply it just gave) is already there; responses to the calls it is waiting on go as a
   * `toolResponse`; anything else (the user's turns, a history the fixtures answered in
   * record-missing mode) as `clientContent`, which the last one completes.
   */
  private newInput(fresh: readonly Obj[]): Obj[] {
    const out: Obj[] = [];
    let turns: Obj[] = [];
    const flush = (turnComplete: boolean) => {
      if (turns.length > 0) out.push({ clientContent: { turns, turnComplete } });
      turns = [];
    };
    for (const content of fresh) {
      const parts: Obj[] = content.parts ?? [];
      if (content.role === 'model' && this.ownTurnNext) {
        this.ownTurnNext = false;
        continue;
      }
      // A turn the provider heard as audio: it has it already.
      const said = content.role === 'user' && parts.length === 1 ? parts[0]?.text : undefined;
      if (typeof said === 'string' && this.heard[0] === said) {
        this.heard.shift();
        continue;
      }
      if (parts.some((p) => p?.inlineData))
        throw new UnsendableTurn(
          'the user spoke this turn (realtimeInput audio), and neither the provider nor a fixture heard it: it has no words to send',
        );
      const responses = parts.filter((p) => p?.functionResponse).map((p) => p.functionResponse);
      if (responses.length > 0 && this.waiting.size > 0) {
        flush(false);
        out.push({ toolResponse: { functionResponses: responses } });
        this.waiting.clear();
        continue;
      }
      turns.push(content);
    }
    flush(true);
    return out;
  }

  /**
   * The user's audio, sent as the client sent it (`realtimeInput.audio`), ended as the session's
   * setup has it (`activityStart`/`activityEnd`, or `audioStreamEnd`). The provider's input
   * transcription is the user's turn; its model turn, which follows on its own, is kept for the
   * next `turn`.
   */
  hear(speech: SpokenTurn): Promise<string> {
    return this.operations.run(() => this.hearNow(speech));
  }

  private async hearNow(speech: SpokenTurn): Promise<string> {
    const link = await this.open((speech.setup ?? {}) as Obj);
    const mimeType = typeof speech.format === 'string' ? speech.format : 'audio/pcm;rate=16000';
    if (this.manualActivity) link.send({ realtimeInput: { activityStart: {} } });
    for (const data of speech.chunks) link.send({ realtimeInput: { audio: { data, mimeType } } });
    link.send({ realtimeInput: this.manualActivity ? { activityEnd: {} } : { audioStreamEnd: true } });
    let transcript = '';
    const messages: Obj[] = [];
    for (;;) {
      let message: Obj;
      try {
        message = await link.next();
      } catch {
        break; // closed: the turn reads what came
      }
      const text = message.serverContent?.inputTranscription?.text;
      if (typeof text === 'string') transcript += text;
      // A `turnComplete` left over from the last turn's calls closes that turn, not this one.
      const stray = this.afterCalls && messages.length === 0 && message.serverContent?.turnComplete === true;
      if (stray && !message.serverContent.modelTurn) {
        this.afterCalls = false;
        continue;
      }
      if (message.serverContent?.inputTranscription && Object.keys(message.serverContent).length === 1)
        continue;
      messages.push(message);
      if (endsTurn(message)) break;
    }
    transcript = transcript.trim();
    if (transcript === '')
      throw new TranscriptMissing(
        'the provider sent no serverContent.inputTranscription for it; turn on inputAudioTranscription in the setup and check the audio is speech in the MIME type it names',
      );
    this.answered = messages;
    this.heard.push(transcript);
    return transcript;
  }

  close(): void {
    this.closed = true;
    this.link?.close();
  }

  /** Opens the provider's socket on the first turn, sets it up as the client's, and waits for `setupComplete`. */
  private open(setup: Obj): Promise<UpstreamLink> {
    this.ready ??= (async () => {
      // @google/genai's `//ws/…` (its base URL's slash and the path's), which the API takes, as one.
      const url = new URL(this.opening.url.href);
      url.pathname = url.pathname.replace(/^\/+/, '/');
      const link = new UpstreamLink(this.connect, {
        url: url.href,
        headers: upstreamHeaders(this.opening.headers()),
        protocols: [...this.opening.protocols],
      });
      this.link = link;
      await link.opened;
      this.manualActivity = setup.realtimeInputConfig?.automaticActivityDetection?.disabled === true;
      const model = String(setup.model ?? '');
      const modalities: unknown = setup.generationConfig?.responseModalities;
      // An audio answer is read back by its transcript.
      const audio = Array.isArray(modalities) && modalities.includes('AUDIO');
      link.send({
        setup: {
          model: model.includes('/') ? model : `models/${model}`,
          ...(setup.generationConfig && { generationConfig: setup.generationConfig }),
          ...(setup.systemInstruction !== undefined && { systemInstruction: setup.systemInstruction }),
          ...(setup.tools && { tools: setup.tools }),
          ...((audio || setup.outputAudioTranscription) && { outputAudioTranscription: {} }),
          // A spoken turn is recorded by its words: asked for whether or not the client did.
          inputAudioTranscription: setup.inputAudioTranscription ?? {},
          ...(setup.realtimeInputConfig && { realtimeInputConfig: setup.realtimeInputConfig }),
        },
      });
      for (;;) {
        const message = await link.next();
        if (message.setupComplete) return;
      }
    })();
    return this.ready.then(() => this.link as UpstreamLink);
  }
}
