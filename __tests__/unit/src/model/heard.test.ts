import { describe, expect, it } from '@jest/globals';
import type { Conversation } from '../../../../src/conversation';
import type { Fixture } from '../../../../src/fixtures/types';
import { MockModel } from '../../../../src/model/mock-model';

/** A voice session at its first user turn, spoken: the user's words are not known yet. */
const spokenTurn: Conversation = {
  provider: 'openai',
  protocol: 'openai.realtime',
  model: 'gpt-realtime',
  messages: [{ role: 'user', text: null }],
  tools: [],
  stream: true,
  streamUsage: false,
};

function heard(fixtures: Fixture[], audio?: string) {
  const model = new MockModel({ strictTurnIndex: false });
  model.use(fixtures);
  return model.heard(spokenTurn, audio);
}

describe('what the user said in a spoken turn', () => {
  const written: Fixture = { match: { userMessage: 'Where is order 7?' }, response: { content: 'Shipped.' } };
  const recorded: Fixture = { ...written, metadata: { heard: 'sha256:aaa' } };

  it("a written fixture's user turn is heard from any audio", () => {
    expect(heard([written])).toBe('Where is order 7?');
    expect(heard([written], 'sha256:bbb')).toBe('Where is order 7?');
  });

  it('a turn recorded from spoken audio is heard from that audio only', () => {
    expect(heard([recorded], 'sha256:aaa')).toBe('Where is order 7?');
    expect(heard([recorded], 'sha256:bbb')).toBeNull();
    expect(heard([recorded])).toBeNull();
  });
});
