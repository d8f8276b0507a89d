// The baseline of bench/chat.ts: a bare node:http server answering POST /v1/chat/completions with fixed
// tokens in the same wire format as the agent (a JSON completion, or chunk lines and [DONE]), with no
// auth, validation, agent pipeline or storage. Tokens come from BARE_TOKENS (a JSON array).
import { createServer } from 'node:http';

const tokens = JSON.parse(process.env.BARE_TOKENS ?? '[]') as string[];
const model = process.env.BARE_MODEL ?? 'bare';

const server = createServer((req, res) => {
  let raw = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => { raw += chunk; });
  req.on('end', () => {
    const stream = (JSON.parse(raw) as { stream?: boolean }).stream === true;
    const base = { id: 'chatcmpl-bare', created: Math.floor(Date.now() / 1000), model };
    if (!stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: tokens.join('') }, finish_reason: 'stop' }] }));
      return;
    }
    const chunk = (delta: Record<string, string>, finish: string | null) => `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.write(chunk({ role: 'assistant' }, null));
    for (const content of tokens) res.write(chunk({ content }, null));
    res.write(chunk({}, 'stop'));
    res.end('data: [DONE]\n\n');
  });
});

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as { port: number };
  process.stdout.write(`URL: http://127.0.0.1:${port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
