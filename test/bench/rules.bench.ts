/**
 * Rule engine events/s and per-event latency with 1,000 rules of mixed conditions, 10% matching,
 * next to a no-rule baseline (the cost of copying the event). Target: p99 ≤ 10 ms per event.
 * Wall-clock latencies include waiting for a CPU on a shared machine; the CPU-time percentiles
 * leave it out, and the load average printed first says how busy it was.
 *
 *   npm run bench -- test/bench/rules.bench.ts   (BENCH_EVENTS)
 */
import type { InspectionData, InspectionRuleStep } from '@rollout/contracts';
import { cpus, loadavg } from 'node:os';
import { MaskSecrets, RuleDefinition, RuleSet, validateRule } from '@rollout/domain/inspection';

const RULES = 1000;
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const WARMUP = 2_000;

/** Rule i matches when i % 10 === 0; each kind of condition is spread evenly over the rules. */
function condition(i: number): InspectionRuleStep {
  const hit = i % 10 === 0;
  switch (i % 7) {
    case 0:
      return {
        op: 'eq',
        args: ['{inventory[system_vendor][manufacturer]}', hit ? 'Dell Inc.' : `Vendor ${i}`],
      };
    case 1:
      return {
        op: 'contains',
        args: ['{inventory[system_vendor][product_name]}', hit ? '(?i)poweredge' : `model-${i}$`],
      };
    case 2:
      return {
        op: 'in-net',
        args: ['{inventory[bmc_address]}', hit ? '10.0.0.0/8' : `192.168.${i % 256}.0/24`],
      };
    case 3:
      return {
        op: 'one-of',
        args: [
          '{node.properties[cpu_arch]}',
          hit ? ['x86_64', 'aarch64'] : ['ppc64le', `arch-${i}`],
        ],
      };
    case 4:
      return {
        op: 'matches',
        args: ['{item[name]}', hit ? 'eth[0-9]+' : `ib${i}`],
        loop: '{inventory[interfaces]}',
      };
    case 5:
      return { op: 'gt', args: ['{inventory[memory][physical_mb]}', hit ? 1024 : 10_000_000 + i] };
    default:
      return {
        op: '!is-empty',
        args: [hit ? '{inventory[bmc_v6address]}' : `{inventory[missing_${i}]}`],
      };
  }
}

function rules(count: number): RuleDefinition[] {
  return Array.from({ length: count }, (_, i) => ({
    ...validateRule(
      {
        priority: i % 100,
        conditions: [{ op: 'is-true', args: ['{node.auto_discovered}'] }, condition(i)],
        actions: [
          {
            op: 'set-plugin-data',
            args: [`/rules/r${i}`, '{inventory[system_vendor][manufacturer]}'],
          },
          { op: 'extend-plugin-data', args: ['/matched', i] },
          { op: 'set-attribute', args: [`/extra/rule_${i}`, true] },
        ],
      },
      { builtIn: true },
    ),
    uuid: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    created_at: new Date(Date.UTC(2026, 0, 1) + i).toISOString(),
    updated_at: null,
    built_in: false,
  }));
}

const event: InspectionData = {
  node: {
    uuid: 'node-1',
    auto_discovered: true,
    driver_info: { ipmi_address: '10.1.2.3', ipmi_password: 'secret' },
    properties: { cpu_arch: 'x86_64', cpus: 64 },
    extra: {},
  },
  ports: [{ uuid: 'p1', address: '52:54:00:00:00:01' }],
  inventory: {
    system_vendor: { manufacturer: 'Dell Inc.', product_name: 'PowerEdge R650' },
    bmc_address: '10.1.2.3',
    bmc_v6address: '2001:db8::3',
    memory: { physical_mb: 262_144 },
    interfaces: Array.from({ length: 4 }, (_, i) => ({
      name: `eth${i}`,
      mac_address: `52:54:00:00:00:0${i}`,
    })),
    disks: Array.from({ length: 8 }, (_, i) => ({
      name: `/dev/sd${'abcdefgh'[i]}`,
      size: 960_000_000_000,
    })),
  },
  plugin_data: { bmc_address: '10.1.2.3' },
};

function measure(
  label: string,
  set: RuleSet,
  expectMatched: number,
): { wall: number; cpu: number } {
  for (let i = 0; i < WARMUP; i++) set.run('main', event);
  const samples = new Float64Array(EVENTS);
  const cpuSamples = new Float64Array(EVENTS);
  const started = process.hrtime.bigint();
  let matched = 0;
  for (let i = 0; i < EVENTS; i++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    const result = set.run('main', event);
    samples[i] = Number(process.hrtime.bigint() - t0) / 1e6;
    const c = process.cpuUsage(c0);
    cpuSamples[i] = (c.user + c.system) / 1000;
    matched = result.matched.length;
    if (result.failure) throw new Error(result.failure);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (matched !== expectMatched)
    throw new Error(`${label}: expected ${expectMatched} matched rules, got ${matched}`);
  samples.sort();
  cpuSamples.sort();
  const pct = (list: Float64Array, p: number) =>
    list[Math.min(list.length - 1, Math.floor((p / 100) * list.length))];
  console.log(
    `${label.padEnd(48)} ${String(Math.round(EVENTS / seconds)).padStart(8)} events/s   ` +
      `p50 ${pct(samples, 50).toFixed(3)} ms   p99 ${pct(samples, 99).toFixed(3)} ms   max ${samples[EVENTS - 1].toFixed(3)} ms   ` +
      `cpu p50 ${pct(cpuSamples, 50).toFixed(3)} ms   cpu p99 ${pct(cpuSamples, 99).toFixed(3)} ms   (${matched} rules matched)`,
  );
  return { wall: pct(samples, 99), cpu: pct(cpuSamples, 99) };
}

function main() {
  console.log(
    `inspection rules engine, ${EVENTS} events per line, Node ${process.version}, ` +
      `${cpus().length} CPUs, load average ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
  const all = rules(RULES);
  const worst = { wall: 0, cpu: 0 };
  for (const mask of ['always', 'never'] as MaskSecrets[]) {
    measure(`baseline: 0 rules (mask_secrets=${mask})`, new RuleSet([], { maskSecrets: mask }), 0);
    const p99 = measure(
      `1,000 rules, 10% matching (mask_secrets=${mask})`,
      new RuleSet(all, { maskSecrets: mask }),
      RULES / 10,
    );
    worst.wall = Math.max(worst.wall, p99.wall);
    worst.cpu = Math.max(worst.cpu, p99.cpu);
  }
  console.log(
    `target p99 <= 10 ms per event at 1,000 rules: ${worst.wall <= 10 ? 'met' : 'NOT met'} ` +
      `(worst p99 ${worst.wall.toFixed(3)} ms wall-clock, ${worst.cpu.toFixed(3)} ms CPU; a gap is time spent waiting for a CPU)`,
  );
}

main();
