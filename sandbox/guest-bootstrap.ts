/**
 * Evaluated once in every fresh isolate, before any untrusted code: returns the `run` function the host
 * calls (through a Reference it keeps) for the one run that isolate serves.
 *
 * Why it is shaped like this:
 * - Capabilities arrive as ivm References, which must never reach untrusted code (`ref.get('constructor')`
 *   would hand out the host's Function). They stay in `run`'s strict-mode scope and the code only gets
 *   plain async functions that copy arguments out and results back. Host failures come back as data and
 *   are thrown here as guest Errors, so no host error object or stack ever crosses.
 * - The code is compiled with the guest's own AsyncFunction constructor, which parses it as a function
 *   body on its own, so it cannot close our braces and reach `run`'s variables; strict mode keeps
 *   `arguments.callee.caller` and stack-frame `getFunction()` from handing `run` out.
 * - Builtins the epilogue needs are captured before the code runs, so the code cannot subvert them.
 */
export const GUEST_BOOTSTRAP = `'use strict';
const AsyncFunction = (async function () {}).constructor;
const stringify = JSON.stringify;
const sliceString = Function.prototype.call.bind(String.prototype.slice);
const mapArray = Function.prototype.call.bind(Array.prototype.map);
const GuestError = Error;
// The host always resolves with {ok, value} or {ok, error}: the error is raised here, as a guest Error.
const callHost = (ref) => async (...args) => {
  const reply = await ref.apply(undefined, args, { arguments: { copy: true }, result: { promise: true, copy: true } });
  if (!reply.ok) throw new GuestError(reply.error);
  return reply.value;
};
return async function run(code, { names, values, capNames }, maxChars, ...capRefs) {
  const fn = new AsyncFunction(...names, ...capNames, code);
  const value = await fn(...values, ...mapArray(capRefs, callHost));
  let text = typeof value === 'string' ? value : stringify(value);
  if (typeof text !== 'string') text = '';
  return text.length > maxChars ? { output: sliceString(text, 0, maxChars), truncated: true } : { output: text, truncated: false };
};`;
