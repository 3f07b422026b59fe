// The shelf YAML loader: the shipped default shelf is the one docs/shelf.md describes, every broken
// file gets a ConfigError at the right file:line:column, durations parse as documented.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../../board/common/errors.ts';
import { ecmpMembers, hubSlots, processorSlots } from '../../../../chassis/config/slots.ts';
import { isIpAddress } from '../../../../chassis/config/ip-address.ts';
import { parseShelfConfig, summarizeShelf } from '../../../../chassis/config/shelf-config.ts';
import { parseDuration, formatDuration } from '../../../../chassis/config/duration.ts';
import { DEFAULT_SHELF_PATH, loadDefaultShelf, loadShelfFile } from '../../../../chassis/io/data-dir.ts';
import { resolveCipherSuites } from '../../../../chassis/ipmi/cipher-suites.ts';
import { decodeFruInventory, encodeFruInventory } from '../../../../chassis/sensors/fru.ts';
import { repoRoot } from '../../../support/shared.ts';

describe('default shelf (chassis/config/default-shelf.yaml)', () => {
  const c = loadDefaultShelf();
  const byName = new Map(c.frus.map((f) => [f.name, f]));

  it('is a 14-slot shelf with PICMG 3.0 physical numbering, hubs in the middle', () => {
    expect(c.slotCount).toBe(14);
    expect(c.physicalOrder).toEqual([13, 11, 9, 7, 5, 3, 1, 2, 4, 6, 8, 10, 12, 14]);
    expect(byName.get('slot1')!.physicalSlot).toBe(7);
    expect(byName.get('slot2')!.physicalSlot).toBe(8);
    expect(hubSlots(c)).toEqual([1, 2]);
    expect(processorSlots(c)).toEqual([3, 4, 5, 6]);
    for (let s = 7; s <= 14; s++) expect(byName.has(`slot${s}`)).toBe(false);
  });

  it('addresses: HA = 40h + slot, IPMB-0 = 2 × HA (slot1 0x82 … slot6 0x8c), site type board, site = slot', () => {
    const want: Record<string, number> = { slot1: 0x82, slot2: 0x84, slot3: 0x86, slot4: 0x88, slot5: 0x8a, slot6: 0x8c };
    for (const [name, ipmb] of Object.entries(want)) {
      const f = byName.get(name)!;
      expect(f.ipmbAddress, name).toBe(ipmb);
      expect(f.hardwareAddress).toBe(ipmb / 2);
      expect(f.siteType).toBe(0);
      expect(f.siteNumber).toBe(f.slot);
    }
    expect(byName.get('slot1')!.kind).toBe('hub');
    expect(byName.get('slot3')!.kind).toBe('processor');
  });

  it('has the ShMC pair in the dedicated ShMC bays, fan trays and PEMs, each with inventory and sensors', () => {
    expect(byName.get('shmc-a')).toMatchObject({ kind: 'shmc', siteType: 3, siteNumber: 1 });
    expect(byName.get('shmc-b')).toMatchObject({ kind: 'shmc', siteType: 3, siteNumber: 2 });
    expect(c.shelfManager.address).toBe(0x20);
    expect(c.frus.filter((f) => f.kind === 'fan').length).toBeGreaterThanOrEqual(2);
    expect(c.frus.filter((f) => f.kind === 'pem').length).toBeGreaterThanOrEqual(2);
    for (const f of c.frus) {
      expect(f.inventory.board!.manufacturer, f.name).toBeTruthy();
      expect(f.inventory.board!.serial).toBeTruthy();
      expect(f.sensors.filter((s) => s.kind === 'hotswap').length, f.name).toBe(1);
      expect(decodeFruInventory(encodeFruInventory(f.inventory))).toMatchObject({ board: { product: f.inventory.board!.product } });
    }
    const kinds = new Set(c.frus.flatMap((f) => f.sensors.map((s) => (s.kind === 'threshold' ? s.type : 'hotswap'))));
    expect([...kinds].sort()).toEqual(['fan', 'hotswap', 'temperature', 'voltage']);
  });

  it('names sensors so the reference transcripts run as written', () => {
    const names = new Map<string, string[]>();
    for (const f of c.frus) for (const s of f.sensors) names.set(s.name, [...(names.get(s.name) ?? []), f.name]);
    for (const n of ['ShMC Temp', 'ShMC HotSwap', 'Hub1 Temp', 'Hub1 HotSwap', 'Node3 Temp', 'Node3 HotSwap']) expect(names.has(n), n).toBe(true);
    // the reference numbering: Temp = sensor 1, HotSwap = sensor 2 of each controller
    for (const f of ['shmc-a', 'slot1', 'slot3']) {
      const s = byName.get(f)!.sensors;
      expect(s.find((x) => x.number === 1)!.name).toMatch(/Temp$/);
      expect(s.find((x) => x.number === 2)!.kind).toBe('hotswap');
    }
    // only the two ShMCs share names (they are one logical shelf manager)
    for (const [n, owners] of names) if (owners.length > 1) expect(owners, n).toEqual(['shmc-a', 'shmc-b']);
    expect(byName.get('slot3')!.label).toBe('Node3');
    expect(byName.get('slot1')!.label).toBe('Hub1');
  });

  it('data plane: symmetric resilient Pearson l3l4 ECMP and wildcard services with a simulated pool', () => {
    expect(c.dataplane.ecmp).toMatchObject({ hash: 'pearson', fields: 'l3l4', mapping: 'resilient', symmetric: true });
    const svcs = c.dataplane.processor.services;
    expect(svcs.map((s) => s.vip).sort()).toEqual(['0.0.0.0/0', '::/0']);
    for (const s of svcs) {
      expect(s).toMatchObject({ port: 0, protocol: 'any' });
      expect(['wrr', 'dynamic']).toContain(s.scheduler);
      expect(s.pool.length).toBeGreaterThan(1);
      for (const rs of s.pool) expect(rs.sim, rs.name).toBeDefined();
    }
    expect(c.dataplane.processor.sessions.capacity).toBe(1_500_000);
    expect(ecmpMembers(c)).toEqual([3, 4, 5, 6].map((s) => ({ port: s, slot: s })));
    expect(ecmpMembers(c, { buddyFailover: true }).map((m) => m.failoverPort)).toEqual([4, 3, 6, 5]);
  });

  it('HA pairs shmc, lb1 = slot3+slot4, lb2 = slot5+slot6; timings; SEL 4096; 1 s hot-swap steps; consoles 115200 8N1', () => {
    expect(c.ha.pairs).toEqual([
      { name: 'shmc', kind: 'shmc', members: ['shmc-a', 'shmc-b'] },
      { name: 'lb1', kind: 'processor', members: ['slot3', 'slot4'] },
      { name: 'lb2', kind: 'processor', members: ['slot5', 'slot6'] },
    ]);
    expect(c.ha.timing).toMatchObject({ heartbeatMs: 100, missedHeartbeats: 3, syncMinAgeMs: 3000, syncFullResyncMs: 240_000 });
    expect(c.selCapacity).toBe(4096);
    expect(c.hotSwap.stepMs).toBe(1000);
    for (const f of c.frus.filter((x) => x.kind !== 'fan' && x.kind !== 'pem')) expect(f.console).toMatchObject({ baud: 115200, framing: '8N1', dataBits: 8, parity: 'none', stopBits: 1 });
    expect(summarizeShelf(c)).toMatch(/^shelf "atcasim-default": 14 slots \(2 hubs, 4 processor boards, 8 empty\), 2 ShMCs/);
  });

  it('the product never reads ../shared: the loader modules name no such path', () => {
    for (const f of ['chassis/config/shelf-config.ts', 'chassis/config/yaml-reader.ts', 'chassis/io/data-dir.ts']) {
      expect(readFileSync(`${repoRoot}/${f}`, 'utf8'), f).not.toMatch(/shared\//);
    }
    expect(DEFAULT_SHELF_PATH.startsWith(repoRoot)).toBe(true);
  });
});

// A small valid shelf; each broken case edits one line.
const BASE = `shelf:
  name: t
  hot_swap: { step: 250ms }
shelf_managers:
  units:
    shmc-a: {}
    shmc-b: {}
boards:
  slot1: { type: hub }
  slot3:
    type: processor
    sensors:
      - { name: Node3 Temp, type: temperature, nominal: 48, thresholds: { unc: 70, uc: 80 } }
  slot4: { type: processor }
`;

function errorOf(text: string): ConfigError {
  try {
    parseShelfConfig(text, 'shelf.yaml');
  } catch (e) {
    if (e instanceof ConfigError) return e;
    throw e;
  }
  throw new Error('no ConfigError');
}

describe('broken shelf files give file:line:column', () => {
  it('the small base shelf is valid and defaulted', () => {
    const c = parseShelfConfig(BASE, 'shelf.yaml');
    expect(c.hotSwap.stepMs).toBe(250);
    expect(c.frus.map((f) => f.name)).toEqual(['shmc-a', 'shmc-b', 'slot1', 'slot3', 'slot4']);
    expect(c.frus.find((f) => f.name === 'slot4')!.sensors).toEqual([{ kind: 'hotswap', name: 'Node4 HotSwap', number: 1, sensorType: 0xf0 }]);
    expect(c.ha.pairs.map((p) => [p.name, ...p.members])).toEqual([['shmc', 'shmc-a', 'shmc-b'], ['lb1', 'slot3', 'slot4']]);
    expect(c.dataplane.processor.services).toEqual([]);
  });

  it('processor extras: persistence capacity, TIME_WAIT, strict mid-stream policy and hash seed reach the ProcessorConfig', () => {
    const dflt = parseShelfConfig(BASE, 'shelf.yaml').dataplane.processor;
    expect(dflt.midstreamPickup).toBeUndefined();
    expect(dflt.hashSeed).toBeUndefined();
    const c = parseShelfConfig(
      `${BASE}dataplane:\n  sessions: { persistence_capacity: 1000 }\n  timeouts: { tcp_time_wait: 30s }\n  midstream_pickup: false\n  hash_seed: 0x1234abcd\n`,
      'shelf.yaml',
    ).dataplane.processor;
    expect(c.sessions.persistenceCapacity).toBe(1000);
    expect(c.timeouts.tcpTimeWait).toBe(30_000);
    expect(c.midstreamPickup).toBe(false);
    expect(c.hashSeed).toBe(0x1234abcd);
    expect(() => parseShelfConfig(`${BASE}dataplane:\n  midstream_pickup: maybe\n`, 'shelf.yaml')).toThrow(/midstream_pickup/);
  });

  it('ECMP buckets: as many as processor boards is enough; the modulo mapping has no bucket table to check', () => {
    expect(parseShelfConfig(`${BASE}dataplane:\n  ecmp: { buckets: 2 }\n`, 'shelf.yaml').dataplane.ecmp.buckets).toBe(2);
    expect(parseShelfConfig(`${BASE}dataplane:\n  ecmp: { mapping: modulo, buckets: 1 }\n`, 'shelf.yaml').dataplane.ecmp.mapping).toBe('modulo');
  });

  it('cipher_suites accepts every suite --ipmi-cipher-suites accepts (1, 2, 3, 15, 16, 17), with the same error text', () => {
    const c = parseShelfConfig(`${BASE}ipmi:\n  cipher_suites: [3, 17, 15, 16, 1, 2]\n`, 'shelf.yaml');
    expect(c.ipmi.cipherSuites).toEqual([3, 17, 15, 16, 1, 2]);
    expect(resolveCipherSuites(c.ipmi.cipherSuites, false).map((s) => s.id)).toEqual([1, 2, 3, 15, 16, 17]);
    for (const id of [4, 5, 14, 18, 200]) {
      const yaml = errorOf(`${BASE}ipmi:\n  cipher_suites: [${id}]\n`).message;
      expect(() => resolveCipherSuites([id], false)).toThrow(new TypeError(yaml.slice(yaml.lastIndexOf('cipher suite '))));
    }
  });

  /** Line and column (1-based) of the first occurrence of `needle` in `text`, plus `shift` columns. */
  const at = (text: string, needle: string, shift = 0): [number, number] => {
    const i = text.indexOf(needle);
    if (i < 0) throw new Error(`marker ${needle} not in the case text`);
    const before = text.slice(0, i).split('\n');
    return [before.length, before[before.length - 1]!.length + 1 + shift];
  };
  const pairs = (m: string) => `${BASE}ha:\n  pairs:\n    lb1: { members: [${m}] }\n`;
  const svc = (s: string) => `${BASE}dataplane:\n  services:\n    - ${s}\n`;

  // [title, text, the token the error must point at (+ column shift), message]
  const cases: Array<[string, string, [string, number], RegExp]> = [
    ['YAML syntax (unclosed flow map)', BASE.replace('  slot4: { type: processor }', '  slot4: { type: processor'), ['\u0000', 0], /YAML/],
    ['duplicate key', BASE.replace('  name: t\n', '  name: t\n  name: u\n'), ['name: u', 0], /unique/i],
    ['unknown top-level key', `${BASE}extra: 1\n`, ['extra', 0], /unknown key "extra"/],
    ['unknown nested key', BASE.replace('nominal: 48,', 'nominal: 48, treshold: 3,'), ['treshold', 0], /boards\.slot3\.sensors\[0\]: unknown key "treshold"/],
    ['wrong type', BASE.replace('  name: t\n', '  name: t\n  slots: fourteen\n'), ['fourteen', 0], /shelf\.slots: expected an integer/],
    ['bad duration', BASE.replace('step: 250ms', 'step: 1 sec'), ['1 sec', 0], /"1 sec" is not a duration/],
    ['hub outside the hub slots', BASE.replace('  slot4: { type: processor }', '  slot4: { type: hub }'), ['slot4: { type: hub', 15], /hub boards sit in the hub slots/],
    ['wrong hardware address', BASE.replace('  slot1: { type: hub }', '  slot1: { type: hub, hardware_address: 0x45 }'), ['0x45', 0], /hardware address 0x41/],
    ['slot beyond the shelf', BASE.replace('  slot4: { type: processor }', '  slot15: { type: processor }'), ['slot15', 0], /beyond the shelf's 14 slots/],
    ['not a slot name', BASE.replace('  slot4: { type: processor }', '  board4: { type: processor }'), ['board4', 0], /not a slot name/],
    ['threshold out of range', BASE.replace('uc: 80', 'uc: 300'), ['300', 0], /outside the sensor's 8-bit range/],
    ['thresholds out of order', BASE.replace('unc: 70, uc: 80', 'unc: 85, uc: 80'), ['80 }', 0], /must not be below unc/],
    ['thresholds out of raw order (negative M)', BASE.replace('nominal: 48,', 'nominal: 48, scale: { m: -1, b: 255 },'), ['80 }', 0], /threshold uc \(80\) must not be above unc \(70\): M is negative/],
    ['sensor name too long', BASE.replace('name: Node3 Temp', 'name: Node3 Temperature Probe'), ['Node3 Temperature', 0], /at most 16 characters/],
    ['duplicate sensor name', BASE.replace('  slot4: { type: processor }', '  slot4: { type: processor, sensors: [{ name: Node3 Temp, type: temperature, nominal: 1 }] }'), ['Node3 Temp, type: temperature, nominal: 1', 0], /already used/],
    ['one-character FRU field', BASE.replace('  slot4: { type: processor }', '  slot4: { type: processor, inventory: { board: { serial: X } } }'), ['X }', 0], /one-character/],
    ['HA pair member that does not exist', pairs('slot3, slot9'), ['slot9', 0], /"slot9" is not a shelf manager or board/],
    ['HA pair of a hub', pairs('slot3, slot1'), ['slot1]', 0], /slot1 is a hub/],
    ['bad VIP', svc('{ name: a, vip: 10.0.0.300, pool: [{ name: r, address: 10.1.1.1 }] }'), ['10.0.0.300', 0], /not an IP address or prefix/],
    ['bad real-server port', svc('{ name: a, vip: 0.0.0.0/0, pool: [{ name: r, address: "127.0.0.1:70000" }] }'), ['"127.0.0.1:70000"', 0], /port 70000 out of range/],
    ['maglev table not prime', svc('{ name: a, vip: ::/0, maglev_table_size: 65536, pool: [{ name: r, address: "::1" }] }'), ['65536', 0], /not a prime/],
    ['console framing', BASE.replace('  slot4: { type: processor }', '  slot4: { type: processor, console: { framing: 9X1 } }'), ['9X1', 0], /not a framing/],
    ['missing required section', 'shelf: { name: x }\n', ['shelf', 0], /missing required key "shelf_managers"/],
    ['fewer ECMP buckets than processor boards', `${BASE}dataplane:\n  ecmp: { buckets: 1 }\n`, ['1 }', 0], /dataplane\.ecmp\.buckets: 1 buckets cannot give each of the 2 ECMP members/],
    ['cipher suite not implemented', `${BASE}ipmi:\n  cipher_suites: [3, 5]\n`, ['5]', 0], /cipher suite 5 is not implemented \(available: 1, 2, 3, 15, 16, 17; 0 only with --ipmi-insecure-cipher0\)$/],
    ['cipher suite 0 in the file', `${BASE}ipmi:\n  cipher_suites: [0, 3]\n`, ['0, 3]', 0], /cipher suite 0 is offered only with --ipmi-insecure-cipher0/],
    ['cipher suite listed twice', `${BASE}ipmi:\n  cipher_suites: [17, 3, 17]\n`, ['17]', 0], /cipher suite 17 listed twice/],
  ];

  for (const [title, text, [needle, shift], msg] of cases) {
    it(title, () => {
      const e = errorOf(text);
      expect(e.message).toMatch(msg);
      // the unclosed flow map is reported where the parser gives up: the end of the file
      const [line, col] = needle === '\u0000' ? [text.split('\n').length, 1] : at(text, needle, shift);
      expect([e.file, e.line, e.column], e.message).toEqual(['shelf.yaml', line, col]);
      expect(e.message.startsWith(`shelf.yaml:${line}:${col}: `)).toBe(true);
    });
  }

  it('an empty file is an error at 1:1', () => {
    const e = errorOf('');
    expect([e.line, e.column]).toEqual([1, 1]);
    expect(e.message).toMatch(/empty/);
  });

  it('an unreadable file is a ConfigError at 1:1', () => {
    expect(() => loadShelfFile('/nonexistent/shelf.yaml')).toThrow(/^\/nonexistent\/shelf\.yaml:1:1: cannot read: ENOENT/);
  });
});

describe('durations', () => {
  it('parses 250ms, 1.5s, 2m, 1h and refuses anything else', () => {
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('1.5s')).toBe(1500);
    expect(parseDuration('2m')).toBe(120_000);
    expect(parseDuration('1h')).toBe(3_600_000);
    expect(parseDuration(' 10 s ')).toBe(10_000);
    for (const bad of ['1', '1sec', '-1s', 's', '1.s', '1e3ms']) expect(parseDuration(bad), bad).toBeUndefined();
    expect([250, 1500, 120_000, 3_600_000, 0].map(formatDuration)).toEqual(['250ms', '1.5s', '2m', '1h', '0ms']);
  });
});

describe('addresses', () => {
  it('accepts IPv4 and IPv6 text and refuses malformed ones', () => {
    for (const ok of ['10.0.0.1', '0.0.0.0', '::', '::1', 'fd00:200::8', '2001:db8:0:0:0:0:2:1', '::ffff:192.0.2.1']) expect(isIpAddress(ok), ok).toBe(true);
    for (const bad of ['10.0.0.256', '1.2.3', '1::2::3', '12345::', 'g::1', '1:2:3:4:5:6:7:8:9', '']) expect(isIpAddress(bad), bad).toBe(false);
  });
});

describe('the default file itself', () => {
  it('parses identically from its path', () => {
    const { config, yaml } = loadShelfFile(DEFAULT_SHELF_PATH);
    expect(yaml).toContain('symmetric: true');
    expect(config.frus.length).toBe(loadDefaultShelf().frus.length);
  });
});
