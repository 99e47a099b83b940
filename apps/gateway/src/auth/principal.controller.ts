import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { CurrentPrincipal, RequireRole } from './auth.decorators';
import type { Principal } from './principal';

export class PrincipalDto {
  @ApiProperty({
    example: 'ci-deployer',
    description: 'The name recorded as the actor of every change this token makes',
  })
  name!: string;
  @ApiProperty({ type: [String], enum: ['viewer', 'editor', 'admin'] }) roles!: string[];
  @ApiProperty({
    type: [String],
    example: ['acme'],
    description: 'The projects this token may see; empty when allProjects',
  })
  projects!: string[];
  @ApiProperty({ description: 'The token may see every project' }) allProjects!: boolean;
}

/** Who the bearer token is, so that a client (the console's sign-in) can show it before any other call. */
@ApiTags('auth')
@Controller('v1/principal')
export class PrincipalController {
  @Get()
  @RequireRole('viewer')
  @ApiOperation({
    summary:
      "The caller's name, roles and projects, as the gateway established them from its token",
  })
  @ApiOkResponse({ type: PrincipalDto })
  get(@CurrentPrincipal() principal: Principal): PrincipalDto {
    const allProjects = principal.projects === '*';
    return {
      name: principal.name,
      roles: principal.roles,
      projects: allProjects ? [] : [...principal.projects],
      allProjects,
    };
  }
}
