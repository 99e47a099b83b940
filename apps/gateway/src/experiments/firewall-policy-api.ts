import { applyDecorators } from '@nestjs/common';
import { ApiParam, ApiResponse, ApiTags } from '@nestjs/swagger';

/**
 * What every route under a location's firewall policies documents alike: its tag, its parent and
 * the common errors. Listed in the order stacked decorators apply (bottom up), so the document
 * keeps its parameters' order.
 */
export const FirewallPolicyApi = () =>
  applyDecorators(
    ApiResponse({ status: 404, description: 'NOT_FOUND' }),
    ApiResponse({
      status: 400,
      description: 'INVALID_ARGUMENT: a bad field, id, filter or page token',
    }),
    ApiParam({ name: 'location' }),
    ApiParam({ name: 'project' }),
    ApiTags('firewall policies'),
  );
