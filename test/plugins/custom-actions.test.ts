// The custom-actions resource over HTTP: validation, UPPER_SNAKE_CASE names, terminal authorization,
// live registration into the agent's action registry (a Map-backed fixture agent), persistence across a
// restart, and /generate against a scripted model.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import customActions from '../../plugins/custom-actions/index.ts';
import diagnostics from '../../plugins/diagnostics/index.ts';
import sandbox from '../../sandbox/index.ts';
import { createTestKernel, type InjectRequest, type TestKernel } from '../../sdk/testing.ts';
import { fixtureAgent, type FixtureAgent } from '../sandbox/fixtures/agent-fixture.ts';

const TERMINAL = 'terminal-secret';
const stateDir = mkdtempSync(join(tmpdir(), 'svc-custom-actions-'));
const GOOD_SUGGESTION = 'Sure! Here it is:\n```json\n' + JSON.stringify({
  name: 'weather lookup', description: 'Current weather for a city', handlerType: 'http',
  handler: { type: 'http', method: 'GET', url: 'https://api.example.com/weather?city={{city}}' },
  parameters: [{ name: 'city', description: 'City name', required: true }],
}) + '\n```';
const BAD_HANDLER = JSON.stringify({ name: 'broken', description: 'no url', handlerType: 'http', handler: { type: 'http', method: 'GET' } });

let agent: FixtureAgent;
let kernel: TestKernel;

async function boot(): Promise<void> {
  agent = fixtureAgent([GOOD_SUGGESTION, BAD_HANDLER, 'I cannot help with that.', GOOD_SUGGESTION]);
  kernel = await createTestKernel({ plugins: [agent.plugin, sandbox, customActions, diagnostics], stateDir, env: { SVC_TERMINAL_RUN_TOKEN: TERMINAL } });
}
test.before(boot);
test.after(async () => {
  await kernel.close();
  rmSync(stateDir, { recursive: true, force: true });
});

const call = (request: InjectRequest) => kernel.inject(request);
const create = (body: Record<string, unknown>, headers: Record<string, string> = {}) => call({ method: 'POST', url: '/api/custom-actions', body, headers });
const codeAction = (name: string, code = 'return "hi " + params.who') =>
  ({ name, description: `${name} action`, parameters: [{ name: 'who', description: 'Whom to greet', required: true }], handler: { type: 'code', code }, terminalToken: TERMINAL });

test('create: 201 {ok, action} with an id, UPPER_SNAKE_CASE name, defaults and ISO timestamps', async () => {
  const response = await create({ name: 'check weather', description: 'Weather for a city', handler: { type: 'http', url: 'https://api.example.com/w?c={{city}}' } });
  assert.is(response.status, 201);
  const { ok, action } = response.body;
  assert.is(ok, true);
  assert.match(action.id, /^[0-9a-f-]{36}$/);
  assert.equal({ name: action.name, similes: action.similes, parameters: action.parameters, enabled: action.enabled, handler: action.handler }, {
    name: 'CHECK_WEATHER', similes: [], parameters: [], enabled: true, handler: { type: 'http', method: 'GET', url: 'https://api.example.com/w?c={{city}}' },
  });
  assert.is(new Date(action.createdAt).toISOString(), action.createdAt);
  assert.is(action.updatedAt, action.createdAt);
  for (const [input, expected] of [['getPrice', 'GET_PRICE'], ['get-price now!', 'GET_PRICE_NOW'], ['  Already_SNAKE ', 'ALREADY_SNAKE']]) {
    const named = await create({ name: input, description: 'x', handler: { type: 'http', url: 'https://example.com/' } });
    assert.is(named.body.action.name, expected, input);
  }
});

