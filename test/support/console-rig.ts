// Test helpers for the console tests: a fake board behind the ConsoleBoardPort (pure shell tests),
// an emulator in simulated time with its consoles (console and SOL tests), and a terminal that
// types into a BoardConsole and collects what it prints.
import { readFileSync } from 'node:fs';
import { CommandError } from '../../board/common/errors.ts';
import { captureLogger } from '../../board/common/logger.ts';
import { SeededRandom } from '../../board/common/random.ts';
import { SimClock } from '../../board/common/sim-clock.ts';
import type { ConsoleBoardPort } from '../../chassis/consoles/board-port.ts';
import type { BoardConsole } from '../../chassis/consoles/board-console.ts';
import { memoryInput } from '../../chassis/dataplane/traffic.ts';
import type { RsTable } from '../../chassis/dataplane/types.ts';
import { DEFAULT_SHELF_NAME, readDefaultShelfYaml } from '../../chassis/io/data-dir.ts';
import { MemoryStore } from '../../chassis/persistence/store.ts';
import { BUNDLED_CAPTURE_PATH } from '../../chassis/runtime/assets.ts';
import { Emulator, type EmulatorOptions } from '../../chassis/runtime/emulator.ts';
import { ConfAlg, IntegrityAlg } from '../../chassis/ipmi/cipher-suites.ts';
import { PayloadType } from '../../chassis/ipmi/codes.ts';
import { aesDecrypt, aesEncrypt, integrityParams } from '../../chassis/ipmi/crypto.ts';
import type { LanServer } from '../../chassis/ipmi/lan-server.ts';
import { decodeRmcpPlus, encodeRmcpPlus, verifyIntegrity } from '../../chassis/ipmi/rmcpplus.ts';
import { decodeSolPacket, encodeSolPacket } from '../../chassis/ipmi/sol/sol-packet.ts';
import type { RmcpPlusClient } from './ipmi-client.ts';

/** A scriptable board: records calls, throws where told. */
export class FakeBoard implements ConsoleBoardPort {
  readonly calls: string[] = [];
  state = 4;
  rebootError: CommandError | undefined;
  weights = new Map<string, number>();
  constructor(readonly kind: 'shmc' | 'hub' | 'processor' = 'processor', readonly name = kind === 'shmc' ? 'shmc-a' : 'slot3') {}
  identity() {
    return {
      name: this.name,
      kind: this.kind,
      label: this.kind === 'shmc' ? 'ShMC-A' : 'Node3',
      manufacturer: 'Example Telecom',
      product: this.kind === 'shmc' ? 'Shelf Manager' : 'Processor Node',
      serial: 'CPU0003',
      partNumber: 'CPU-300',
      firmware: '1.05',
      ...(this.kind === 'shmc' ? {} : { slot: 3, physicalSlot: 6 }),
      siteType: this.kind === 'shmc' ? 'Dedicated Shelf Manager' : 'Front Board',
      siteNumber: this.kind === 'shmc' ? 1 : 3,
      hardwareAddress: this.kind === 'shmc' ? 0x08 : 0x43,
      ipmbAddress: this.kind === 'shmc' ? 0x10 : 0x86,
      line: { baud: 115200, framing: '8N1' },
    };
  }
  status() {
    return { state: this.state, handleClosed: true, inService: this.state === 4, powerLevel: 2, powerW: 200, faults: [], sessions: 2 };
  }
  sensors() {
    return [
      { name: 'Node3 Temp', number: 1, kind: 'threshold' as const, value: 48, unit: 'degrees C', status: 'ok' as const, thresholds: { unc: 70, uc: 80, unr: 90 }, asserted: [] },
      { name: 'Node3 HotSwap', number: 2, kind: 'hotswap' as const, value: 4, unit: '', status: 'ok' as const },
    ];
  }
  ha() {
    return [{ key: 'lb1/slot3', role: 'active', epoch: 3, heartbeatAgeMs: 120, watchdogMs: 4500, alarms: [] }];
  }
  sel(n: number) {
    return [
      { recordId: 1, timestamp: 1735689600, text: 'FRU Hot Swap Node3 HotSwap | Transition to M4 | Asserted' },
      { recordId: 2, timestamp: 1735689601, text: 'Temperature Node3 Temp | Upper Critical going high | Asserted' },
    ].slice(-n);
  }
  sessions(n: number) {
    this.calls.push(`sessions ${n}`);
    return [
      { protocol: 'tcp', client: '10.0.0.1:40000', server: '192.0.2.10:80', state: 'ESTABLISHED', service: 'web', rs: 'rs1', ageMs: 1500, idleMs: 100 },
      { protocol: 'udp', client: '10.0.0.2:5353', server: '192.0.2.10:53', state: 'UDP', service: 'dns', rs: 'rs2', ageMs: 800, idleMs: 800 },
    ].slice(0, n);
  }
  rsTable(): RsTable {
    return {
      slot: 3,
      services: [
        {
          name: 'web', protocol: 'TCP', vip: '192.0.2.10', port: 80, scheduler: 'wlc', persistenceMs: 0, liveShare: 1, alarm: false,
          realServers: [
            { name: 'rs1', address: '10.200.0.1:80', weight: this.weights.get('rs1') ?? 1, effectiveWeight: 1, active: 7, inactive: 3, health: 'up', packets: 100, forward: 'Tunnel' },
            { name: 'rs2', address: '10.200.0.2:80', weight: 2, effectiveWeight: 2, active: 0, inactive: 1, health: 'down', packets: 5, forward: 'Tunnel' },
          ],
        },
      ],
    };
  }
  setWeight(vip: string, rs: string, w: number) {
    this.calls.push(`weight ${vip} ${rs} ${w}`);
    if (vip !== 'web' && vip !== '192.0.2.10') throw new CommandError('bad_request', `no virtual service '${vip}' on slot 3`);
    this.weights.set(rs, w);
  }
  reboot() {
    this.calls.push('reboot');
    if (this.rebootError) throw this.rebootError;
  }
}

