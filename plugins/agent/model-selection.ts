import { errors, OFFLINE_PROVIDER, type ModelProvider, type Registry } from '../../sdk/index.ts';

/**
 * The provider that answers: the configured one (SVC_MODEL_PROVIDER), else the first registered
 * provider that is not the offline one, else the offline provider. Resolved per call, so providers
 * registered after the agent started are picked up without a restart.
 */
export function selectModel(models: Registry<ModelProvider>, configured: string | undefined): ModelProvider {
  if (configured) {
    const chosen = models.get(configured);
    if (!chosen) {
      const names = models.list().map((m) => m.name).join(', ') || 'none';
      throw errors.unavailable(`Model provider "${configured}" (SVC_MODEL_PROVIDER) is not registered; registered: ${names}`);
    }
    return chosen;
  }
  const chosen = models.list().find((m) => m.name.toLowerCase() !== OFFLINE_PROVIDER) ?? models.get(OFFLINE_PROVIDER);
  if (!chosen) throw errors.unavailable('No model provider is registered');
  return chosen;
}
