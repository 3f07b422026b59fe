/**
 * The shelf's start from its configuration and its store. A new store gets every FRU powered up in
 * M4 (one "Transition to M4" SEL record each) within the power budget; a store with state resumes
 * it — FRUs in their M-states (timed steps resume), FRU data, thresholds changed at run time, LED
 * overrides, policies, roles (display only); the SEL, the chassis power and the POH counter are
 * restored by their parts. Every board's service state is pushed to the data plane.
 *
 * What the store holds is kept only while it still applies: FRU data written at run time while the
 * configured image is unchanged, run-time thresholds while the configured ones are (records.ts
 * baselines); FRUs no longer configured are dropped.
 */
import type { FruConfig } from '../../config/types.ts';
import type { FruStateRecord, HaRoleRecord, StoredThresholds } from '../../persistence/store.ts';
import { encodeFruInventory, FruStorage } from '../../sensors/fru.ts';
import { ThresholdSensor } from '../../sensors/sensor.ts';
import type { ThresholdName } from '../../sensors/thresholds.ts';
import { HA_ROLES, type FaultKind, type HaRoleName } from '../events.ts';
import { HotSwapController } from '../hot-swap-controller.ts';
import { initialHotSwapContext } from '../hot-swap.ts';
import { linksFor } from '../ports.ts';
import { drawAt } from '../power.ts';
import type { ShelfChassis } from './chassis.ts';
import type { ShelfContext } from './context.ts';
import type { ShelfFans } from './fans.ts';
import type { FruRuntime } from './frus.ts';
import type { ShelfHotSwap } from './hot-swap.ts';
import type { ShelfPayload } from './payload.ts';
import type { ShelfPower } from './power.ts';
import { fingerprint, storedHotSwapContext, storedLedOverrides, thresholdBaseline } from './records.ts';
import type { ShelfSdr } from './sdr.ts';
import type { ShelfSel } from './sel.ts';

/** The parts the boot restores and starts. */
export interface BootParts {
  sel: ShelfSel;
  sdr: ShelfSdr;
  fans: ShelfFans;
  payload: ShelfPayload;
  power: ShelfPower;
  chassis: ShelfChassis;
  hotSwap: ShelfHotSwap;
}

/**
 * Restores every configured FRU into `ctx.frus`, powers up the new ones, and starts the shelf.
 * @throws StoreError from the store; RangeError on a configuration the loader should have refused
 */
export function bootShelf(ctx: ShelfContext, parts: BootParts): void {
  const { config, store, frus } = ctx;
  const boardsBySlot = new Map(config.frus.filter((f) => f.slot !== undefined).map((f) => [f.slot!, f]));
  const stored = new Map(store.loadFruStates().map((r) => [r.fru, r]));
  const storedThr = new Map(store.listThresholds().map((t) => [`${t.fru}#${t.sensor}`, t]));
  const roles = store.loadRoles();
  const fresh: FruRuntime[] = [];
  store.transaction(() => {
    for (const name of stored.keys()) if (!config.frus.some((f) => f.name === name)) store.deleteFruState(name);
    for (const cfg of config.frus) {
      const rec = stored.get(cfg.name);
      const rt = restoreFru(ctx, parts, cfg, rec, boardsBySlot);
      restoreThresholds(ctx, rt, storedThr);
      restoreRoles(rt, roles);
      frus.add(rt);
      if (!rec) fresh.push(rt);
    }
  });
  if (fresh.length) powerUpFresh(ctx, parts, fresh);
  parts.sdr.rebuild();
  for (const rt of frus.all) {
    parts.payload.update(rt, true);
    rt.hs.resume();
  }
  parts.chassis.start();
  parts.hotSwap.booted();
}

