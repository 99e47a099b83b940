import { Logger } from '@nestjs/common';
import { ACTOR_ASSERTION_HEADER, StatusError, projectOfName } from '@rollout/contracts';
import { GatedRequest, NatsNamespace, RpcRequestGate } from '@rollout/platform/nats';
import { ActorAssertionVerifier, SignedActorClaims } from './actor-assertion';
import { AssertionIds, ProcessAssertionIds, isStateChanging } from './assertion-ids';

/** Read here, once for every service, so no handler has to. */
export function projectsNamedIn(data: unknown): string[] {
  if (typeof data !== 'object' || data === null) return [];
  const fields = data as Record<string, unknown>;
  const projects: string[] = [];
  if (typeof fields.project === 'string') projects.push(fields.project);
  for (const name of [fields.name, fields.parent]) {
    const project = projectOfName(name);
    if (project) projects.push(project);
  }
  const context = fields.context as Record<string, unknown> | null | undefined;
  if (typeof context === 'object' && context !== null && typeof context.project_id === 'string')
    projects.push(context.project_id);
  return projects;
}

export interface ActorAssertionGateOptions {
  /** Shared by every replica. */
  sharedIds?: AssertionIds;
  namespace?: NatsNamespace;
  now?: () => number;
}

/**
 * Refuses (PERMISSION_DENIED) an invalid assertion, an `actor` that is not the asserted one and
 * a project the actor lacks (defence in depth: a route that forgot its project check still
 * cannot cross tenants). A state-changing request's id is remembered where every replica sees
 * it, before the handler runs, so replays to another replica or after a restart are refused;
 * that memory unreachable, the request is UNAVAILABLE. A read's id is remembered locally only.
 */
export class ActorAssertionGate implements RpcRequestGate {
  private readonly logger = new Logger('ActorAssertion');
  private readonly processIds: ProcessAssertionIds;
  private readonly namespace: NatsNamespace;

  constructor(
    private readonly verifier: ActorAssertionVerifier,
    private readonly options: ActorAssertionGateOptions = {},
  ) {
    this.processIds = new ProcessAssertionIds(options.now);
    this.namespace = options.namespace ?? new NatsNamespace();
  }

  admit({ subject, headers, payload, data }: GatedRequest): void | Promise<void> {
    let claims: SignedActorClaims | undefined;
    try {
      claims = this.verifier.verify(
        subject,
        payload,
        headers?.get(ACTOR_ASSERTION_HEADER) || undefined,
      );
      checkActor(claims, data);
      checkProjects(claims, data);
      const { sharedIds } = this.options;
      const ids =
        sharedIds && isStateChanging(subject, this.namespace) ? sharedIds : this.processIds;
      const first = ids.firstUse(claims.jti, this.verifier.acceptedUntil(claims));
      if (typeof first === 'boolean') return notReplayed(first);
      const asserted = claims;
      return first
        .then(notReplayed)
        .catch((refusal: unknown) => this.refused(refusal, subject, asserted));
    } catch (refusal) {
      this.refused(refusal, subject, claims);
    }
  }

  private refused(refusal: unknown, subject: string, claims?: SignedActorClaims): never {
    const reason = refusal instanceof StatusError ? refusal.message : String(refusal);
    this.logger.warn(
      { subject, actor: claims?.actor, requestId: claims?.requestId },
      `request refused: ${reason}`,
    );
    throw refusal;
  }
}

function notReplayed(first: boolean) {
  if (!first)
    throw StatusError.withReason(
      'PERMISSION_DENIED',
      "The request's actor assertion was used before.",
      'ACTOR_ASSERTION_REPLAYED',
    );
}

function checkActor(claims: SignedActorClaims, data: unknown) {
  const actor =
    typeof data === 'object' && data !== null ? (data as Record<string, unknown>).actor : undefined;
  if (actor !== undefined && actor !== claims.actor) {
    throw StatusError.withReason(
      'PERMISSION_DENIED',
      'The request names another actor than the one asserted.',
      'ACTOR_MISMATCH',
    );
  }
}

function checkProjects(claims: SignedActorClaims, data: unknown) {
  if (claims.projects === '*') return;
  const allowed = claims.projects;
  const outside = projectsNamedIn(data).find((project) => !allowed.includes(project));
  if (outside !== undefined) {
    throw StatusError.withReason(
      'PERMISSION_DENIED',
      `The actor may not act on project "${outside}".`,
      'PROJECT_NOT_ASSERTED',
      { project: outside },
    );
  }
}
