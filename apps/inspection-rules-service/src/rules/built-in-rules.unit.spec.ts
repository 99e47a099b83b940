import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBuiltInRules } from './built-in-rules';

describe('built-in rules file', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'built-in-rules-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const load = (yaml: string) => {
    const path = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(path, yaml);
    return loadBuiltInRules(path);
  };

  it('ships a valid file', () => {
    const rules = loadBuiltInRules(join(__dirname, '..', '..', 'built-in-rules.yaml'));
    expect(rules.length).toBeGreaterThan(0);
    expect(rules.every((rule) => rule.built_in && rule.uuid)).toBe(true);
  });

  it('allows reserved priorities, and gives a rule without uuid one that stays the same', () => {
    const yaml =
      '- priority: -5\n  actions: [{op: log, args: [x]}]\n- priority: 10000\n  actions: [{op: log, args: [y]}]\n';
    const [first, second] = load(yaml);
    expect([first.priority, second.priority]).toEqual([-5, 10000]);
    expect(load(yaml).map((rule) => rule.uuid)).toEqual([first.uuid, second.uuid]);
    // Ironic's synthetic uuids, numbered over the rules without one.
    expect([first.uuid, second.uuid]).toEqual([
      '00000000-0000-0000-0000-000000000000',
      '00000000-0000-0000-0000-000000000001',
    ]);
  });

  it('reports every rule it refuses, each with its reason', () => {
    const yaml =
      '- actions: [{op: explode}]\n- actions: [{op: log, args: [x]}]\n- actions: [{op: api-call, args: {url: "http://x"}}]\n';
    expect(() => load(yaml)).toThrow(
      /2 rule\(s\) refused: rule 0: .*unknown action "explode".* rule 2: .*api-call is not supported/,
    );
  });

  it.each([
    ['a file that is not there', null, /cannot read/],
    ['a file that is not a list', 'rules: []', /must hold a list of rules/],
    ['broken YAML', '- [unclosed', /Invalid YAML/],
    [
      'an invalid rule',
      '- actions: [{op: log, args: [x]}]\n- actions: [{op: explode}]\n',
      /rule 1: .*unknown action "explode"/,
    ],
    [
      'a uuid twice',
      '- {uuid: 11111111-1111-4111-8111-111111111111, actions: [{op: log, args: [x]}]}\n- {uuid: 11111111-1111-4111-8111-111111111111, actions: [{op: log, args: [y]}]}\n',
      /appears twice/,
    ],
  ])('refuses %s with the reason, naming the setting', (_, yaml, message) => {
    const attempt = () =>
      yaml === null ? loadBuiltInRules(join(dir, 'missing.yaml')) : load(yaml);
    expect(attempt).toThrow(/^INSPECTION_BUILT_IN_RULES: /);
    expect(attempt).toThrow(message);
  });
});
