import { agentModels, type ModelProvider, type PluginContext } from '../../sdk/index.ts';

/**
 * Adds the provider to the agent's model registry when the agent runtime is loaded; without it the
 * plugin still loads (standalone use, tests), and says so.
 */
export function offerModel(ctx: PluginContext<any>, provider: ModelProvider): void {
  const models = ctx.tryUse(agentModels);
  if (!models) {
    ctx.log.info(`Model provider "${provider.name}" is configured but no agent runtime provides ${agentModels.id}`);
    return;
  }
  ctx.track(models.add(provider));
  ctx.log.info(`Model provider "${provider.name}" registered (model ${provider.model()})`);
}
