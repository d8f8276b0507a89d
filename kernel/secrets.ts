import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

export interface SealedSecret { $enc: string }

/** AES-256-GCM for secrets at rest. Key: SVC_SECRET_KEY (hashed) or a 0600 key file in the state dir. */
export class SecretBox {
  private readonly key: Buffer;

  constructor(stateDir: string, passphrase?: string) {
    if (passphrase) {
      this.key = createHash('sha256').update(passphrase).digest();
      return;
    }
    const file = join(stateDir, 'secret.key');
    if (!existsSync(file)) {
      mkdirSync(stateDir, { recursive: true });
      writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    }
    this.key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  }

  seal(value: unknown): SealedSecret {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return { $enc: Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64') };
  }

  open(sealed: SealedSecret): unknown {
    const raw = Buffer.from(sealed.$enc, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return JSON.parse(Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8'));
  }

  static isSealed(value: unknown): value is SealedSecret {
    return typeof value === 'object' && value !== null && typeof (value as SealedSecret).$enc === 'string';
  }
}
