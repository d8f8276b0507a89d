import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TObject, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import Value from 'typebox/value';
import { errors } from '../sdk/errors.ts';
import type { PluginConfig } from '../sdk/types.ts';
import { writeFileAtomic } from '../sdk/atomic-file.ts';
import { redactBySchema } from './redact.ts';
import { SecretBox } from './secrets.ts';

type Overrides = Record<string, Record<string, unknown>>;
type PropSchema = TSchema & { env?: string; secret?: boolean };

/**
 * Per-plugin configuration. Precedence: schema defaults ← embedder options ← env vars named by a
 * property's `env` keyword ← persisted overrides. Overrides live in one file written atomically;
 * fields marked `secret` are sealed with AES-256-GCM there.
 */
export class ConfigStore {
  private overrides: Overrides = {};
  private writing: Promise<void> = Promise.resolve();
  private readonly file: string;

  constructor(
    stateDir: string,
    private readonly options: Record<string, Record<string, unknown>>,
    private readonly env: NodeJS.ProcessEnv,
    private readonly secrets: SecretBox,
  ) {
    this.file = join(stateDir, 'config.json');
  }

  async load(): Promise<void> {
    try {
      this.overrides = JSON.parse(await readFile(this.file, 'utf8'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`Cannot read ${this.file}: ${(error as Error).message}`);
    }
  }

  forPlugin<C>(pluginId: string, schema: TObject | undefined): PluginConfig<C> {
    const validator = schema && Compile(schema);
    const merge = (): C => {
      if (!schema || !validator) return {} as C;
      const layered: Record<string, unknown> = { ...this.options[pluginId] };
      for (const [key, prop] of Object.entries(schema.properties as Record<string, PropSchema>)) {
        const fromEnv = prop.env ? this.env[prop.env] : undefined;
        if (fromEnv !== undefined && fromEnv !== '') layered[key] = fromEnv;
      }
      for (const [key, stored] of Object.entries(this.overrides[pluginId] ?? {})) {
        layered[key] = SecretBox.isSealed(stored) ? this.secrets.open(stored) : stored;
      }
      const value = validator.Convert(validator.Default(layered));
      if (!validator.Check(value)) {
        const first = [...validator.Errors(value)][0];
        throw new Error(`Invalid configuration for plugin "${pluginId}": ${first?.instancePath || '/'} ${first?.message}`);
      }
      return value as C;
    };
    let current = merge();
    return {
      get: () => current,
      redacted: () => redactBySchema(schema, current) as C,
      set: async (patch) => {
        if (!schema || !validator) throw errors.badRequest(`Plugin "${pluginId}" has no configuration`);
        const candidate = validator.Convert(validator.Default({ ...current, ...patch }));
        if (!validator.Check(candidate)) {
          throw errors.badRequest('Invalid configuration', [...validator.Errors(candidate)].map((e) => ({ path: e.instancePath, message: e.message })));
        }
        const stored: Record<string, unknown> = { ...this.overrides[pluginId] };
        for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
          const prop = (schema.properties as Record<string, PropSchema>)[key];
          if (!prop) continue;
          stored[key] = prop.secret ? this.secrets.seal(value) : Value.Clone(value);
        }
        this.overrides = { ...this.overrides, [pluginId]: stored };
        await this.persist();
        current = merge();
        return current;
      },
    };
  }

  /** Serialized so concurrent writers never interleave their renames. */
  private persist(): Promise<void> {
    const snapshot = JSON.stringify(this.overrides, null, 2);
    this.writing = this.writing.then(() => writeFileAtomic(this.file, snapshot));
    return this.writing;
  }
}