test('create: the spec\'s validation errors', async () => {
  const http = { type: 'http', url: 'https://example.com/' };
  const cases: [Record<string, unknown>, string][] = [
    [{ description: 'd', handler: http }, 'INVALID_REQUEST'],
    [{ name: 'n', handler: http }, 'INVALID_REQUEST'],
    [{ name: 'n', description: '   ', handler: http }, 'INVALID_REQUEST'],
    [{ name: '!!!', description: 'd', handler: http }, 'INVALID_REQUEST'],
    [{ name: 'n', description: 'd' }, 'INVALID_REQUEST'],
    [{ name: 'n', description: 'd', handler: {} }, 'INVALID_HANDLER'],
    [{ name: 'n', description: 'd', handler: { type: 'python', code: 'x' } }, 'INVALID_HANDLER'],
    [{ name: 'n', description: 'd', handler: { type: 'http', method: 'GET' } }, 'INVALID_HANDLER'],
    [{ name: 'n', description: 'd', handler: { type: 'http', url: 'file:///etc/passwd' } }, 'INVALID_HANDLER'],
    [{ name: 'n', description: 'd', handler: { type: 'http', url: 'https://x/', method: 'TRACE' } }, 'INVALID_HANDLER'],
    [{ name: 'n', description: 'd', handler: { type: 'shell' }, terminalToken: TERMINAL }, 'INVALID_HANDLER'],
    [{ name: 'n', description: 'd', handler: { type: 'code', code: '' }, terminalToken: TERMINAL }, 'INVALID_HANDLER'],
    [{ name: 'n', description: 'd', handler: { type: 'code', source: 'return 1' }, terminalToken: TERMINAL }, 'INVALID_HANDLER'],
    [{ name: 'n', description: 'd', handler: http, parameters: [{ name: 'a' }, { name: 'a' }] }, 'INVALID_REQUEST'],
    [{ name: 'n', description: 'd', handler: http, parameters: [{ name: 'has space' }] }, 'INVALID_REQUEST'],
  ];
  for (const [body, code] of cases) {
    const response = await create(body);
    assert.equal([response.status, response.body.code], [400, code], JSON.stringify(body));
  }
  const blocked = await call({ method: 'POST', url: '/api/custom-actions', body: '{"name":"n","description":"d","handler":{"type":"http","url":"https://x/","__proto__":{"x":1}}}' });
  assert.is(blocked.status, 400);
  const before = (await call({ url: '/api/custom-actions' })).body.actions.length;
  assert.ok(before > 0);
  assert.is((await create({ name: 'check weather', description: 'again', handler: http })).status, 409, 'duplicate name');
  assert.is((await call({ url: '/api/custom-actions' })).body.actions.length, before, 'nothing stored by failed creates');
});

test('terminal authorization for shell and code handlers: body token, header or standard token; else 403', async () => {
  const shell = { name: 'uptime', description: 'Uptime', handler: { type: 'shell', command: 'uptime' } };
  for (const attempt of [create(shell), create({ ...shell, terminalToken: 'wrong' }), create({ ...codeAction('nope'), terminalToken: undefined })]) {
    const response = await attempt;
    assert.equal([response.status, response.body.code], [403, 'TERMINAL_AUTH_REQUIRED']);
  }
  assert.is((await create({ ...shell, terminalToken: TERMINAL })).status, 201);
  assert.is((await create({ ...shell, name: 'uptime two' }, { 'x-svc-terminal-token': TERMINAL })).status, 201);
  assert.is((await create({ ...shell, name: 'uptime three' }, { authorization: `Bearer ${TERMINAL}` })).status, 201);
  const denied = await call({ url: '/api/security/audit?type=policy_decision&limit=1000' });
  assert.ok(denied.body.entries.some((e: { summary: string }) => e.summary === 'Terminal authorization denied to create a shell custom action'));
});