/** One FRU's runtime from its configuration and its stored record (if any). */
function restoreFru(ctx: ShelfContext, parts: BootParts, cfg: FruConfig, rec: FruStateRecord | undefined, boardsBySlot: Map<number, FruConfig>): FruRuntime {
  const { store, log, clock, config } = ctx;
  // FRU inventory: keep bytes written at run time unless the configured image changed.
  const image = encodeFruInventory(cfg.inventory);
  const baseline = fingerprint(image);
  const storedFru = store.getFruData(cfg.name);
  let fruData: FruStorage;
  if (storedFru && storedFru.baseline === baseline && storedFru.bytes.length === Math.max(cfg.fruSize, image.length)) {
    fruData = new FruStorage(storedFru.bytes, storedFru.bytes.length);
  } else {
    if (storedFru) log.info({ category: 'fru', fru: cfg.name }, 'configured FRU inventory changed; FRU data rewritten from the configuration');
    fruData = new FruStorage(image, Math.max(cfg.fruSize, image.length));
    store.putFruData(cfg.name, { bytes: fruData.bytes(), baseline });
  }
  const thresholds = new Map<number, ThresholdSensor>();
  let hotSwap: FruRuntime['sensors']['hotSwap'] | undefined;
  for (const s of cfg.sensors) {
    if (s.kind === 'threshold') thresholds.set(s.number, new ThresholdSensor({ ...s, thresholds: { ...s.thresholds } }));
    else hotSwap = s;
  }
  if (!hotSwap) throw new RangeError(`${cfg.name}: no Hot Swap sensor`);
  const levels = cfg.power.levelsW.length;
  const rt: FruRuntime = {
    cfg,
    hs: new HotSwapController(cfg.name, rec ? storedHotSwapContext(rec) : initialHotSwapContext(4, { previous: 3 }), clock, config.hotSwap.stepMs, parts.hotSwap.host),
    faults: new Set((rec?.faults ?? []).filter((f): f is FaultKind => f === 'payload' || f === 'comm')),
    chassisOff: rec?.chassisOff ?? false,
    sensors: { thresholds, hotSwap },
    fruData,
    leds: { overrides: storedLedOverrides(rec), lastBlue: { mode: 'off', onMs: 0, offMs: 0 } },
    power: {
      level: rec ? Math.max(0, Math.min(rec.powerLevel, levels)) : 0,
      desired: rec ? Math.max(1, Math.min(rec.desiredLevel || cfg.power.desiredLevel, levels)) : cfg.power.desiredLevel,
    },
    ports: { links: linksFor(cfg, boardsBySlot), overrides: new Map(Object.entries(rec?.portOverrides ?? {})) },
    ...(cfg.fan ? { fan: { level: rec?.fanLevel ?? cfg.fan.normalLevel, local: rec?.fanLocal ?? true } } : {}),
    payload: { inService: false, resetting: false, sessionsLost: 0 },
    roles: new Map(),
  };
  if (cfg.fan && rt.fan!.level !== cfg.fan.normalLevel) parts.fans.applySpeed(rt, false);
  return rt;
}

/** Thresholds changed at run time survive unless the configured thresholds changed. */
function restoreThresholds(ctx: ShelfContext, rt: FruRuntime, storedThr: Map<string, StoredThresholds>): void {
  const { store, log } = ctx;
  const cfg = rt.cfg;
  for (const s of cfg.sensors) {
    if (s.kind !== 'threshold') continue;
    const t = storedThr.get(`${cfg.name}#${s.number}`);
    if (!t) continue;
    if (t.baseline === thresholdBaseline(s)) {
      try {
        rt.sensors.thresholds.get(s.number)!.setThresholds(t.values as Partial<Record<ThresholdName, number | null>>);
      } catch (e) {
        log.warn({ category: 'thresholds', fru: cfg.name, sensor: s.name, err: String(e) }, 'stored thresholds not applicable; configured ones kept');
        store.deleteThresholds(cfg.name, s.number);
      }
    } else {
      log.info({ category: 'thresholds', fru: cfg.name, sensor: s.name }, 'configured thresholds changed; run-time thresholds dropped');
      store.deleteThresholds(cfg.name, s.number);
    }
  }
}

/** The roles the store shows for this node (display only). */
function restoreRoles(rt: FruRuntime, roles: HaRoleRecord[]): void {
  for (const r of roles) {
    if (r.node === rt.cfg.name && (HA_ROLES as readonly string[]).includes(r.role)) rt.roles.set(r.key, { role: r.role as HaRoleName, epoch: r.epoch });
  }
}

/**
 * Power-up of FRUs the store does not know (a first start, or FRUs added to the YAML), under the
 * same rule as a later activation (PICMG 3.0 §3.9; ShelfPower.negotiate): the PEMs first (they
 * supply the budget and are always granted), then the other FRUs in configuration order (ShMCs,
 * boards by logical slot, fan trays) — the order in which waiting FRUs are re-examined later. Each
 * is granted the highest power level ≤ its desired level that the remaining budget covers and comes
 * up in M4 ("Transition to M4", as before); a FRU the budget does not cover even at level 1 stays
 * in M2 ("Transition to M2" from M1), and its M2 step asks again one step later, and whenever the
 * budget may have changed, with an `activation.waiting` event (reason power_budget, W needed and
 * available). SEL records are written in configuration order.
 */
function powerUpFresh(ctx: ShelfContext, parts: BootParts, fresh: FruRuntime[]): void {
  const { power, hotSwap, sel } = parts;
  const granted = new Set<FruRuntime>();
  const byBudget = [...fresh.filter((r) => r.cfg.kind === 'pem'), ...fresh.filter((r) => r.cfg.kind !== 'pem')];
  for (const rt of byBudget) {
    if (power.negotiate(rt)) {
      granted.add(rt);
    } else {
      rt.power.level = 0;
      rt.hs.reset(initialHotSwapContext(2, { previous: 1 }));
      ctx.log.warn(
        { category: 'power', fru: rt.cfg.name, neededW: drawAt(rt.cfg.power, 1), availableW: Math.max(0, power.budgetW() - power.usedW(rt)) },
        'not enough power budget at power-up; FRU waits in M2',
      );
    }
  }
  const sels = fresh.map((rt) => (granted.has(rt) ? hotSwap.transitionSel(rt, 3, 4, 'normal') : hotSwap.transitionSel(rt, 1, 2, 'normal')));
  sel.commit(fresh, sels, []);
}
