import { randomInt } from 'node:crypto';
import { createToken, type AuthService, type Logger } from '../../sdk/index.ts';

export const PAIRING_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export const ATTEMPT_LIMIT = 5;
export const ATTEMPT_WINDOW_MS = 10 * 60 * 1000;

export interface PairingSettings { codeTtlMs: number; pairingDisabled: boolean; cloudProvisioned: boolean }
export type PairResult =
  | { ok: true; token: string }
  | { ok: false; reason: 'not-enabled' | 'disabled' | 'invalid' | 'expired' | 'rate-limited' };

export interface PairingService {
  status(): { required: boolean; pairingEnabled: boolean; expiresAt: number | null };
  pair(code: string, ip: string): PairResult;
  /** The active code, for the startup banner; null when pairing is off. */
  currentCode(): { code: string; expiresAt: number } | null;
  pruneAttempts(): void;
}
export const pairingService = createToken<PairingService>('auth.pairing');

/** Normalizes a submitted code: only letters and digits, upper case ("abcd-efgh" → "ABCDEFGH"). */
export const normalizeCode = (code: string) => code.replace(/[^A-Za-z0-9]/g, '').toUpperCase();

const formatDuration = (ms: number) => (ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`);

function generateCode(): string {
  let raw = '';
  for (let i = 0; i < 8; i++) raw += PAIRING_ALPHABET[randomInt(PAIRING_ALPHABET.length)];
  return `${raw.slice(0, 4)}-${raw.slice(4)}`;
}

/** The pairing state machine of the spec: lazy code, 10-minute validity, rotation, one-time use, per-IP limit. */
export function createPairing(auth: AuthService, settings: PairingSettings, log: Logger, now: () => number = Date.now): PairingService {
  let current: { code: string; expiresAt: number } | null = null;
  const attempts = new Map<string, { count: number; windowStart: number }>();
  const cloudBypass = settings.cloudProvisioned && auth.tokenConfigured;
  const enabled = auth.tokenConfigured && !settings.pairingDisabled && !cloudBypass;

  const issue = () => {
    current = { code: generateCode(), expiresAt: now() + settings.codeTtlMs };
    log.info(`Pairing code: ${current.code} (valid ${formatDuration(settings.codeTtlMs)}, until ${new Date(current.expiresAt).toISOString()})`, { tags: ['pairing'] });
    return current;
  };
  const active = () => (current && current.expiresAt > now() ? current : issue());

  /** Counts an attempt; the window restarts with the first attempt after it has expired. */
  const overLimit = (ip: string) => {
    const t = now();
    let slot = attempts.get(ip);
    if (!slot || t - slot.windowStart >= ATTEMPT_WINDOW_MS) attempts.set(ip, (slot = { count: 0, windowStart: t }));
    slot.count++;
    return slot.count > ATTEMPT_LIMIT;
  };

  return {
    status: () => ({
      required: auth.tokenConfigured && !cloudBypass,
      pairingEnabled: enabled,
      expiresAt: enabled ? active().expiresAt : null,
    }),
    pair(code, ip) {
      if (overLimit(ip)) return { ok: false, reason: 'rate-limited' };
      if (!auth.tokenConfigured) return { ok: false, reason: 'not-enabled' };
      if (!enabled) return { ok: false, reason: 'disabled' };
      if (!current) { issue(); return { ok: false, reason: 'invalid' }; }
      if (current.expiresAt <= now()) { issue(); return { ok: false, reason: 'expired' }; }
      if (!auth.equal(normalizeCode(code), normalizeCode(current.code))) return { ok: false, reason: 'invalid' };
      current = null;
      return { ok: true, token: auth.token()! };
    },
    currentCode: () => (enabled ? active() : null),
    pruneAttempts() {
      const t = now();
      for (const [ip, slot] of attempts) if (t - slot.windowStart >= ATTEMPT_WINDOW_MS) attempts.delete(ip);
    },
  };
}
