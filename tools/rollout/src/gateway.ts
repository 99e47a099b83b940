import { isStatus, Status } from '@rollout/contracts';

/** Every failure is one line a person reads, so every command ends the same way on any error. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly status?: Status,
  ) {
    super(message);
    this.name = 'CliError';
  }

  get reason(): string | undefined {
    for (const detail of this.status?.details ?? [])
      if (detail['@type'] === 'type.googleapis.com/google.rpc.ErrorInfo') return detail.reason;
    return undefined;
  }
}

export interface GatewayOptions {
  url: string;
  token?: string;
  /** A backtest is followed call by call, so no call is long. */
  timeoutMs?: number;
}

export function describeStatus(status: Status): string {
  const parts: string[] = [];
  for (const detail of status.details) {
    if (detail['@type'] === 'type.googleapis.com/google.rpc.BadRequest')
      parts.push(...detail.fieldViolations.map((v) => `${v.field}: ${v.description}`));
    if (detail['@type'] === 'type.googleapis.com/google.rpc.PreconditionFailure')
      parts.push(...detail.violations.map((v) => `${v.subject}: ${v.description}`));
  }
  return parts.length ? `${status.message} ${parts.join('; ')}` : status.message;
}

export const refusedWith = (status: Status) =>
  new CliError(`${status.status} (HTTP ${status.code}): ${describeStatus(status)}`, status);

export class Gateway {
  readonly url: string;

  constructor(private readonly options: GatewayOptions) {
    this.url = options.url.replace(/\/+$/, '');
  }

  get<T>(path: string): Promise<T> {
    return this.call<T>('GET', path);
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.call<T>('POST', path, body ?? {});
  }

  patch<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>('PATCH', path, body);
  }

  delete<T>(path: string): Promise<T> {
    return this.call<T>('DELETE', path);
  }

  async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.options.token) headers.authorization = `Bearer ${this.options.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${this.url}${path}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      });
    } catch (error) {
      throw new CliError(`cannot reach the gateway at ${this.url}: ${networkCause(error)}`);
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      throw new CliError(
        `the gateway at ${this.url} answered ${method} ${path} with HTTP ${response.status} and no JSON: is it the rollout gateway?`,
      );
    }
    if (response.ok) return parsed as T;
    const status = (parsed as { error?: unknown }).error;
    if (isStatus(status)) throw refusedWith(status);
    throw new CliError(`the gateway answered ${method} ${path} with HTTP ${response.status}`);
  }
}

function networkCause(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer in time';
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code === 'ECONNREFUSED') return 'connection refused';
  if (cause?.code === 'ENOTFOUND') return 'unknown host';
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}
