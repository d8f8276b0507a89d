// POST requests whose answer is Server-Sent Events, read incrementally with node:http so a test can
// stop reading (disconnect) mid-stream. Not a test file.
import { request } from 'node:http';

export interface Frame { event: string; data: any }
export interface PostStream {
  status: number;
  contentType: string;
  /** Every complete frame received so far. */
  frames(): Frame[];
  /** Waits until `done(frames)` holds (or the response ended), then returns the frames. */
  until(done: (frames: Frame[]) => boolean, timeoutMs?: number): Promise<Frame[]>;
  /** Disconnects. */
  close(): void;
}

function parse(raw: string): Frame[] {
  return raw.split('\n\n').slice(0, -1).flatMap((block) => {
    const lines = block.split('\n');
    const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
    if (!data) return [];
    const event = lines.find((l) => l.startsWith('event: '))?.slice(7) ?? 'message';
    let parsed: unknown = data;
    try { parsed = JSON.parse(data); } catch { /* [DONE] and other plain data */ }
    return [{ event, data: parsed }];
  });
}

export function postSse(url: string, body: unknown, headers: Record<string, string> = {}): Promise<PostStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers } }, (res) => {
      let raw = '';
      let ended = false;
      const wakers = new Set<() => void>();
      const wake = () => { for (const w of wakers) w(); };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { raw += chunk; wake(); });
      res.on('end', () => { ended = true; wake(); });
      res.on('close', () => { ended = true; wake(); });
      res.on('error', () => undefined);
      resolve({
        status: res.statusCode ?? 0,
        contentType: String(res.headers['content-type'] ?? ''),
        frames: () => parse(raw),
        async until(done, timeoutMs = 10_000) {
          const deadline = Date.now() + timeoutMs;
          while (!done(parse(raw)) && !ended) {
            if (Date.now() > deadline) throw new Error(`Stream condition not met in ${timeoutMs} ms; got: ${raw.slice(-500)}`);
            await new Promise<void>((w) => { wakers.add(w); setTimeout(w, 100); }).finally(() => wakers.clear());
          }
          return parse(raw);
        },
        close: () => req.destroy(),
      });
    });
    req.on('error', (error) => { if (!req.destroyed) reject(error); });
    req.end(JSON.stringify(body));
  });
}
