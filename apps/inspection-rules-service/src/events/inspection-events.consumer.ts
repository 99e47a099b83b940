import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import {
  INSPECTION_PHASES,
  INSPECTION_RESULTS_SUBJECT,
  InspectionPhase,
  InspectionResult,
} from '@rollout/contracts';
import { fullView } from '@rollout/domain/inspection';
import {
  NATS_CONNECTION,
  NatsNamespace,
  PoisonMessageError,
  PullConsumerHost,
} from '@rollout/platform/nats';
import { JsMsg, NatsConnection } from 'nats';
import { RuleQueries } from '../rules/rule-queries.application';
import {
  INSPECTION_DURABLE,
  INSPECTION_MAX_DELIVER,
  INSPECTION_STREAM,
  inspectionEventSchema,
} from './inspection-events';
import { InspectionResultsRepository } from './inspection-results.repository';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A redelivery (or a replica racing on the same id) republishes the first stored result with the
 * same Nats-Msg-Id, so consumers never see two answers for one event, even if the rules changed.
 */
@Injectable()
export class InspectionEventsConsumer implements OnModuleInit {
  constructor(
    private readonly host: PullConsumerHost,
    private readonly rules: RuleQueries,
    private readonly results: InspectionResultsRepository,
    private readonly namespace: NatsNamespace,
    @Inject(NATS_CONNECTION) private readonly connection: NatsConnection,
  ) {}

  onModuleInit(): void {
    this.host.register({
      stream: INSPECTION_STREAM,
      durable: INSPECTION_DURABLE,
      maxDeliver: INSPECTION_MAX_DELIVER,
      retryDelayMs: 500,
      handle: (message) => this.handle(message),
    });
  }

  private async handle(message: JsMsg): Promise<void> {
    const phase = message.subject.split('.').pop() as InspectionPhase;
    if (!INSPECTION_PHASES.includes(phase))
      throw new PoisonMessageError(`unknown inspection phase in subject ${message.subject}`);
    let text: string;
    try {
      text = utf8.decode(message.data);
    } catch {
      // Not replaced with U+FFFD: two different ids would become one.
      throw new PoisonMessageError('inspection event is not UTF-8');
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new PoisonMessageError('inspection event is not JSON');
    }
    const parsed = inspectionEventSchema.safeParse(raw);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .map((i) => `${i.path.join('.') || '(event)'}: ${i.message}`)
        .join('; ');
      throw new PoisonMessageError(`invalid inspection event: ${issues}`);
    }
    const event = parsed.data;
    const result = (await this.results.find(event.id)) ?? (await this.decide(phase, event));
    await this.connection
      .jetstream()
      .publish(this.namespace.subject(INSPECTION_RESULTS_SUBJECT), JSON.stringify(result), {
        msgID: `result:${event.id}`,
      });
  }

  private async decide(
    phase: InspectionPhase,
    event: ReturnType<typeof inspectionEventSchema.parse>,
  ): Promise<InspectionResult> {
    const view = fullView(await this.rules.run(phase, event));
    const node = phase === 'early' ? null : event.node;
    const computed: InspectionResult = {
      eventId: event.id,
      phase,
      node_uuid: typeof node?.uuid === 'string' ? node.uuid : null,
      matched_rules: view.matched_rules,
      node_patch: view.node_patch,
      port_patches: view.port_patches,
      plugin_data: view.plugin_data,
      ...(view.failure !== null ? { failed: view.failure } : {}),
    };
    // Whoever stored first wins (a redelivery racing on another replica); everyone publishes that one.
    return this.results.keepFirst(computed);
  }
}
