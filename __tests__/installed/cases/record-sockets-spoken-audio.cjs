// The microphone of the spoken-turn recording cases: PCM16 (little-endian, mono) a stand-in provider
// hears by its length (the driver's stand-in transcribes 100 ms of tone as one unit of the number
// the user says), so a transcript made up rather than heard from the audio shows.

/** `ms` of a 440 Hz tone at `rate` samples a second (speech, to a VAD), or of silence. */
function pcm(ms, rate, tone = true) {
  const samples = Math.round((rate * ms) / 1000);
  const out = Buffer.alloc(samples * 2);
  if (tone)
    for (let i = 0; i < samples; i++)
      out.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), i * 2);
  return out;
}

/** `audio` in chunks of `ms` each, base64, as a client streams it. */
function chunks(audio, rate, ms = 100) {
  const size = Math.round((rate * ms) / 1000) * 2;
  const out = [];
  for (let at = 0; at < audio.length; at += size) out.push(audio.subarray(at, at + size).toString('base64'));
  return out;
}

/** How many ms of `audio` (PCM16) are not silence: what the stand-in hears. */
function spokenMs(audio, rate) {
  let loud = 0;
  for (let i = 0; i + 1 < audio.length; i += 2) if (Math.abs(audio.readInt16LE(i)) > 64) loud++;
  return (loud / rate) * 1000;
}

module.exports = { pcm, chunks, spokenMs };
