/**
 * The chat app: serves the pages, the client-side agent's configuration, and the server-side
 * agent's endpoint. The test starts it on 127.0.0.1 with an ephemeral port.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { answer, TASKS_URL } from './server-agent';

export interface ChatConfig {
  openaiURL: string;
  tasksURL: string;
  apiKey: string;
}

const PAGES: Record<string, [file: string, type: string]> = {
  '/': ['index.html', 'text/html'],
  '/server.html': ['server.html', 'text/html'],
  '/chat.js': ['chat.js', 'text/javascript'],
};

async function bodyOf(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text;
}

export function createChatServer(config: ChatConfig = defaultConfig()): Server {
  return createServer(async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://app').pathname;
    const send = (status: number, type: string, body: string) =>
      res.writeHead(status, { 'content-type': type }).end(body);
    if (req.method === 'GET' && path === '/config.js')
      return send(200, 'text/javascript', `window.CHAT_CONFIG = ${JSON.stringify(config)};`);
    const page = req.method === 'GET' ? PAGES[path] : undefined;
    if (page) return send(200, page[1], readFileSync(join(__dirname, 'public', page[0]), 'utf8'));
    if (req.method === 'POST' && path === '/api/chat') {
      try {
        const { message } = JSON.parse(await bodyOf(req));
        return send(200, 'application/json', JSON.stringify({ answer: await answer(String(message)) }));
      } catch (error) {
        return send(
          500,
          'application/json',
          JSON.stringify({ error: String((error as Error).message ?? error) }),
        );
      }
    }
    send(404, 'text/plain', 'not found');
  });
}

export function defaultConfig(): ChatConfig {
  return { openaiURL: 'https://api.openai.com/v1', tasksURL: TASKS_URL, apiKey: 'sk-browser-demo' };
}
