import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { definePlugin, HttpError, Type, type PluginConfig, type Static } from '../../sdk/index.ts';
import { createTestKernel, type TestKernel } from '../../sdk/testing.ts';

const quiet = { level: 'error' as const, write: () => {} };

const schema = Type.Object({
  fromDefault: Type.String({ default: 'schema-default' }),
  fromOptions: Type.Integer({ default: 1 }),
  fromEnv: Type.Integer({ default: 2, env: 'CFG_TEST_FROM_ENV' }),
  overridden: Type.String({ default: 'schema', env: 'CFG_TEST_OVERRIDDEN' }),
  apiKey: Type.String({ default: '', secret: true }),
});
type Config = Static<typeof schema>;

const options = { cfg: { fromOptions: 10, fromEnv: 20, overridden: 'options' } };
const env = { CFG_TEST_FROM_ENV: '30', CFG_TEST_OVERRIDDEN: 'env' };

async function start(stateDir: string): Promise<{ t: TestKernel; config: PluginConfig<Config> }> {
  let config: PluginConfig<Config> | undefined;
  const plugin = definePlugin({ id: 'cfg', version: '1', config: schema, setup(ctx) { config = ctx.config; } });
  const t = await createTestKernel({ stateDir, log: quiet, config: options, env, plugins: [plugin] });
  return { t, config: config! };
}

function withDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-kernel-config-'));
  return fn(dir).finally(() => rmSync(dir, { recursive: true, force: true }));
}

test('precedence: schema defaults ← embedder options ← env ← persisted overrides', () => withDir(async (dir) => {
  const { t, config } = await start(dir);
  try {
    assert.equal(config.get(), { fromDefault: 'schema-default', fromOptions: 10, fromEnv: 30, overridden: 'env', apiKey: '' });
    const next = await config.set({ overridden: 'persisted' });
    assert.is(next.overridden, 'persisted');
    assert.is(config.get().overridden, 'persisted');
    assert.is(config.get().fromEnv, 30, 'other layers unchanged');
  } finally {
    await t.close();
  }
}));

test('overrides and secrets survive a restart on the same state dir; secrets are sealed at rest', () => withDir(async (dir) => {
  const first = await start(dir);
  try {
    await first.config.set({ overridden: 'persisted', apiKey: 'sk-hunter2-very-secret' });
    assert.is(first.config.get().apiKey, 'sk-hunter2-very-secret');
    const redacted = first.config.redacted();
    assert.is(redacted.apiKey, '[REDACTED]');
    assert.is(redacted.overridden, 'persisted', 'only secret fields are redacted');
    assert.is(first.config.get().apiKey, 'sk-hunter2-very-secret', 'redacted() does not change the live value');
  } finally {
    await first.t.close();
  }
  const raw = readFileSync(join(dir, 'config.json'), 'utf8');
  assert.not.match(raw, 'hunter2');
  const stored = JSON.parse(raw) as { cfg: Record<string, unknown> };
  assert.is(stored.cfg.overridden, 'persisted');
  assert.type((stored.cfg.apiKey as { $enc?: unknown }).$enc, 'string');
  assert.is(statSync(join(dir, 'config.json')).mode & 0o777, 0o600);

  const second = await start(dir);
  try {
    assert.equal(second.config.get(), { fromDefault: 'schema-default', fromOptions: 10, fromEnv: 30, overridden: 'persisted', apiKey: 'sk-hunter2-very-secret' });
  } finally {
    await second.t.close();
  }
}));

test('an invalid set is a 400 HttpError and changes nothing', () => withDir(async (dir) => {
  const { t, config } = await start(dir);
  try {
    await config.set({ fromOptions: 11 });
    let caught: unknown;
    try {
      await config.set({ fromOptions: 'not a number' as unknown as number });
    } catch (error) {
      caught = error;
    }
    assert.ok(HttpError.is(caught), 'throws an HttpError');
    assert.is((caught as HttpError).status, 400);
    assert.is((caught as HttpError).code, 'INVALID_REQUEST');
    assert.ok(Array.isArray((caught as HttpError).details) && (caught as HttpError).details!.length > 0);
    assert.is(config.get().fromOptions, 11);
    const stored = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { cfg: Record<string, unknown> };
    assert.is(stored.cfg.fromOptions, 11);
  } finally {
    await t.close();
  }
}));

test('concurrent sets are all persisted and atomic writes leave no temp files', () => withDir(async (dir) => {
  const { t, config } = await start(dir);
  try {
    await Promise.all([
      config.set({ fromOptions: 100 }),
      config.set({ overridden: 'x' }),
      config.set({ apiKey: 'k1' }),
      config.set({ fromDefault: 'y' }),
    ]);
    assert.equal(config.get(), { fromDefault: 'y', fromOptions: 100, fromEnv: 30, overridden: 'x', apiKey: 'k1' });
    const stored = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { cfg: Record<string, unknown> };
    assert.equal(Object.keys(stored.cfg).sort(), ['apiKey', 'fromDefault', 'fromOptions', 'overridden']);
    assert.equal(readdirSync(dir).filter((f) => f.endsWith('.tmp')), []);
  } finally {
    await t.close();
  }
}));

test('env values are coerced to the schema type; an empty env var does not override', async () => {
  let config: PluginConfig<Config> | undefined;
  const plugin = definePlugin({ id: 'cfg', version: '1', config: schema, setup(ctx) { config = ctx.config; } });
  const t = await createTestKernel({ log: quiet, env: { CFG_TEST_FROM_ENV: '7', CFG_TEST_OVERRIDDEN: '' }, plugins: [plugin] });
  try {
    assert.is(config!.get().fromEnv, 7);
    assert.is(config!.get().overridden, 'schema');
  } finally {
    await t.close();
  }
});

test('an invalid embedder option fails the plugin with an attributed error', () => withDir(async (dir) => {
  let caught: unknown;
  const plugin = definePlugin({ id: 'cfg', version: '1', config: schema, setup() {} });
  try {
    const t = await createTestKernel({ stateDir: dir, log: quiet, config: { cfg: { fromOptions: 'abc' } }, plugins: [plugin] });
    await t.close();
  } catch (error) {
    caught = error;
  }
  assert.instance(caught, AggregateError);
  assert.match((caught as AggregateError).errors.map((e: Error) => e.message).join('\n'), /cfg: Invalid configuration for plugin "cfg"/);
}));

test.run();
