// The shared-worker scenarios, one set per test file: each file's fixtures answer its own note
// ("note X"), and each asks for the other file's too. Whichever file a worker runs second finds
// out whether anything of the first (fixtures, world state, the fetch its client took, a refused
// request) reached it.
import { writeFileSync } from 'node:fs';
import { get } from 'node:https';
import { mockTool, script, understudy } from 'jest-understudy';
import { beforeAll, describe, expect, it } from 'vitest';
import { leave, take } from './leftover.mjs';
import { addNote, fileStarted } from './notes-agent.mjs';
import { server } from './status-server.mjs';

const ADD = { mode: 'sync', operation: { packageId: 'notes', operationId: 'notes.add' } };

export function scenarios(own, other) {
  fileStarted(own);
  understudy.model.use(
    script().user(`note ${own}`).callsTool('add_note', { text: own }).replies(`Saved note ${own}.`),
  );
  understudy.model.use([{ match: { userMessage: `say ${own}` }, response: { content: `Said ${own}.` } }]);

  // Never closed: a file's end ends what its server answers, and the next file listens anew.
  beforeAll(() => server.listen());

  describe(`file ${own}`, () => {
    // First in the file: nothing of this file has started msw yet.
    it("a voice agent whose module kept the WebSocket class of the worker's first file is answered by this file's model", async () => {
      const { say } = await import('./voice-agent.mjs');
      expect(await say(`say ${own}`)).toEqual({ transcript: `Said ${own}.` });
    });

    it("a voice turn only the other file's fixtures answer, swallowed by the agent, fails here", async () => {
      const { say } = await import('./voice-agent.mjs');
      await say(`say ${other}`);
    });

    it("the module's client is answered by this file's model, and this file's world starts empty", async () => {
      const tool = mockTool(understudy.world.bind({ actorId: 'agent' }), ADD);
      const run = await understudy.run(() => addNote(`note ${own}`, tool));
      expect(run).toHaveCalledTool('add_note', { text: own });
      expect(run).toHaveFinalMessage(`Saved note ${own}`);
      expect(Object.values(understudy.world.state.notes.notes).map((note) => note.text)).toEqual([own]);
      expect(understudy.model.calls).toHaveLength(2);
    });

    it("a note only the other file's fixtures answer, swallowed by the agent, fails here", async () => {
      const tool = mockTool(understudy.world.bind({ actorId: 'agent' }), ADD);
      await understudy.run(() => addNote(`note ${other}`, tool).catch(() => 'Sorry.'));
    });

    it('a blocked request the agent swallowed fails this test', async () => {
      await fetch(`https://tools.example.com/v1/${own}`).catch(() => undefined);
    });

    it('a blocked node:https request the agent swallowed fails this test', async () => {
      await new Promise((resolve) => {
        get(`https://tools.example.com/v2/${own}`, resolve).on('error', resolve);
      });
    });

    it("the suite's msw server answers in this file", async () => {
      const response = await fetch('https://status.example.com/v1/status');
      expect(await response.json()).toEqual({ status: 'up' });
    });

    it('the next test is charged with nothing', () => {
      expect(understudy.model.calls).toHaveLength(0);
    });

    // The worker's first file leaves an agent call waiting; the next lets it go, and its own model
    // (whose fixtures would answer it) must not.
    it('a call a test of the earlier file left running is refused, not answered here', async () => {
      const left = take();
      if (!left) return leave(own, () => addNote(`note ${other}`, async () => ({ saved: true })));
      left.release();
      const outcome = await left.outcome;
      writeFileSync(
        new URL(`./leftover-${own}.json`, import.meta.url),
        JSON.stringify({ from: left.file, outcome }),
      );
      expect(understudy.model.calls).toHaveLength(0);
    });
  });
}
