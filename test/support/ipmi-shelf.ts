/**
 * In-process test harness for the shelf's IPMI face: the default shelf (optionally edited) on a
 * store (SQLite file or memory), wall-clock time, the reference users of ../shared/ipmi/sim/lan.conf
 * (admin/adminpass ADMINISTRATOR, oper/operpass OPERATOR, viewer/viewpass USER), and
 * startShelfIpmi on 127.0.0.1 and a free UDP port — what real ipmitool / FreeIPMI / clia talk to.
 * The SEL clock starts at wall-clock time, as the runtime starts it.
 */
import { captureLogger, type Logger } from '../../board/common/logger.ts';
import { SeededRandom } from '../../board/common/random.ts';
import { parseShelfConfig } from '../../chassis/config/shelf-config.ts';
import { readDefaultShelfYaml } from '../../chassis/io/data-dir.ts';
import { SqliteStore } from '../../chassis/io/sqlite-store.ts';
import { SystemClock } from '../../chassis/io/system-clock.ts';
import { startShelfIpmi, type RunningShelfIpmi, type ShelfIpmiOptions } from '../../chassis/ipmi/shelf/index.ts';
import { utf8 } from '../../chassis/ipmi/users.ts';
import { Shelf } from '../../chassis/model/shelf.ts';
import { MemoryStore, type Store } from '../../chassis/persistence/store.ts';
import { PersistentUserStore } from '../../chassis/persistence/user-store.ts';

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
  running: RunningShelfIpmi;
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
  const platform = { clock, log, random: new SeededRandom(5) };
  const shelf = Shelf.open({ config, platform, store, selTimeBase: Math.floor(Date.now() / 1000) });
  const users = seedReferenceUsers(store);
  const running = await startShelfIpmi(shelf, users, platform, { host: '127.0.0.1', port: 0, ...opts.ipmi });
  let stopped = false;
  return {
    shelf,
    store,
    port: running.address.port,
    running,
    log,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await running.stop();
      shelf.close();
      store.close();
    },
  };
}
