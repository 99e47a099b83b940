import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every gateway DTO is bound to its wire contract (`implements` a libs/contracts type), so the
 * OpenAPI document and the NATS schemas cannot drift apart without a compile error. These have
 * no contract counterpart: HTTP-only shapes (errors, Ironic's links and `fields` query,
 * Blazar's refusal), or one (the error body) owned by the gateway's error handling.
 */
const HTTP_ONLY = [
  'BlazarDenialDto',
  'ErrorResponseDto',
  'GetInspectionRuleQueryDto',
  'InspectionRuleWithLinksDto',
  'IronicErrorDto',
  'IronicLinkDto',
  'StatusDto',
];

function dtoFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? dtoFiles(join(dir, entry.name))
      : entry.name.endsWith('.dto.ts')
        ? [join(dir, entry.name)]
        : [],
  );
}

/** Each DTO class of the gateway, and whether its declaration implements a type. */
function dtoClasses(): { name: string; bound: boolean }[] {
  return dtoFiles(__dirname).flatMap((file) =>
    [...readFileSync(file, 'utf8').matchAll(/class (\w+Dto)\b([^{]*)\{/g)].map((match) => ({
      name: match[1],
      bound: /\bimplements\b/.test(match[2]),
    })),
  );
}

describe('gateway DTOs and their contracts', () => {
  it('binds every DTO class but the HTTP-only ones to a contract type', () => {
    const classes = dtoClasses();
    expect(classes.length).toBeGreaterThan(100);
    const unbound = classes.filter((dto) => !dto.bound).map((dto) => dto.name);
    expect(unbound.sort()).toEqual(HTTP_ONLY);
    expect(classes.filter((dto) => dto.bound).length / classes.length).toBeGreaterThanOrEqual(0.8);
  });
});
