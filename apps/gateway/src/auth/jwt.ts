import {
  KeyObject,
  createHmac,
  createPublicKey,
  timingSafeEqual,
  verify as verifySignature,
} from 'node:crypto';
import type { Principal, Role } from './principal';

export interface JwtSettings {
  issuer: string;
  audience: string;
  /** PEM public key (RS256, ES256) or a shared secret (HS256). */
  key: string;
  leewaySeconds?: number;
}

const ROLES = new Set<Role>(['viewer', 'editor', 'admin']);

function decodeSegment(segment: string): unknown {
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
}

/** Never `none`: only the configured algorithm. */
export class JwtVerifier {
  private readonly publicKey?: KeyObject;
  private readonly secret?: Buffer;

  constructor(
    private readonly settings: JwtSettings,
    private readonly now: () => number = Date.now,
  ) {
    if (settings.key.includes('-----BEGIN')) this.publicKey = createPublicKey(settings.key);
    else this.secret = Buffer.from(settings.key, 'utf8');
  }

  verify(token: string): Principal | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    try {
      const header = decodeSegment(parts[0]) as { alg?: string };
      const claims = decodeSegment(parts[1]) as Record<string, unknown>;
      if (
        !this.signatureValid(
          header.alg,
          `${parts[0]}.${parts[1]}`,
          Buffer.from(parts[2], 'base64url'),
        )
      )
        return undefined;
      return this.principalFrom(claims);
    } catch {
      return undefined;
    }
  }

  private signatureValid(alg: string | undefined, signed: string, signature: Buffer): boolean {
    if (this.secret) {
      if (alg !== 'HS256') return false;
      const expected = createHmac('sha256', this.secret).update(signed).digest();
      return expected.length === signature.length && timingSafeEqual(expected, signature);
    }
    if (alg === 'RS256')
      return verifySignature('sha256', Buffer.from(signed), this.publicKey!, signature);
    if (alg === 'ES256') {
      return verifySignature(
        'sha256',
        Buffer.from(signed),
        { key: this.publicKey!, dsaEncoding: 'ieee-p1363' },
        signature,
      );
    }
    return false;
  }

  private principalFrom(claims: Record<string, unknown>): Principal | undefined {
    const nowSeconds = Math.floor(this.now() / 1000);
    const leeway = this.settings.leewaySeconds ?? 30;
    if (claims.iss !== this.settings.issuer) return undefined;
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!audiences.includes(this.settings.audience)) return undefined;
    if (typeof claims.exp !== 'number' || claims.exp + leeway < nowSeconds) return undefined;
    if (typeof claims.nbf === 'number' && claims.nbf - leeway > nowSeconds) return undefined;
    if (typeof claims.sub !== 'string' || !claims.sub) return undefined;
    const roles = (Array.isArray(claims.roles) ? claims.roles : []).filter((r): r is Role =>
      ROLES.has(r as Role),
    );
    if (!roles.length) return undefined;
    const projects =
      claims.projects === '*'
        ? '*'
        : Array.isArray(claims.projects)
          ? claims.projects.filter((p): p is string => typeof p === 'string')
          : [];
    return { name: `jwt:${claims.sub}`, roles, projects };
  }
}
