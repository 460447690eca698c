/** Chaos has the scopes fixtures have: set inside a test it ends with the test; outside, it stays. */
import { describe, expect, it } from '@jest/globals';
import type { Conversation } from '../../../../src/conversation';
import { MockModel } from '../../../../src/model/mock-model';

const request: Conversation = {
  provider: 'openai',
  protocol: 'openai.chat',
  model: 'gpt-4o',
  messages: [{ role: 'user', text: 'ping' }],
  tools: [],
  stream: false,
  streamUsage: false,
};

function model(): MockModel {
  const m = new MockModel({ strictTurnIndex: false });
  m.use([{ match: { userMessage: 'ping' }, response: { content: 'pong' } }]);
  return m;
}

const fault = (m: MockModel) => {
  const r = m.resolve(request, 'this request');
  return r.kind === 'reply' ? (r.fault ?? 'none') : r.kind;
};

describe('understudy.model.chaos()', () => {
  it('set inside a test ends with the test', () => {
    const m = model();
    m.beginTest();
    m.chaos({ dropRate: 1 });
    expect(fault(m)).toBe('drop');
    m.endTest();
    m.beginTest();
    expect(fault(m)).toBe('none');
  });

  it('set outside a test stays for every test, unless a test sets its own', () => {
    const m = model();
    m.chaos({ rateLimitRate: 1 });
    m.beginTest();
    expect(fault(m)).toBe('rate_limit');
    m.chaos(undefined);
    expect(fault(m)).toBe('none');
    m.endTest();
    m.beginTest();
    expect(fault(m)).toBe('rate_limit');
    m.chaos({ dropRate: 1 });
    expect(fault(m)).toBe('drop');
    m.endTest();
    m.beginTest();
    expect(fault(m)).toBe('rate_limit');
  });

  it('is dropped by reset(), like the fixtures registered with use()', () => {
    const m = model();
    m.chaos({ dropRate: 1 });
    m.beginTest();
    m.reset();
    m.use([{ match: { userMessage: 'ping' }, response: { content: 'pong' } }]);
    expect(fault(m)).toBe('none');
  });
});

describe('understudy.model.reset() inside a test', () => {
  it("sets the file's fixtures and chaos aside for that test only", () => {
    const m = model();
    m.chaos({ rateLimitRate: 1 });
    m.beginTest();
    m.reset();
    expect(fault(m)).toBe('unmatched');
    expect(m.fixtures).toEqual([]);
    m.use([{ match: { userMessage: 'ping' }, response: { content: 'own' } }]);
    expect(fault(m)).toBe('none');
    m.endTest();
    m.beginTest();
    expect(m.fixtures).toHaveLength(1);
    expect(fault(m)).toBe('rate_limit');
    m.endTest();
  });

  it('outside a test drops them for good', () => {
    const m = model();
    m.reset();
    m.beginTest();
    expect(fault(m)).toBe('unmatched');
    m.endTest();
  });
});
