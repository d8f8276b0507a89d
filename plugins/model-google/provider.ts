import { ApiError, GoogleGenAI, type Content, type GenerateContentResponse } from '@google/genai';
import type { ModelChunk, ModelProvider, ModelRequest } from '../../sdk/index.ts';
import { guardedStream } from '../model-common/guarded-stream.ts';
import { splitSystem, type Turn } from '../model-common/messages.ts';
import type { Vendor, VendorFailure } from '../model-common/model-errors.ts';
import { perConfig } from '../model-common/per-config.ts';
import { googleKey, type GoogleConfig } from './config.ts';

/** Gemini over the Gemini API (streamGenerateContent); reads the configuration on every call. */
export function createGoogleProvider(config: () => GoogleConfig): ModelProvider {
  // Every option explicit: the SDK would otherwise read GOOGLE_* variables (Vertex AI, base URL) from process.env.
  const clientFor = perConfig((current: GoogleConfig) => new GoogleGenAI({
    apiKey: googleKey(current), vertexai: false,
    httpOptions: { baseUrl: current.baseUrl, retryOptions: { attempts: current.maxRetries + 1 } },
  }));

  return {
    name: 'google',
    model: () => config().model,
    stream(request: ModelRequest) {
      const current = config();
      const vendor: Vendor = { label: 'Google Gemini', baseUrl: current.baseUrl, keyEnv: 'GOOGLE_API_KEY (or GEMINI_API_KEY)', secrets: [googleKey(current) ?? ''], describe };
      const { system, turns } = splitSystem(request.messages);
      return guardedStream(vendor, request, current.timeoutMs,
        (abortSignal) => clientFor(current).models.generateContentStream({
          model: current.model,
          contents: turns.map(toGemini),
          config: {
            abortSignal,
            ...(system !== undefined && { systemInstruction: system }),
            ...(request.maxTokens !== undefined && { maxOutputTokens: request.maxTokens }),
            ...(request.temperature !== undefined && { temperature: request.temperature }),
          },
        }),
        translate);
    },
  };
}

/** Gemini calls the assistant "model"; images travel as inline data parts. */
function toGemini(turn: Turn): Content {
  return {
    role: turn.role === 'assistant' ? 'model' : 'user',
    parts: [{ text: turn.content }, ...(turn.images ?? []).map((image) => ({ inlineData: { mimeType: image.mimeType, data: image.data } }))],
  };
}

/** Text parts that are not thoughts; the usage comes with the chunk that carries the finish reason. */
async function* translate(events: AsyncIterable<GenerateContentResponse>): AsyncGenerator<ModelChunk> {
  for await (const chunk of events) {
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) if (part.text && !part.thought) yield { type: 'text', text: part.text };
    if (candidate?.finishReason && chunk.usageMetadata) {
      yield { type: 'usage', promptTokens: chunk.usageMetadata.promptTokenCount ?? 0, completionTokens: chunk.usageMetadata.candidatesTokenCount ?? 0 };
    }
  }
}

/** The SDK puts the vendor's JSON error body in the message; Google answers a bad key with 400 API_KEY_INVALID. */
function describe(error: unknown): VendorFailure | undefined {
  if (!(error instanceof ApiError)) return undefined;
  let body: { error?: { message?: string; details?: { reason?: string }[] } } = {};
  try { body = JSON.parse(error.message); } catch { /* not JSON: keep the raw message */ }
  return {
    status: error.status,
    message: body.error?.message ?? error.message,
    authRejected: body.error?.details?.some((detail) => detail.reason === 'API_KEY_INVALID'),
  };
}
