// Triggers against the real server process (`bin/svc.ts`, the default bundle with the agent and the
// offline model): a once trigger really fires on its timer, and one whose time passes while the server
// is stopped fires once at the next start (catch-up).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SpawnedServer } from '../helpers/server.ts';
import { postJson, sleep, start, stateDir, stop, stopAll } from './_helpers.ts';

interface Run { status: string; source: string; startedAt: number }
interface Trigger { id: string; enabled: boolean; runCount: number; nextRunAtMs?: number }

const dir = stateDir();
let server: SpawnedServer;
test.after(stopAll);

async function createOnce(at: number): Promise<Trigger> {
  const response = await postJson(`${server.url}/api/triggers`, { displayName: 'e2e once', instructions: 'Say hello to the e2e test', triggerType: 'once', scheduledAtIso: new Date(at).toISOString() });
  assert.is(response.status, 201, await response.clone().text());
  return ((await response.json()) as { trigger: Trigger }).trigger;
}
const getJson = async <T>(path: string): Promise<T> => (await fetch(`${server.url}${path}`)).json() as Promise<T>;

/** Polls the run history until it holds a run. */
async function firstRuns(id: string, timeoutMs = 10_000): Promise<Run[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { runs } = await getJson<{ runs: Run[] }>(`/api/triggers/${id}/runs`);
    if (runs.length) return runs;
    if (Date.now() > deadline) throw new Error(`Trigger ${id} did not run within ${timeoutMs} ms`);
    await sleep(100);
  }
}

test('a once trigger set two seconds ahead really fires, through the agent, and disables itself', async () => {
  server = await start({ stateDir: dir });
  const trigger = await createOnce(Date.now() + 2000);
  const runs = await firstRuns(trigger.id);
  assert.equal(runs.map((run) => [run.status, run.source]), [['success', 'scheduler']]);
  const { trigger: after } = await getJson<{ trigger: Trigger }>(`/api/triggers/${trigger.id}`);
  assert.equal([after.enabled, after.runCount, after.nextRunAtMs], [false, 1, undefined]);
});

test('a once trigger whose time passes while the server is stopped fires once at the next start', async () => {
  const at = Date.now() + 3000;
  const trigger = await createOnce(at);
  await stop(server);
  await sleep(Math.max(0, at - Date.now()) + 200);
  const restartedAt = Date.now();
  server = await start({ stateDir: dir });
  const runs = await firstRuns(trigger.id);
  assert.is(runs.length, 1);
  assert.equal([runs[0]!.status, runs[0]!.source], ['success', 'scheduler']);
  assert.ok(runs[0]!.startedAt >= restartedAt, 'it ran after the restart, not before the stop');
  const { trigger: after } = await getJson<{ trigger: Trigger }>(`/api/triggers/${trigger.id}`);
  assert.equal([after.enabled, after.runCount], [false, 1]);
  const health = await getJson<{ schedulerRunning: boolean; totalRuns: number }>('/api/triggers/health');
  assert.equal([health.schedulerRunning, health.totalRuns], [true, 2]);
});

test.run();
