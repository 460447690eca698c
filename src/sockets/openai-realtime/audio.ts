/**
 * The assistant's voice, made from its text: each character is a short tone (its pitch from the
 * character), so the same text always sounds the same, a client plays something real, and a
 * point in the audio maps back to the transcript spoken up to it (`heardChars`).
 */

/** An audio format of the session (`session.audio.output.format`). */
export interface AudioFormat {
  type: 'audio/pcm' | 'audio/pcmu' | 'audio/pcma';
  /** Samples per second: 24000 for PCM (the only rate the API takes), 8000 for G.711. */
  rate: number;
}

/** How long each character of the transcript sounds. */
export const MS_PER_CHAR = 40;

export const DEFAULT_FORMAT: AudioFormat = { type: 'audio/pcm', rate: 24000 };

/** Bytes per sample: PCM16 takes two, G.711 one. */
const bytesPerSample = (format: AudioFormat) => (format.type === 'audio/pcm' ? 2 : 1);

/** The duration of `bytes` of audio in `format`, in ms. */
export function durationMs(bytes: number, format: AudioFormat): number {
  return (bytes / bytesPerSample(format) / format.rate) * 1000;
}

/** How many characters of a transcript are spoken in its first `ms` of audio. */
export function heardChars(ms: number): number {
  return Math.floor(ms / MS_PER_CHAR);
}

/** G.711 μ-law of one 16-bit sample. */
function mulaw(sample: number): number {
  const sign = sample < 0 ? 0x80 : 0;
  const magnitude = Math.min(Math.abs(sample), 32635) + 0x84;
  let exponent = 7;
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** G.711 A-law of one 16-bit sample. */
function alaw(sample: number): number {
  const sign = sample >= 0 ? 0x80 : 0;
  const magnitude = Math.min(Math.abs(sample), 32767) >> 3;
  let exponent = 0;
  for (let m = magnitude >> 5; m > 0 && exponent < 7; m >>= 1) exponent++;
  const mantissa = exponent === 0 ? (magnitude >> 1) & 0x0f : (magnitude >> exponent) & 0x0f;
  return (sign | (exponent << 4) | mantissa) ^ 0x55;
}

/** The audio of `text` in `format`: MS_PER_CHAR of tone per character. */
export function speak(text: string, format: AudioFormat): Uint8Array {
  const perChar = Math.round((format.rate * MS_PER_CHAR) / 1000);
  const width = bytesPerSample(format);
  const out = new Uint8Array(text.length * perChar * width);
  const view = new DataView(out.buffer);
  for (let c = 0; c < text.length; c++) {
    // A space is a pause; other characters a tone between 200 and 800 Hz.
    const code = text.charCodeAt(c);
    const hz = code === 32 ? 0 : 200 + (code % 60) * 10;
    for (let i = 0; i < perChar; i++) {
      const sample = hz === 0 ? 0 : Math.round(6000 * Math.sin((2 * Math.PI * hz * i) / format.rate));
      const at = (c * perChar + i) * width;
      if (format.type === 'audio/pcm') view.setInt16(at, sample, true);
      else out[at] = format.type === 'audio/pcmu' ? mulaw(sample) : alaw(sample);
    }
  }
  return out;
}

/** Is this chunk of the user's audio silence (every sample at rest)? */
export function isSilence(audio: Uint8Array, format: AudioFormat): boolean {
  if (format.type === 'audio/pcm') {
    const view = new DataView(audio.buffer, audio.byteOffset, audio.byteLength);
    for (let i = 0; i + 1 < audio.byteLength; i += 2) if (Math.abs(view.getInt16(i, true)) > 64) return false;
    return true;
  }
  // G.711 silence: μ-law 0xFF/0x7F, A-law 0xD5/0x55.
  const rest = format.type === 'audio/pcmu' ? [0xff, 0x7f] : [0xd5, 0x55];
  for (const b of audio) if (!rest.includes(b)) return false;
  return true;
}

export const toBase64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
export const fromBase64 = (text: string) => new Uint8Array(Buffer.from(text, 'base64'));
