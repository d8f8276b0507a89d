import sandbox from '../sandbox/index.ts';
import type { PluginDef } from '../sdk/index.ts';
import agent from './agent/index.ts';
import auth from './auth/index.ts';
import cloudCoding from './cloud-coding/index.ts';
import compatV1 from './compat-v1/index.ts';
import conversations from './conversations/index.ts';
import customActions from './custom-actions/index.ts';
import diagnostics from './diagnostics/index.ts';
import knowledge from './knowledge/index.ts';
import memory from './memory/index.ts';
import modelAnthropic from './model-anthropic/index.ts';
import modelGoogle from './model-google/index.ts';
import modelOffline from './model-offline/index.ts';
import modelOllama from './model-ollama/index.ts';
import modelOpenAi from './model-openai/index.ts';
import runtime from './runtime/index.ts';
import triggers from './triggers/index.ts';
import vfs from './vfs/index.ts';
import vfsPlugins from './vfs-plugins/index.ts';
import workbench from './workbench/index.ts';

/** The default bundle `npm start` runs. */
export const defaultPlugins: PluginDef<any>[] = [runtime, diagnostics, auth, agent, modelOffline, memory, conversations, compatV1, knowledge, sandbox, customActions,
  modelOpenAi, modelAnthropic, modelGoogle, modelOllama, workbench, cloudCoding, vfs, triggers, vfsPlugins];