test('update: any subset of fields; terminal authorization follows the resulting handler; 404 unknown', async () => {
  const http = (await create({ name: 'status page', description: 'Status', handler: { type: 'http', url: 'https://example.com/status' } })).body.action;
  const toCode = await call({ method: 'PUT', url: `/api/custom-actions/${http.id}`, body: { handler: { type: 'code', code: 'return 1' } } });
  assert.equal([toCode.status, toCode.body.code], [403, 'TERMINAL_AUTH_REQUIRED']);
  const renamed = await call({ method: 'PUT', url: `/api/custom-actions/${http.id}`, body: { name: 'status check', similes: ['STATUS'] } });
  assert.is(renamed.status, 200);
  assert.equal([renamed.body.action.name, renamed.body.action.similes, renamed.body.action.description], ['STATUS_CHECK', ['STATUS'], 'Status']);
  assert.ok(renamed.body.action.updatedAt >= http.updatedAt);

  const code = (await create(codeAction('greeter'))).body.action;
  assert.is((await call({ method: 'PUT', url: `/api/custom-actions/${code.id}`, body: { description: 'changed' } })).status, 403, 'still a code action');
  assert.is((await call({ method: 'PUT', url: `/api/custom-actions/${code.id}`, body: { description: 'changed', terminalToken: TERMINAL } })).status, 200);
  const invalid = await call({ method: 'PUT', url: `/api/custom-actions/${code.id}`, body: { handler: { type: 'ruby' } } });
  assert.equal([invalid.status, invalid.body.code], [400, 'INVALID_HANDLER']);
  assert.is((await call({ method: 'PUT', url: '/api/custom-actions/no-such-id', body: { description: 'x' } })).status, 404);
  assert.is((await call({ method: 'PUT', url: `/api/custom-actions/${code.id}`, body: { name: 'status check', terminalToken: TERMINAL } })).status, 409);
});

test('test endpoint: runs the handler directly; 403 without the terminal token; 400 missing parameter; 404', async () => {
  const action = (await create(codeAction('say hi'))).body.action;
  const ok = await call({ method: 'POST', url: `/api/custom-actions/${action.id}/test`, body: { params: { who: 'Ada' }, terminalToken: TERMINAL } });
  assert.is(ok.status, 200);
  assert.equal({ ok: ok.body.ok, output: ok.body.output }, { ok: true, output: 'hi Ada' });
  assert.type(ok.body.durationMs, 'number');
  assert.is((await call({ method: 'POST', url: `/api/custom-actions/${action.id}/test`, body: { params: { who: 'Ada' } } })).status, 403);
  const missing = await call({ method: 'POST', url: `/api/custom-actions/${action.id}/test`, body: { terminalToken: TERMINAL } });
  assert.equal([missing.status, missing.body.error], [400, 'Missing required parameter: who']);
  assert.is((await call({ method: 'POST', url: '/api/custom-actions/nope/test', body: {} })).status, 404);
  const failing = (await create(codeAction('thrower', 'throw new Error("no luck")'))).body.action;
  const failed = await call({ method: 'POST', url: `/api/custom-actions/${failing.id}/test`, body: { params: { who: 'x' }, terminalToken: TERMINAL } });
  assert.equal([failed.status, failed.body.ok, failed.body.output, failed.body.error], [200, false, '', 'Error: no luck']);
});

