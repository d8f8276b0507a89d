// Character endpoints: read, validated update that persists and applies live, schema, names, generation.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agentTrajectories } from '../../sdk/index.ts';
import { startAgentKernel } from './agent-helpers.ts';

test('PUT validates, persists across a restart and applies to the next reply', async () => {
  const stateDir = mkdtempSync(join(tmpdir(), 'svc-agent-character-'));
  try {
    let k = await startAgentKernel({ stateDir });
    const initial = (await k.inject({ url: '/api/character' })).body;
    assert.is(initial.agentName, 'Eliza');
    assert.is(initial.character.name, 'Eliza');
    assert.ok(Array.isArray(initial.character.bio));

    const updated = await k.inject({ method: 'PUT', url: '/api/character', body: { name: 'Pixel', bio: 'Loves retro games.\nSpeaks in short sentences.', adjectives: ['playful'] } });
    assert.is(updated.status, 200);
    assert.is(updated.body.ok, true);
    assert.is(updated.body.agentName, 'Pixel');
    assert.is(updated.body.character.system, initial.character.system, 'fields not sent are kept');
    const reply = await k.inject({ method: 'POST', url: '/v1/chat/completions', body: { messages: [{ role: 'user', content: 'who are you?' }] } });
    assert.match(reply.body.choices[0].message.content, /^I'm Pixel\. Loves retro games\. I'd call myself playful\./);
    await k.close();

    k = await startAgentKernel({ stateDir });
    try {
      const reloaded = (await k.inject({ url: '/api/character' })).body;
      assert.is(reloaded.character.name, 'Pixel');
      assert.is(reloaded.character.bio, 'Loves retro games.\nSpeaks in short sentences.');
      assert.is((await k.inject({ url: '/api/status' })).body.agentName, 'Pixel');
    } finally {
      await k.close();
    }
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});

test('invalid characters → 400 with validationErrors; nothing changes', async () => {
  const k = await startAgentKernel();
  try {
    for (const [body, path] of [
      [{ name: '' }, '/name'],
      [{ name: 'x'.repeat(101) }, '/name'],
      [{ system: 'x'.repeat(10_001) }, '/system'],
      [{ adjectives: 'kind' }, '/adjectives'],
      [{ style: { all: [1] } }, '/style/all/0'],
      [{ favouriteColour: 'blue' }, '/favouriteColour'],
    ] as const) {
      const res = await k.inject({ method: 'PUT', url: '/api/character', body });
      assert.is(res.status, 400, JSON.stringify(body).slice(0, 40));
      assert.is(res.body.ok, false);
      assert.is(res.body.code, 'INVALID_REQUEST');
      assert.type(res.body.error, 'string');
      assert.ok(res.body.validationErrors.some((e: { path: string; message: string }) => e.path === path && e.message), `${path} in ${JSON.stringify(res.body.validationErrors)}`);
    }
    assert.is((await k.inject({ method: 'PUT', url: '/api/character', body: [1, 2] })).status, 400);
    assert.is((await k.inject({ url: '/api/character' })).body.character.name, 'Eliza');
  } finally {
    await k.close();
  }
});

test('schema, random name and generation through the active model', async () => {
  const k = await startAgentKernel();
  try {
    const { fields } = (await k.inject({ url: '/api/character/schema' })).body;
    assert.equal(fields.map((f: { key: string }) => f.key), ['name', 'username', 'bio', 'system', 'adjectives', 'topics', 'style', 'messageExamples', 'postExamples']);
    assert.equal(fields.find((f: { key: string }) => f.key === 'style').children.map((c: { key: string }) => c.key), ['all', 'chat', 'post']);
    const name = (await k.inject({ url: '/api/character/random-name' })).body.name;
    assert.match(name, /^[A-Z][a-z]+$/);

    const bio = await k.inject({ method: 'POST', url: '/api/character/generate', body: { field: 'bio', context: 'a gardening coach' } });
    assert.is(bio.status, 200);
    assert.match(bio.body.generated, /^Eliza is a friendly and curious assistant\.\n/);
    assert.match(bio.body.generated, /a gardening coach/);
    const examples = await k.inject({ method: 'POST', url: '/api/character/generate', body: { field: 'chatExamples' } });
    assert.match(examples.body.generated, /^User: Hi!\nEliza: /);
    const [t] = (await k.kernel.resolve(agentTrajectories)!.list({ source: 'generate' })).trajectories;
    assert.is((t!.metadata as { purpose: string }).purpose, 'character-generate:chatExamples');
    assert.is((await k.inject({ method: 'POST', url: '/api/character/generate', body: { field: 'favourites' } })).status, 400);
    await k.inject({ method: 'POST', url: '/api/agent/stop' });
    assert.is((await k.inject({ method: 'POST', url: '/api/character/generate', body: { field: 'bio' } })).status, 503);
  } finally {
    await k.close();
  }
});

test.run();
