import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { readFile, stat, writeFile } from 'node:fs/promises';
import { canonicalJson } from '@rollout/contracts';
import { CliError } from './gateway';
import type { PlanModel } from './plan-model';

/**
 * Holds the planned versions (etags, or the revision to roll back to), not what to apply: the
 * service's etag checks refuse the commit when anything moved. A digest (SHA-256, or HMAC with
 * ROLLOUT_PLAN_KEY) refuses a hand-edited file: an edited etag would commit an unreviewed version.
 */
export const PLAN_FILE_VERSION = 1;
const MAX_PLAN_FILE_BYTES = 8 * 1024 * 1024;

export interface PlanBinding {
  planFileVersion: typeof PLAN_FILE_VERSION;
  kind: 'commit' | 'rollback' | 'none';
  gateway: string;
  policy: string;
  livePolicyEtag: string;
  /** commit: the experiment and the etag planned. */
  experiment?: string;
  experimentEtag?: string;
  /** Its first part is what the service re-checks. */
  reportEtag?: string;
  revisionId?: string;
  createTime: string;
  model: PlanModel;
}

export interface PlanFile {
  body: PlanBinding;
  digest: { algorithm: 'sha256' | 'hmac-sha256'; value: string };
}

function digestOf(body: PlanBinding, key: string | undefined): PlanFile['digest'] {
  const text = canonicalJson(body);
  return key
    ? { algorithm: 'hmac-sha256', value: createHmac('sha256', key).update(text).digest('hex') }
    : { algorithm: 'sha256', value: createHash('sha256').update(text).digest('hex') };
}

export function sealPlan(body: PlanBinding, key?: string): PlanFile {
  return { body, digest: digestOf(body, key) };
}

export function openPlan(text: string, source: string, key?: string): PlanBinding {
  let file: Partial<PlanFile>;
  try {
    file = JSON.parse(text) as Partial<PlanFile>;
  } catch {
    throw new CliError(`${source} is not a plan file (not JSON): make one with rollout plan.`);
  }
  if (!file || typeof file !== 'object' || !file.body || !file.digest?.value)
    throw new CliError(`${source} is not a plan file: make one with rollout plan.`);
  if (file.body.planFileVersion !== PLAN_FILE_VERSION)
    throw new CliError(`${source} is a plan file of another version: make a new plan.`);
  if (file.digest.algorithm === 'hmac-sha256' && !key)
    throw new CliError(
      `${source} is sealed with ROLLOUT_PLAN_KEY, which is not set here: set the pipeline's key to apply it.`,
    );
  const expected = digestOf(file.body, file.digest.algorithm === 'hmac-sha256' ? key : undefined);
  const given = Buffer.from(String(file.digest.value));
  const wanted = Buffer.from(expected.value);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted))
    throw new CliError(
      `${source} was changed after rollout plan wrote it (its ${expected.algorithm} digest does not match): nothing was applied; make a new plan.`,
    );
  return file.body;
}

export async function writePlanFile(path: string, body: PlanBinding, key?: string) {
  await writeFile(path, `${JSON.stringify(sealPlan(body, key), null, 2)}\n`, { mode: 0o644 });
}

export async function readPlanFile(path: string, key?: string): Promise<PlanBinding> {
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  if (size > MAX_PLAN_FILE_BYTES)
    throw new CliError(`${path} is too large to be a plan file rollout wrote.`);
  return openPlan(await readFile(path, 'utf8'), path, key);
}
