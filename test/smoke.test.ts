import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnServer } from './helpers/server.ts';

test('npm start serves health on loopback', async () => {
  const server = await spawnServer();
  try {
    const response = await fetch(`${server.url}/api/health`);
    assert.is(response.status, 200);
    const body = (await response.json()) as { ready: boolean; database: string };
    assert.is(body.ready, true);
    assert.is(body.database, 'ok');
    assert.match(server.output(), /State dir:/);
  } finally {
    await server.stop();
    server.cleanup();
  }
});

test.run();
