// Test rig for the shelf's IPMI face in simulated time: the default shelf (hot-swap step 1 s) on a
// MemoryStore and a SimClock, createShelfIpmi with the reference users, and `call`, which runs one
// request through a controller's command table as the LAN server's dispatcher does (no sockets,
// no crypto: the byte layouts and the shelf effects are what these tests look at).
import { captureLogger } from '../../../../../board/common/logger.ts';
import { SeededRandom } from '../../../../../board/common/random.ts';
import { SimClock } from '../../../../../board/common/sim-clock.ts';
import { dispatch } from '../../../../../chassis/ipmi/dispatcher.ts';
import type { IpmiRequest } from '../../../../../chassis/ipmi/message.ts';
import { createShelfIpmi, type ShelfIpmi, type ShelfIpmiOptions } from '../../../../../chassis/ipmi/shelf-manager/index.ts';
import { Shelf } from '../../../../../chassis/model/shelf.ts';
import { MemoryStore } from '../../../../../chassis/persistence/store.ts';
import { seedReferenceUsers } from '../../../../support/ipmi-shelf.ts';
import { defaultConfig } from '../../../../support/shelf-fixture.ts';
import { seededBytes } from '../../../../support/ipmi-test-server.ts';

export interface Rig {
  shelf: Shelf;
  clock: SimClock;
  store: MemoryStore;
  ipmi: ShelfIpmi;
  log: ReturnType<typeof captureLogger>;
  /**
   * Runs (netFn, cmd, data) at the controller answering IPMB `address` (20h = the front one) with
   * `privilege` (default ADMINISTRATOR) on `channel` (default the LAN, 1).
   * @returns completion code and data as numbers
   */
  call(address: number, netFn: number, cmd: number, data?: number[], opts?: { privilege?: number; channel?: number; rqSA?: number }): { cc: number; data: number[] };
  run(ms: number): void;
}

export function rig(opts: ShelfIpmiOptions = {}): Rig {
  const clock = new SimClock(1_000);
  const store = new MemoryStore();
  const log = captureLogger();
  const platform = { clock, log, random: new SeededRandom(3), cryptoRandom: seededBytes(9) };
  const shelf = Shelf.open({ config: defaultConfig(), platform, store });
  const users = seedReferenceUsers(store);
  const ipmi = createShelfIpmi(shelf, users, platform, opts);
  const call: Rig['call'] = (address, netFn, cmd, data = [], o = {}) => {
    const c = address === 0x20 ? ipmi.server.frontController() : ipmi.server.controllerAt(address);
    if (!c) return { cc: 0x83, data: [] };
    const req: IpmiRequest = { rsSA: address, netFn, rsLUN: 0, rqSA: o.rqSA ?? 0x81, rqSeq: 1, rqLUN: 0, cmd, data: Uint8Array.from(data) };
    const tables = address === 0x20 ? [ipmi.server.lanCommands, c.commands] : [c.commands];
    const r = dispatch(tables, req, { controller: c, now: clock.now(), channel: o.channel ?? 1, privilege: o.privilege ?? 4, session: undefined, log, emit: () => {} });
    return { cc: r.cc, data: [...r.data] };
  };
  return { shelf, clock, store, ipmi, log, call, run: (ms) => clock.advance(ms) };
}
