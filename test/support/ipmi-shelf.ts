/**
 * Test harnesses for the shelf's IPMI face. In-process (`startShelfHarness`): the default shelf (optionally edited) on a
 * store (SQLite file or memory), wall-clock time, the reference users of ../shared/ipmi/sim/lan.conf
 * (admin/adminpass ADMINISTRATOR, oper/operpass OPERATOR, viewer/viewpass USER), and
 * createShelfIpmi bound by the UDP adapter (chassis/io/udp-ipmi.ts) on 127.0.0.1 and a free port —
 * what real ipmitool / FreeIPMI / clia talk to; this harness is its composition root.
 * The SEL clock starts at wall-clock time, as the runtime starts it. Out of process
 * (`startReferenceEmulator`): `atcasim start --headless` with the reference's administrator, plus
 * `connectClia` (atcasim's own IPMI client) and `addReferenceUsersWithIpmitool`.
 */
import { randomFillSync } from 'node:crypto';
import { captureLogger, type Logger } from '../../board/common/logger.ts';
import { SeededRandom } from '../../board/common/random.ts';
import { parseShelfConfig } from '../../chassis/config/shelf-config.ts';
import { readDefaultShelfYaml } from '../../chassis/io/data-dir.ts';
import { SqliteStore } from '../../chassis/io/sqlite-store.ts';
import { nodeCryptoRandom } from '../../chassis/io/crypto-random.ts';
import { SystemClock } from '../../chassis/io/system-clock.ts';
import { UdpIpmiAdapter } from '../../chassis/io/udp-ipmi.ts';
import { createShelfIpmi, type ShelfIpmi, type ShelfIpmiOptions } from '../../chassis/ipmi/shelf-manager/index.ts';
import { utf8 } from '../../chassis/ipmi/users.ts';
import { Shelf } from '../../chassis/model/shelf.ts';
import { MemoryStore, type Store } from '../../chassis/persistence/store.ts';
import { PersistentUserStore } from '../../chassis/persistence/user-store.ts';
import { udpTransport } from '../../chassis/cli/clia.ts';
import { IpmiClient } from '../../chassis/clia/client.ts';
import { ShelfApi } from '../../chassis/clia/shelf-api.ts';
import { startHeadless, type HeadlessEmulator, type HeadlessOptions } from './headless.ts';
import { runClient } from './ipmi-golden.ts';

/** The reference users (IDs, names, passwords, privilege limits). */
export const REFERENCE_USERS = [
  { id: 2, name: 'admin', password: 'adminpass', privilege: 4 as const },
  { id: 3, name: 'oper', password: 'operpass', privilege: 3 as const },
  { id: 4, name: 'viewer', password: 'viewpass', privilege: 2 as const },
];

/** Adds the reference users to a store that has no users yet (a fresh database). */
export function seedReferenceUsers(store: Store): PersistentUserStore {
  const users = new PersistentUserStore(store);
  if (store.listUsers().length === 0) {
    for (const u of REFERENCE_USERS) {
      users.update(u.id, { name: u.name, password: utf8(u.password), privilege: u.privilege, enabled: true, ipmiMessaging: true, linkAuth: false, callinRestricted: false });
    }
  }
  return users;
}

/** A running shelf with its IPMI server. */
export interface ShelfHarness {
  shelf: Shelf;
  store: Store;
  port: number;
  ipmi: ShelfIpmi;
  log: Logger;
  /** Stops the server, closes the shelf and the store. */
  stop(): Promise<void>;
}

/**
 * Starts the default shelf with its IPMI server on 127.0.0.1 and a free port.
 * @param opts.db SQLite file (default: an in-memory store)
 * @param opts.edit edits applied to the default shelf YAML text (e.g. a shorter hot-swap step)
 */
export async function startShelfHarness(opts: { db?: string; edit?: (yaml: string) => string; ipmi?: ShelfIpmiOptions; log?: Logger } = {}): Promise<ShelfHarness> {
  const store: Store = opts.db ? SqliteStore.open(opts.db) : new MemoryStore();
  const config = parseShelfConfig((opts.edit ?? ((y) => y))(readDefaultShelfYaml()), 'default-shelf.yaml');
  const clock = new SystemClock();
  const log = opts.log ?? captureLogger();
  const platform = { clock, log, random: new SeededRandom(5), cryptoRandom: nodeCryptoRandom };
  const shelf = Shelf.open({ config, platform, store, selTimeBase: Math.floor(Date.now() / 1000) });
  const users = seedReferenceUsers(store);
  const ipmi = createShelfIpmi(shelf, users, platform, opts.ipmi);
  const adapter = new UdpIpmiAdapter(ipmi.server, { host: '127.0.0.1', port: 0, clock, log });
  let port: number;
  try {
    port = (await adapter.start()).port;
  } catch (e) {
    ipmi.close();
    shelf.close();
    store.close();
    throw e;
  }
  let stopped = false;
  return {
    shelf,
    store,
    port,
    ipmi,
    log,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      ipmi.close();
      await adapter.stop();
      shelf.close();
      store.close();
    },
  };
}

/** The administrator password the golden and clia tests give `atcasim start` (the reference's). */
export const ADMIN_PASSWORD = 'adminpass';

/**
 * Starts `atcasim start --headless` (test/support/headless.ts) as the reference battery needs it:
 * administrator admin/adminpass, hot-swap steps of 250 ms, light traffic (500 packets/s).
 */
export function startReferenceEmulator(opts: HeadlessOptions = {}): Promise<HeadlessEmulator> {
  return startHeadless({ adminPassword: ADMIN_PASSWORD, rate: 500, ...opts, args: ['--hot-swap-step', '250ms', ...(opts.args ?? [])] });
}

/** A connected clia API (RMCP+ suite 17) to 127.0.0.1:`port`; close() ends the session. */
export async function connectClia(port: number, password = ADMIN_PASSWORD, user = 'admin'): Promise<ShelfApi & { close(): Promise<void> }> {
  const client = new IpmiClient(udpTransport('127.0.0.1', port), { user, password, randomBytes: (n) => randomFillSync(new Uint8Array(n)), clock: new SystemClock(), timeoutMs: 2000 });
  await client.connect();
  const api = new ShelfApi(client) as ShelfApi & { close(): Promise<void> };
  api.close = () => client.close();
  return api;
}

/**
 * Adds the reference's other users over IPMI with ipmitool, as an administrator would:
 * oper/operpass (OPERATOR, ID 3) and viewer/viewpass (USER, ID 4).
 * @throws Error when an ipmitool step fails
 */
export async function addReferenceUsersWithIpmitool(port: number): Promise<void> {
  const at = (...rest: string[]) => ['ipmitool', '-I', 'lanplus', '-H', '127.0.0.1', '-p', String(port), '-U', 'admin', '-P', ADMIN_PASSWORD, '-C', '17', ...rest];
  for (const u of REFERENCE_USERS.filter((x) => x.name !== 'admin')) {
    for (const step of [
      ['user', 'set', 'name', String(u.id), u.name],
      ['user', 'set', 'password', String(u.id), u.password],
      ['channel', 'setaccess', '1', String(u.id), 'ipmi=on', `privilege=${u.privilege}`],
      ['user', 'enable', String(u.id)],
    ]) {
      const r = await runClient(at(...step));
      if (r.exitCode !== 0) throw new Error(`ipmitool ${step.join(' ')}: ${r.stderr}`);
    }
  }
}
