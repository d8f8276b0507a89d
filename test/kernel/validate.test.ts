// The per-route validators: flat parts take defaults without TypeBox's walk, anything nested keeps it.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileValidators } from '../../kernel/http/validate.ts';
import { Type } from '../../sdk/index.ts';

test('flat query: missing properties get their defaults (objects cloned per request), present ones are coerced', () => {
  const { query } = compileValidators({
    query: Type.Object({ limit: Type.Integer({ default: 10 }), sort: Type.Array(Type.String(), { default: ['name'] }), q: Type.Optional(Type.String()) }),
  });
  const first = query!({}) as { limit: number; sort: string[] };
  assert.equal(first, { limit: 10, sort: ['name'] });
  first.sort.push('mutated');
  assert.equal(query!({ limit: '25', q: 'x' }), { limit: 25, q: 'x', sort: ['name'] }, 'a default object is never shared between requests');
  assert.throws(() => query!({ limit: 'ten' }), /Invalid query: limit/);
});

test('a query property with nested schemas keeps TypeBox Default (nested defaults applied)', () => {
  const { query } = compileValidators({
    query: Type.Object({ page: Type.Union([Type.Integer(), Type.Literal('last')], { default: 1 }), mode: Type.String({ default: 'fast' }) }),
  });
  assert.equal(query!({}), { page: 1, mode: 'fast' });
  assert.equal(query!({ page: 'last' }), { page: 'last', mode: 'fast' });
});

test('the input object is not mutated', () => {
  const { query } = compileValidators({ query: Type.Object({ n: Type.Integer({ default: 3 }) }) });
  const input = {};
  query!(input);
  assert.equal(input, {});
});

test.run();
