/**
 * The chat app: serves the pages, the client-side agent's configuration, and the server-side
 * agent's endpoint. The test starts it on 127.0.0.1 with an ephemeral port.
 */
import { join } from 'node:path';
import express from 'express';
import { answer, TASKS_URL } from './server-agent';

export interface ChatConfig {
  openaiURL: string;
  tasksURL: string;
  apiKey: string;
}

export function createChatApp(config: ChatConfig = defaultConfig()): express.Express {
  const app = express();
  app.get('/config.js', (_req, res) => {
    res.type('text/javascript').send(`window.CHAT_CONFIG = ${JSON.stringify(config)};`);
  });
  app.use(express.static(join(__dirname, 'public')));
  app.post('/api/chat', express.json(), async (req, res) => {
    try {
      res.json({ answer: await answer(String(req.body?.message ?? '')) });
    } catch (error) {
      res.status(500).json({ error: String((error as Error).message ?? error) });
    }
  });
  return app;
}

export function defaultConfig(): ChatConfig {
  return { openaiURL: 'https://api.openai.com/v1', tasksURL: TASKS_URL, apiKey: 'sk-browser-demo' };
}
