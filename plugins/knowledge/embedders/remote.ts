/** Settings of a remote embedding service; read once when the plugin starts (a change applies on reload). */
export interface RemoteEmbedderSettings { baseUrl?: string; apiKey?: string; model?: string; dimensions?: number }

/** The model id stored with the vectors: provider, model and (when reduced) dimensions. */
export function remoteModelId(provider: string, model: string, dimensions: number | undefined): string {
  return `${provider}:${model}${dimensions ? `@${dimensions}` : ''}`;
}
