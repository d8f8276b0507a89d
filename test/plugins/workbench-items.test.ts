// Workbench tasks and todos over HTTP: create defaults and tag rules, alphabetical order, partial updates,
// EMPTY_NAME, TASK_NOT_FOUND / TODO_NOT_FOUND, validation, and persistence across a kernel restart on the
// same state dir.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import workbench from '../../plugins/workbench/index.ts';
import { createTestKernel, type TestKernel } from '../../sdk/testing.ts';

let k: TestKernel;
test.before(async () => { k = await createTestKernel({ plugins: [workbench] }); });
test.after(() => k.close());

const TASKS = '/api/workbench/tasks';
const TODOS = '/api/workbench/todos';
const create = (base: string, body: unknown) => k.inject({ method: 'POST', url: base, body });
const update = (base: string, id: string, body: unknown) => k.inject({ method: 'PUT', url: `${base}/${id}`, body });
const names = async () => ((await k.inject({ url: TASKS })).body.tasks as { name: string }[]).map((t) => t.name);

test('tasks create: 201 {task} with defaults, a trimmed name, ISO timestamps and the workbench-task tag', async () => {
  const response = await create(TASKS, { name: '  Write report  ' });
  assert.is(response.status, 201);
  const { task } = response.body;
  assert.match(task.id, /^[0-9a-f-]{36}$/);
  assert.equal({ name: task.name, description: task.description, tags: task.tags, isCompleted: task.isCompleted },
    { name: 'Write report', description: '', tags: ['workbench-task'], isCompleted: false });
  assert.is(new Date(task.createdAt).toISOString(), task.createdAt);
  assert.is(task.updatedAt, task.createdAt);
  assert.equal((await k.inject({ url: `${TASKS}/${task.id}` })).body, { task });
});

test('tasks tags: trimmed, de-duplicated, and workbench-task always present exactly once', async () => {
  const tagged = (await create(TASKS, { name: 'Tagged', tags: ['urgent', ' urgent ', 'home', 'workbench-task', 'home'] })).body.task;
  assert.equal(tagged.tags, ['urgent', 'home', 'workbench-task']);
  assert.equal((await update(TASKS, tagged.id, { tags: [] })).body.task.tags, ['workbench-task'], 'an update cannot remove it');
  assert.equal((await update(TASKS, tagged.id, { tags: ['x', 'x'] })).body.task.tags, ['x', 'workbench-task']);
});

test('tasks list: {tasks} sorted alphabetically, case-insensitively, ties stable by id', async () => {
  for (const name of ['banana', 'Apple', 'cherry', 'apple', 'Écrire', 'date']) await create(TASKS, { name });
  const list = (await k.inject({ url: TASKS })).body.tasks as { id: string; name: string }[];
  const ours = list.filter((t) => ['banana', 'Apple', 'cherry', 'apple', 'Écrire', 'date'].includes(t.name));
  assert.equal(ours.map((t) => t.name.toLowerCase()), ['apple', 'apple', 'banana', 'cherry', 'date', 'écrire']);
  const apples = ours.slice(0, 2).map((t) => t.id);
  assert.equal(apples, [...apples].sort(), 'equal names keep id order');
  assert.equal(await names(), [...await names()], 'the order is the same on every call');
});

test('tasks update: partial (only the fields sent change), new updatedAt; EMPTY_NAME for a blank name', async () => {
  const task = (await create(TASKS, { name: 'Partial', description: 'keep me', tags: ['a'] })).body.task;
  await new Promise((resolve) => setTimeout(resolve, 5));
  const done = await update(TASKS, task.id, { isCompleted: true });
  assert.is(done.status, 200);
  assert.equal({ ...done.body.task, updatedAt: undefined }, { ...task, isCompleted: true, updatedAt: undefined });
  assert.ok(done.body.task.updatedAt > task.updatedAt);
  const renamed = (await update(TASKS, task.id, { name: ' Renamed ', description: '' })).body.task;
  assert.equal([renamed.name, renamed.description, renamed.isCompleted, renamed.tags], ['Renamed', '', true, ['a', 'workbench-task']]);
  for (const name of ['', '   ']) {
    const bad = await update(TASKS, task.id, { name });
    assert.is(bad.status, 400);
    assert.is(bad.body.code, 'EMPTY_NAME');
  }
  assert.is((await k.inject({ url: `${TASKS}/${task.id}` })).body.task.name, 'Renamed', 'a refused update changes nothing');
});

test('tasks create: EMPTY_NAME for a blank name, INVALID_REQUEST for a missing or malformed field', async () => {
  for (const name of ['', ' \t ']) {
    const response = await create(TASKS, { name });
    assert.is(response.status, 400);
    assert.is(response.body.code, 'EMPTY_NAME');
    assert.type(response.body.error, 'string');
  }
  for (const body of [{}, { name: 3 }, { name: 'x', tags: 'a' }, { name: 'x', tags: [''] }, { name: 'x', isCompleted: 'yes' }, { name: 'x', id: 'mine' }, { name: 'x'.repeat(201) }]) {
    const response = await create(TASKS, body);
    assert.is(response.status, 400, JSON.stringify(body));
    assert.is(response.body.code, 'INVALID_REQUEST');
  }
  assert.is((await update(TASKS, 'whatever', { createdAt: '2020-01-01T00:00:00.000Z' })).status, 400, 'timestamps are not writable');
});

