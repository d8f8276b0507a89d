import type { PluginDef } from '../sdk/index.ts';
import auth from './auth/index.ts';
import diagnostics from './diagnostics/index.ts';
import runtime from './runtime/index.ts';

/** The default bundle `npm start` runs. */
export const defaultPlugins: PluginDef<any>[] = [runtime, diagnostics, auth];
