// A spoken Realtime turn the stand-in provider cannot transcribe (its `-deaf` model sends
// `conversation.item.input_audio_transcription.failed`): recording it must fail, naming the setting
// to turn on, rather than record a turn replay could not match. In a file of its own: a failing
// test keeps its file's cassette from being written.
const { it } = require('./runner-globals.cjs');
const { understudy } = require('jest-understudy');
const { voiceAgent } = require('./record-sockets-spoken-realtime-agent.cjs');

it('must fail: the provider sends no transcript of the spoken turn, so it cannot be recorded', async () => {
  const looked = [];
  await understudy.run(() => voiceAgent(looked, { vad: false, model: 'gpt-realtime-deaf' }), {
    expectError: true,
  });
});
