import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsArray, IsObject, IsOptional, IsString, MaxLength } from 'class-validator';
import { RESOURCE_ID } from '@rollout/contracts';
import { MutationQueryDto } from './experiment-operations.dto';
import type {
  CreatePolicyRequest,
  Direction,
  FirewallPolicy,
  FirewallRule,
  Layer4Config,
  ListPoliciesResponse,
  RuleAction,
  RuleMatch,
  SecureTag,
} from '@rollout/contracts';
import type { Writable } from '../contract-binding';

/** The gateway checks the outline; the experiment-service checks every rule in depth. */
export class Layer4ConfigDto implements Layer4Config {
  @ApiProperty({
    example: 'tcp',
    description: 'tcp, udp, icmp, icmpv6, sctp, esp, ah, all, or a number 0-255',
  })
  ipProtocol!: string;
  @ApiPropertyOptional({ example: ['443', '8000-8080'], description: 'Only for tcp, udp and sctp' })
  ports?: string[];
}
export class SecureTagDto implements SecureTag {
  @ApiProperty({
    example: 'tagValues/281484836404786',
    description: 'A tag value, or a workload label as a flow log reports it (k8s:app=web)',
  })
  name!: string;
}
export class RuleMatchDto implements RuleMatch {
  @ApiPropertyOptional({
    example: ['10.0.0.0/8'],
    description: 'IPv4/IPv6 addresses or CIDR ranges',
  })
  srcIpRanges?: string[];
  @ApiPropertyOptional({ example: ['2001:db8::/32'] }) destIpRanges?: string[];
  @ApiPropertyOptional({ type: [Layer4ConfigDto] }) layer4Configs?: Layer4ConfigDto[];
  @ApiPropertyOptional({
    type: [SecureTagDto],
    description: "The connection's source carries at least one of these; empty: any source",
  })
  srcSecureTags?: SecureTagDto[];
}
export class FirewallRuleDto implements FirewallRule {
  @ApiProperty({ minimum: 0, maximum: 65535, description: 'Lower wins; unique within a policy' })
  priority!: number;
  @ApiProperty({ enum: ['INGRESS', 'EGRESS'] }) direction!: Direction;
  @ApiProperty({ enum: ['allow', 'deny'] }) action!: RuleAction;
  @ApiProperty({ type: RuleMatchDto }) match!: RuleMatchDto;
  @ApiPropertyOptional() targetTags?: string[];
  @ApiPropertyOptional() description?: string;
  @ApiPropertyOptional() disabled?: boolean;
}

export class FirewallPolicyDto implements Writable<FirewallPolicy> {
  @ApiPropertyOptional({
    readOnly: true,
    example: 'projects/acme/locations/global/firewallPolicies/web',
  })
  @IsOptional()
  @IsString()
  name?: string;
  @ApiPropertyOptional({ maxLength: 63 }) @IsOptional() @IsString() displayName?: string;
  @ApiPropertyOptional({ maxLength: 2048 }) @IsOptional() @IsString() description?: string;
  @ApiPropertyOptional({ type: [FirewallRuleDto], description: 'No rules: the no-op policy' })
  @IsOptional()
  @IsArray()
  @IsObject({ each: true })
  rules?: FirewallRuleDto[];
  @ApiPropertyOptional({ description: 'On update: must be the current etag (else 409 ABORTED)' })
  @IsOptional()
  @IsString()
  etag?: string;
  @ApiPropertyOptional({ readOnly: true }) @IsOptional() @IsString() createTime?: string;
  @ApiPropertyOptional({ readOnly: true }) @IsOptional() @IsString() updateTime?: string;
}

export class CreatePolicyQueryDto
  extends MutationQueryDto
  implements Pick<CreatePolicyRequest, 'requestId' | 'firewallPolicyId'>
{
  @ApiProperty({ description: `AIP-122 id: ${RESOURCE_ID.source}` })
  @IsString()
  @MaxLength(63)
  firewallPolicyId!: string;
}

export class ListPoliciesResponseDto implements Writable<ListPoliciesResponse> {
  @ApiProperty({ type: [FirewallPolicyDto] }) firewallPolicies!: FirewallPolicyDto[];
  @ApiPropertyOptional() nextPageToken?: string;
}
