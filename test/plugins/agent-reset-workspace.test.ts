// POST /api/agent/reset wipes the agent's workspace too: knowledge documents, workbench tasks and todos, triggers.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import knowledge from '../../plugins/knowledge/index.ts';
import triggers from '../../plugins/triggers/index.ts';
import workbench from '../../plugins/workbench/index.ts';
import { startAgentKernel } from './agent-helpers.ts';

test('reset removes documents, tasks, todos and triggers (and the triggers stop)', async () => {
  const k = await startAgentKernel({ plugins: [knowledge, workbench, triggers] });
  const post = (url: string, body: unknown = {}) => k.inject({ method: 'POST', url, body });
  try {
    assert.is((await post('/api/knowledge/documents', { filename: 'notes.txt', content: 'The boiler is serviced every October.' })).status, 200);
    assert.is((await post('/api/workbench/tasks', { name: 'Call the plumber' })).status, 201);
    assert.is((await post('/api/workbench/todos', { name: 'Buy filters' })).status, 201);
    const trigger = await post('/api/triggers', { displayName: 'Daily', instructions: 'Check the boiler', triggerType: 'interval', intervalMs: 3_600_000 });
    assert.is(trigger.status, 201);
    const boiler = () => k.inject({ url: '/api/knowledge/search?q=when%20is%20the%20boiler%20serviced&threshold=0' });
    assert.is((await boiler()).body.results.length, 1);
    const before = (await k.inject({ url: '/api/workbench/overview' })).body.summary;
    assert.equal([before.totalTasks, before.totalTodos, before.totalTriggers], [1, 1, 1]);

    assert.is((await post('/api/agent/reset')).status, 200);

    assert.is((await k.inject({ url: '/api/knowledge/stats' })).body.documentCount, 0);
    assert.equal((await boiler()).body.results, [], 'nothing is found after the reset');
    assert.equal((await k.inject({ url: '/api/workbench/tasks' })).body.tasks, []);
    assert.equal((await k.inject({ url: '/api/workbench/todos' })).body.todos, []);
    assert.equal((await k.inject({ url: '/api/triggers' })).body.triggers, []);
    assert.is((await k.inject({ url: '/api/triggers/health' })).body.nextDue, null, 'nothing is scheduled any more');
  } finally {
    await k.close();
  }
});

test.run();
