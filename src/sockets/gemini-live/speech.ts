/**
 * Deterministic speech: PCM16 (little-endian, mono) made from text, audible and readable back.
 * Each sample's high byte carries a tone (a voice client plays something real), its low byte one
 * byte of a header and the text's UTF-8, so audio made here is transcribed exactly: the mock
 * model's audio out reads back as its transcript, and a test's audio in as the user's words.
 */

/** Marks the start of an utterance in the low bytes. */
const MAGIC = [0x55, 0x53, 0x50, 0x31]; // "USP1"
/** MAGIC, the text's byte length (u32), the utterance's length in samples (u32). */
const HEADER = MAGIC.length + 8;
/** How long one character is spoken, in seconds (about 15 characters a second, as people talk). */
const PER_CHARACTER = 0.065;
const AMPLITUDE = 6000;

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

/** The utterance's length in samples at `rate`: room for its payload, at least 0.1 s. */
function samplesFor(text: string, bytes: number, rate: number): number {
  return Math.max(HEADER + bytes, Math.round(Math.max(0.1, [...text].length * PER_CHARACTER) * rate));
}

/** `text` spoken at `rate` samples per second, as PCM16 little-endian bytes. */
export function speak(text: string, rate: number): Uint8Array {
  const payload = utf8.encode(text);
  const samples = samplesFor(text, payload.length, rate);
  const low = new Uint8Array(samples);
  low.set(MAGIC, 0);
  const view = new DataView(low.buffer);
  view.setUint32(MAGIC.length, payload.length, true);
  view.setUint32(MAGIC.length + 4, samples, true);
  low.set(payload, HEADER);
  const chars = [...text];
  const out = new Uint8Array(samples * 2);
  const pcm = new DataView(out.buffer);
  const perChar = samples / Math.max(1, chars.length);
  for (let i = 0; i < samples; i++) {
    const c = chars[Math.min(chars.length - 1, Math.floor(i / perChar))] ?? ' ';
    const pitch = 160 + ((c.codePointAt(0) ?? 32) % 40) * 12;
    const tone = Math.round(AMPLITUDE * Math.sin((2 * Math.PI * pitch * i) / rate));
    pcm.setInt16(i * 2, (tone & ~0xff) | low[i], true);
  }
  return out;
}

/** What a stream of PCM16 audio said so far, as `speak` made it. */
export interface Heard {
  /** The words of the utterance begun, once its header and text have arrived; null for audio not made by `speak`. */
  text: string | null;
  /** The utterance has arrived whole (its last sample). */
  complete: boolean;
}

/**
 * Reads audio as it streams in: the low bytes of the samples so far, and the utterance they spell.
 * Audio of any other origin is heard as speech without words (`text: null`, never complete).
 */
export class Listener {
  private low: number[] = [];
  /** An odd byte left over from a chunk that split a sample. */
  private carry: number | undefined;

  hear(bytes: Uint8Array): Heard {
    let i = 0;
    if (this.carry !== undefined && bytes.length > 0) {
      this.low.push(this.carry);
      this.carry = undefined;
      i = 1;
    }
    for (; i + 1 < bytes.length; i += 2) this.low.push(bytes[i]);
    if (i < bytes.length) this.carry = bytes[i];
    return this.heard();
  }

  /** Whether any audio arrived since the last reset. */
  get started(): boolean {
    return this.low.length > 0 || this.carry !== undefined;
  }

  reset(): void {
    this.low = [];
    this.carry = undefined;
  }

  heard(): Heard {
    const { low } = this;
    if (low.length < HEADER || MAGIC.some((b, k) => low[k] !== b)) return { text: null, complete: false };
    const word = (at: number) =>
      (low[at] | (low[at + 1] << 8) | (low[at + 2] << 16) | (low[at + 3] << 24)) >>> 0;
    const length = word(MAGIC.length);
    const samples = word(MAGIC.length + 4);
    if (low.length < HEADER + length) return { text: null, complete: false };
    const text = utf8Decoder.decode(Uint8Array.from(low.slice(HEADER, HEADER + length)));
    return { text, complete: low.length >= samples };
  }
}
