import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

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

/**
 * DTO fields a contract type does not have (`implements` allows extra fields): a create-only
 * input the experiment body's contract does not declare (it is `unknown` on the wire), Ironic's
 * `next` link, the `@type` the operation's response adds, and the Blazar payloads' free attributes.
 */
const FIELDS_NOT_IN_CONTRACT = [
  'BacktestResultDto.@type',
  'ExperimentDto.sourceRevision',
  'ListInspectionRulesResponseDto.next',
];

/** Per bound DTO class, the fields it has that its contract type lacks, and the reverse. */
function fieldDrift(): string[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(__dirname, '../../../tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (!config) throw new Error('tsconfig.json is unreadable');
  const program = ts.createProgram(dtoFiles(__dirname), config.options);
  const checker = program.getTypeChecker();
  const drift: string[] = [];
  for (const file of dtoFiles(__dirname)) {
    ts.forEachChild(program.getSourceFile(file)!, (node) => {
      if (!ts.isClassDeclaration(node) || !node.name) return;
      for (const clause of node.heritageClauses ?? []) {
        if (clause.token !== ts.SyntaxKind.ImplementsKeyword) continue;
        const types = clause.types.map((type) => checker.getTypeAtLocation(type));
        const contract = new Set(types.flatMap((type) => type.getProperties().map((p) => p.name)));
        // A Pick or Omit binds the fields a request DTO shares with its message; the DTO may carry
        // HTTP-only ones beside them (query spellings the gateway translates), as may a DTO of a
        // contract that takes any attribute (an index signature).
        const open =
          clause.types.some((type) => /\b(Pick|Omit)</.test(type.getText())) ||
          types.some((type) => type.getStringIndexType() !== undefined);
        const own = checker
          .getTypeAtLocation(node)
          .getProperties()
          .map((p) => p.name);
        if (!open)
          for (const field of own)
            if (!contract.has(field)) drift.push(`${node.name.text}.${field}`);
        for (const field of contract)
          if (!own.includes(field)) drift.push(`${node.name.text} lacks ${field}`);
      }
    });
  }
  return drift.sort();
}

describe('gateway DTOs and their contracts', () => {
  it('binds every DTO class but the HTTP-only ones to a contract type', () => {
    const classes = dtoClasses();
    expect(classes.length).toBeGreaterThan(100);
    const unbound = classes.filter((dto) => !dto.bound).map((dto) => dto.name);
    expect(unbound.sort()).toEqual(HTTP_ONLY);
    expect(classes.filter((dto) => dto.bound).length / classes.length).toBeGreaterThanOrEqual(0.8);
  });

  it("gives every bound DTO exactly its contract type's fields, but the few listed", () => {
    expect(fieldDrift()).toEqual(FIELDS_NOT_IN_CONTRACT);
  });
});
