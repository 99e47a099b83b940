import type {
  ExperimentAnalysis,
  FirewallPolicy,
  FirewallPolicyExperiment,
} from '@rollout/contracts';
import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

@Entity('policies')
export class PolicyRecord {
  @PrimaryColumn('text') name!: string;
  @Index() @Column('text') parent!: string;
  @Column('jsonb') resource!: FirewallPolicy;
}

@Entity('experiments')
export class ExperimentRecord {
  @PrimaryColumn('text') name!: string;
  @Index() @Column('text', { name: 'policy_name' }) policyName!: string;
  /** previewMetadata.state, for list filters (null before the first startPreview). */
  @Column('text', { nullable: true }) state!: string | null;
  @Column('jsonb') resource!: FirewallPolicyExperiment;
  /** Written at create and update only (see the ExperimentAnalysis migration); null before 1.3.0. */
  @Column('jsonb', { nullable: true }) analysis!: ExperimentAnalysis | null;
}