test('create, update, disable, enable and delete apply to the running agent at once', async () => {
  const action = (await create(codeAction('live greeter'))).body.action;
  const registered = agent.actions.get('LIVE_GREETER');
  assert.ok(registered, 'registered on create');
  assert.equal(registered!.parameters, action.parameters);
  const result = await registered!.handler({ who: 'agent' }, { signal: new AbortController().signal });
  assert.is(result.text, 'hi agent');

  await call({ method: 'PUT', url: `/api/custom-actions/${action.id}`, body: { name: 'live welcomer', handler: { type: 'code', code: 'return "welcome " + params.who' }, terminalToken: TERMINAL } });
  assert.not.ok(agent.actions.has('LIVE_GREETER'), 'old name gone');
  assert.is((await agent.actions.get('LIVE_WELCOMER')!.handler({ who: 'x' }, { signal: new AbortController().signal })).text, 'welcome x', 'new handler live');

  await call({ method: 'PUT', url: `/api/custom-actions/${action.id}`, body: { enabled: false, terminalToken: TERMINAL } });
  assert.not.ok(agent.actions.has('LIVE_WELCOMER'), 'disabled → unregistered');
  await call({ method: 'PUT', url: `/api/custom-actions/${action.id}`, body: { enabled: true, terminalToken: TERMINAL } });
  assert.ok(agent.actions.has('LIVE_WELCOMER'), 'enabled → registered');

  const failing = await agent.actions.get('LIVE_WELCOMER')!.handler({}, { signal: new AbortController().signal }).catch((e: Error) => e);
  assert.ok(failing instanceof Error, 'a missing required parameter reaches the agent as an error');

  assert.equal((await call({ method: 'DELETE', url: `/api/custom-actions/${action.id}` })).body, { ok: true });
  assert.not.ok(agent.actions.has('LIVE_WELCOMER'), 'deleted → unregistered');
  assert.is((await call({ method: 'DELETE', url: `/api/custom-actions/${action.id}` })).status, 404);

  const disabled = (await create({ ...codeAction('born disabled'), enabled: false })).body.action;
  assert.is(disabled.enabled, false);
  assert.not.ok(agent.actions.has('BORN_DISABLED'));
});

test('a name taken by one of the agent\'s own actions is refused with 409', async () => {
  agent.actions.set('BUILTIN_REPLY', { name: 'BUILTIN_REPLY', description: 'built in', handler: async () => ({ text: '' }) });
  const response = await create({ name: 'builtin reply', description: 'clash', handler: { type: 'http', url: 'https://example.com/' } });
  assert.is(response.status, 409);
  assert.is(agent.actions.get('BUILTIN_REPLY')!.description, 'built in');
});

test('generate: a valid suggestion is returned normalized; an invalid one is rejected; 400 without prompt', async () => {
  const good = await call({ method: 'POST', url: '/api/custom-actions/generate', body: { prompt: 'look up the weather' } });
  assert.is(good.status, 200);
  assert.equal(good.body, {
    ok: true,
    generated: {
      name: 'WEATHER_LOOKUP', description: 'Current weather for a city', handlerType: 'http',
      handler: { type: 'http', method: 'GET', url: 'https://api.example.com/weather?city={{city}}' },
      parameters: [{ name: 'city', description: 'City name', required: true }],
    },
  });
  assert.is(agent.prompts.at(-1), 'look up the weather');
  const badHandler = await call({ method: 'POST', url: '/api/custom-actions/generate', body: { prompt: 'broken one' } });
  assert.equal([badHandler.status, badHandler.body.code], [502, 'GENERATION_FAILED']);
  assert.match(badHandler.body.error, /url/);
  const prose = await call({ method: 'POST', url: '/api/custom-actions/generate', body: { prompt: 'anything' } });
  assert.equal([prose.status, prose.body.code], [502, 'GENERATION_FAILED']);
  assert.is((await call({ method: 'POST', url: '/api/custom-actions/generate', body: {} })).status, 400);
  assert.is((await call({ method: 'POST', url: '/api/custom-actions/generate', body: { prompt: '  ' } })).status, 400);
  assert.ok(!(await call({ url: '/api/custom-actions' })).body.actions.some((a: { name: string }) => a.name === 'WEATHER_LOOKUP'), 'a suggestion is not saved');
});

test('actions persist across a restart and are registered with the agent again', async () => {
  const before = (await call({ url: '/api/custom-actions' })).body.actions;
  const enabledNames = before.filter((a: { enabled: boolean }) => a.enabled).map((a: { name: string }) => a.name).sort();
  await kernel.close();
  await boot();
  const after = (await call({ url: '/api/custom-actions' })).body.actions;
  assert.equal(after, before);
  assert.equal([...agent.actions.keys()].sort(), enabledNames);
});

test('unloading the plugin removes its actions from the agent', async () => {
  assert.ok(agent.actions.size > 0);
  await kernel.kernel.unload('custom-actions');
  assert.is(agent.actions.size, 0);
});

test.run();