/** Deterministic pseudo-random bytes (distinct on every call: session IDs must differ). */
export function seededBytes(seed: number): (n: number) => Uint8Array {
  let x = seed >>> 0 || 1;
  return (n) =>
    Uint8Array.from({ length: n }, () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return (x >>> 0) & 0xff;
    });
}

/** The default shelf in simulated time with traffic, IPMI (no socket) and consoles (no PTYs). */
export async function simEmulator(over: Partial<EmulatorOptions> = {}): Promise<{ em: Emulator; clock: SimClock; log: ReturnType<typeof captureLogger> }> {
  const clock = new SimClock();
  const log = captureLogger();
  const em = await Emulator.start({
    platform: { clock, log, random: new SeededRandom(1), cryptoRandom: seededBytes(11) },
    store: new MemoryStore(),
    defaultShelf: { yaml: readDefaultShelfYaml(), source: DEFAULT_SHELF_NAME },
    wallTimeMs: Date.UTC(2025, 0, 1),
    sessionCapacity: 4096,
    hotSwapStepMs: 200,
    admin: { password: 'admin-secret-1' },
    traffic: { inputs: [memoryInput('bundled', readFileSync(BUNDLED_CAPTURE_PATH))], label: 'bundled', pacing: { mode: 'rate', pps: 5000 } },
    ipmi: {},
    ...over,
  });
  return { em, clock, log };
}

/** Types into a console and collects its output (as the user's terminal would). */
export class Terminal {
  out = '';
  private readonly detach: () => void;
  constructor(readonly console: BoardConsole) {
    this.detach = console.attach((b) => (this.out += Buffer.from(b).toString('latin1')));
  }
  /** Types `text` (JS string, bytes 0..255) and returns what was printed in response. */
  type(text: string): string {
    const before = this.out.length;
    this.console.input(Buffer.from(text, 'latin1'));
    return this.out.slice(before);
  }
  /** Output since `mark`. */
  since(mark: number): string {
    return this.out.slice(mark);
  }
  close(): void {
    this.detach();
  }
}

// ------------------------------------------------------------------ SOL over an in-process RMCP+ session

/** A SOL packet as the console sees it. */
export interface SolSeen {
  seq: number;
  ackSeq: number;
  accepted: number;
  flags: number;
  text: string;
}

/** Builds an in-session SOL datagram from the console (encrypted/authenticated as the client's suite says). */
export function solDatagram(c: RmcpPlusClient, p: { seq: number; ackSeq?: number; accepted?: number; flags?: number; text?: string }, opts: { sessionSeq?: number } = {}): Uint8Array {
  const payload = encodeSolPacket({ seq: p.seq, ackSeq: p.ackSeq ?? 0, accepted: p.accepted ?? 0, flags: p.flags ?? 0, data: Buffer.from(p.text ?? '', 'latin1') });
  const encrypted = c.suite.conf === ConfAlg.AesCbc128;
  const body = encrypted ? aesEncrypt(c.k2, Uint8Array.from({ length: 16 }, (_, i) => (p.seq * 7 + i) & 0xff), payload) : payload;
  const integrity = c.suite.integrity !== IntegrityAlg.None ? { alg: c.suite.integrity, k1: c.k1 } : undefined;
  return encodeRmcpPlus({ payloadType: PayloadType.Sol, encrypted, sessionId: c.bmcSid, sequence: opts.sessionSeq ?? c.seq++, payload: body }, integrity);
}

/** Decodes a datagram the BMC sent to the client: a SOL packet, or undefined for an IPMI message. @throws on bad integrity */
export function decodeSolDatagram(c: RmcpPlusClient, bytes: Uint8Array): SolSeen | undefined {
  const pkt = decodeRmcpPlus(bytes);
  if (pkt.payloadType !== PayloadType.Sol) return undefined;
  if (pkt.sessionId !== c.consoleSid) throw new Error('SOL packet for another session');
  const integ = integrityParams(c.suite.integrity);
  if (integ && !verifyIntegrity(bytes, pkt, c.suite.integrity, c.k1, integ.length)) throw new Error('SOL packet fails integrity');
  if (integ && !pkt.authenticated) throw new Error('SOL packet not authenticated');
  if (c.suite.conf === ConfAlg.AesCbc128 && !pkt.encrypted) throw new Error('SOL packet not encrypted');
  const plain = pkt.encrypted ? aesDecrypt(c.k2, pkt.payload) : pkt.payload;
  if (!plain) throw new Error('SOL packet does not decrypt');
  const s = decodeSolPacket(plain);
  return { seq: s.seq, ackSeq: s.ackSeq, accepted: s.accepted, flags: s.flags, text: Buffer.from(s.data).toString('latin1') };
}

/** A fake UDP edge capturing what the server sends outside replies. */
export function captureTransport(server: LanServer, localPort = 6230): { sent: Uint8Array[]; detach: () => void } {
  const sent: Uint8Array[] = [];
  const detach = server.attachTransport({ localPort, send: (b) => sent.push(b) });
  return { sent, detach };
}
