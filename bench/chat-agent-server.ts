// The agent bundle alone (agent, offline model, memory, conversations, /v1: no knowledge, sandbox or
// custom actions) as a server process for bench/chat.ts, to tell the agent's own cost from that of the
// other context providers in the default bundle. State in SVC_STATE_DIR.
import { createKernel } from '../kernel/index.ts';
import { AGENT_BUNDLE } from '../test/plugins/agent-helpers.ts';

const kernel = createKernel({ plugins: AGENT_BUNDLE, stateDir: process.env.SVC_STATE_DIR, env: {}, log: { level: 'error' } });
await kernel.start();
const { url } = await kernel.listen({ port: 0 });
process.stdout.write(`URL: ${url}\n`);
process.once('SIGTERM', () => { void kernel.stop().then(() => process.exit(0)); });
