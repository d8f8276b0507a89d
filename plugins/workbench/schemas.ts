import type { TProperties } from 'typebox';
import { Type, type Static } from '../../sdk/index.ts';

/** The tag every workbench task carries, whatever the client sends. */
export const TASK_TAG = 'workbench-task';

const Timestamps = { createdAt: Type.String({ format: 'date-time' }), updatedAt: Type.String({ format: 'date-time' }) };
const Id = Type.String({ format: 'uuid' });

export const Task = Type.Object({
  id: Id, name: Type.String(), description: Type.String(),
  tags: Type.Array(Type.String(), { description: `Always includes ${TASK_TAG}` }), isCompleted: Type.Boolean(), ...Timestamps,
});
export type Task = Static<typeof Task>;

export const Todo = Type.Object({
  id: Id, name: Type.String(), description: Type.String(), isCompleted: Type.Boolean(),
  priority: Type.Union([Type.Number(), Type.Null()]), isUrgent: Type.Boolean(), type: Type.String(),
  tags: Type.Array(Type.String()), ...Timestamps,
});
export type Todo = Static<typeof Todo>;

// Write bodies come in two forms from one field list: create applies defaults, update (a partial update)
// must not, or a PUT naming one field would reset the others. Only `name` is required on create.
type Defaults = Record<string, unknown> | undefined;
const given = (defaults: Defaults, key: string) => (defaults ? { default: defaults[key] } : {});

const Name = Type.String({ maxLength: 200, description: 'Trimmed; empty or blank → 400 EMPTY_NAME' });
const taskFields = (defaults?: Defaults) => ({
  description: Type.String({ maxLength: 10_000, ...given(defaults, 'description') }),
  tags: Type.Array(Type.String({ minLength: 1, maxLength: 100, pattern: '\\S' }), { maxItems: 50, description: 'Trimmed and de-duplicated', ...given(defaults, 'tags') }),
  isCompleted: Type.Boolean(given(defaults, 'isCompleted')),
});
const todoFields = (defaults?: Defaults) => ({
  ...taskFields(defaults),
  priority: Type.Union([Type.Number(), Type.Null()], given(defaults, 'priority')),
  isUrgent: Type.Boolean(given(defaults, 'isUrgent')),
  type: Type.String({ minLength: 1, maxLength: 50, ...given(defaults, 'type') }),
});

// Unknown fields are refused (400) rather than ignored, so that `id` or `createdAt` can never be written.
const closed = { additionalProperties: false };
const optional = <P extends TProperties>(properties: P) => Type.Partial(Type.Object(properties)).properties;
export const TaskCreate = Type.Object({ name: Name, ...optional(taskFields({ description: '', tags: [], isCompleted: false })) }, closed);
export const TaskPatch = Type.Partial(Type.Object({ name: Name, ...taskFields() }), closed);
export const TodoCreate = Type.Object({
  name: Name, ...optional(todoFields({ description: '', tags: [], isCompleted: false, priority: null, isUrgent: false, type: 'task' })),
}, closed);
export const TodoPatch = Type.Partial(Type.Object({ name: Name, ...todoFields() }), closed);

const TriggerSummary = Type.Object({ id: Type.String(), displayName: Type.String(), enabled: Type.Boolean(), schedule: Type.String() });
const LifeOps = Type.Object({
  occurrences: Type.Array(Type.Unknown()), goals: Type.Array(Type.Unknown()), reminders: Type.Array(Type.Unknown()),
  summary: Type.Object({
    activeOccurrenceCount: Type.Integer(), overdueOccurrenceCount: Type.Integer(), snoozedOccurrenceCount: Type.Integer(),
    activeReminderCount: Type.Integer(), activeGoalCount: Type.Integer(),
  }),
});

export const Overview = Type.Object({
  tasks: Type.Array(Task),
  triggers: Type.Array(TriggerSummary),
  todos: Type.Array(Todo),
  summary: Type.Object({
    totalTasks: Type.Integer(), completedTasks: Type.Integer(), totalTriggers: Type.Integer(),
    activeTriggers: Type.Integer({ description: 'Enabled triggers' }), totalTodos: Type.Integer(), completedTodos: Type.Integer(),
  }),
  autonomy: Type.Object({
    enabled: Type.Boolean(), thinking: Type.Boolean(),
    lastEventAt: Type.Union([Type.Number(), Type.Null()], { description: 'Unix ms of the latest autonomy event' }),
  }),
  lifeops: Type.Optional(LifeOps),
  tasksAvailable: Type.Boolean(), triggersAvailable: Type.Boolean(), todosAvailable: Type.Boolean(), lifeopsAvailable: Type.Boolean(),
});
export type Overview = Static<typeof Overview>;