test('tasks unknown ids: 404 TASK_NOT_FOUND on GET, PUT and DELETE; delete answers {ok: true} once', async () => {
  const task = (await create(TASKS, { name: 'Doomed' })).body.task;
  assert.equal((await k.inject({ method: 'DELETE', url: `${TASKS}/${task.id}` })).body, { ok: true });
  for (const method of ['GET', 'PUT', 'DELETE']) {
    const response = await k.inject({ method, url: `${TASKS}/${task.id}`, ...(method === 'PUT' && { body: { name: 'x' } }) });
    assert.is(response.status, 404, method);
    assert.is(response.body.code, 'TASK_NOT_FOUND', method);
  }
  assert.not.ok((await names()).includes('Doomed'));
});

test('tasks persistence: tasks, updates and deletions survive a kernel restart on the same state dir', async () => {
  const kept = (await create(TASKS, { name: 'Survivor', description: 'persisted', tags: ['t'] })).body.task;
  const updated = (await update(TASKS, kept.id, { isCompleted: true })).body.task;
  const gone = (await create(TASKS, { name: 'Ephemeral' })).body.task;
  await k.inject({ method: 'DELETE', url: `${TASKS}/${gone.id}` });
  const before = (await k.inject({ url: TASKS })).body.tasks;
  k = await k.restart();
  assert.equal((await k.inject({ url: `${TASKS}/${kept.id}` })).body.task, updated);
  assert.equal((await k.inject({ url: TASKS })).body.tasks, before);
  assert.is((await k.inject({ url: `${TASKS}/${gone.id}` })).status, 404);
});

test('todos create: 201 {todo} with the spec\'s defaults; no tag is imposed', async () => {
  const response = await create(TODOS, { name: ' Buy milk ' });
  assert.is(response.status, 201);
  const { todo } = response.body;
  assert.match(todo.id, /^[0-9a-f-]{36}$/);
  assert.equal({ ...todo, id: undefined, createdAt: undefined, updatedAt: undefined }, {
    id: undefined, name: 'Buy milk', description: '', isCompleted: false, priority: null, isUrgent: false, type: 'task', tags: [], createdAt: undefined, updatedAt: undefined,
  });
  assert.is(new Date(todo.createdAt).toISOString(), todo.createdAt);
  const full = (await create(TODOS, { name: 'Call bank', description: 'about the card', priority: 2.5, isUrgent: true, type: 'errand', isCompleted: true, tags: ['money', 'money'] })).body.todo;
  assert.equal([full.description, full.priority, full.isUrgent, full.type, full.isCompleted, full.tags], ['about the card', 2.5, true, 'errand', true, ['money']]);
  assert.equal((await k.inject({ url: `${TODOS}/${full.id}` })).body, { todo: full });
});

test('todos list: {todos} sorted alphabetically by name, case-insensitively', async () => {
  for (const name of ['walk dog', 'Answer mail', 'zebra crossing', 'answer phone']) await create(TODOS, { name });
  const todos = (await k.inject({ url: TODOS })).body.todos as { name: string }[];
  const sorted = todos.map((t) => t.name);
  assert.equal(sorted, [...sorted].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase())));
  assert.ok(sorted.indexOf('Answer mail') < sorted.indexOf('answer phone') && sorted.indexOf('answer phone') < sorted.indexOf('walk dog'));
});

test('todos update: partial; priority can be cleared with null; EMPTY_NAME for a blank name', async () => {
  const todo = (await create(TODOS, { name: 'Dentist', priority: 1, isUrgent: true })).body.todo;
  const done = (await update(TODOS, todo.id, { isCompleted: true })).body.todo;
  assert.equal([done.name, done.priority, done.isUrgent, done.isCompleted], ['Dentist', 1, true, true]);
  assert.is((await update(TODOS, todo.id, { priority: null })).body.todo.priority, null);
  const blank = await update(TODOS, todo.id, { name: '  ' });
  assert.is(blank.status, 400);
  assert.is(blank.body.code, 'EMPTY_NAME');
});

test('todos create: EMPTY_NAME for a blank name, INVALID_REQUEST for missing or malformed fields', async () => {
  const blank = await create(TODOS, { name: '' });
  assert.is(blank.status, 400);
  assert.is(blank.body.code, 'EMPTY_NAME');
  for (const body of [{}, { name: 'x', priority: 'high' }, { name: 'x', isUrgent: 1 }, { name: 'x', type: '' }, { name: 'x', tags: [1] }, { name: 'x', updatedAt: 'now' }]) {
    const response = await create(TODOS, body);
    assert.is(response.status, 400, JSON.stringify(body));
    assert.is(response.body.code, 'INVALID_REQUEST');
  }
});

test('todos unknown ids: 404 TODO_NOT_FOUND on GET, PUT and DELETE', async () => {
  const todo = (await create(TODOS, { name: 'Gone soon' })).body.todo;
  assert.equal((await k.inject({ method: 'DELETE', url: `${TODOS}/${todo.id}` })).body, { ok: true });
  for (const method of ['GET', 'PUT', 'DELETE']) {
    const response = await k.inject({ method, url: `${TODOS}/${todo.id}`, ...(method === 'PUT' && { body: {} }) });
    assert.is(response.status, 404, method);
    assert.is(response.body.code, 'TODO_NOT_FOUND', method);
  }
});

test('todos persistence: todos survive a kernel restart on the same state dir', async () => {
  const todo = (await create(TODOS, { name: 'Renew passport', priority: 3, type: 'document' })).body.todo;
  const before = (await k.inject({ url: TODOS })).body.todos;
  k = await k.restart();
  assert.equal((await k.inject({ url: `${TODOS}/${todo.id}` })).body.todo, todo);
  assert.equal((await k.inject({ url: TODOS })).body.todos, before);
});

test.run();
